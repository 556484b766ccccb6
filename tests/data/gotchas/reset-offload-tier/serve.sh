#!/bin/sh
# Dev-mode server with vLLM's native CPU offloading tier: /reset_prefix_cache without
# reset_external=true clears only the GPU cache, so a "cold" request is served from CPU.
docker run --gpus all -p 8000:8000 -e VLLM_SERVER_DEV_MODE=1 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":32000000000}}'
