#!/bin/sh
# Near miss: a NIXL P/D connector is not an offload tier.
docker run --gpus all -p 8000:8000 -e VLLM_SERVER_DEV_MODE=1 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
