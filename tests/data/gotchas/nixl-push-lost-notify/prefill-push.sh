#!/bin/sh
# Prefill side only of the push-mode pair: the hang and leak are on decode.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_producer"}'
