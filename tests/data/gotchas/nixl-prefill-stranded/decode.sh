#!/bin/sh
# Decode side only of the same 1P1D pair: it pulls KV from prefill; the stranded blocks
# live on the prefill node, which this file does not describe.
docker run -d --gpus '"device=1"' --net host \
  -e VLLM_NIXL_SIDE_CHANNEL_PORT=5601 \
  vllm/vllm-openai:v0.27.1 \
  --model meta-llama/Llama-3.1-8B-Instruct --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
