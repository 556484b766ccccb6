#!/bin/sh
# Prefill side of a vLLM 1P1D deployment over the default pull-mode NixlConnector:
# prefill holds each finished request's blocks until decode reports it has read them.
docker run -d --gpus '"device=0"' --net host \
  -e VLLM_NIXL_SIDE_CHANNEL_PORT=5600 \
  vllm/vllm-openai:v0.27.1 \
  --model meta-llama/Llama-3.1-8B-Instruct --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
