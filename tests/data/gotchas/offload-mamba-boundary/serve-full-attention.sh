#!/bin/sh
# Near miss: same version and connector, but a full-attention model with no recurrent state.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.26.0 \
  --model Qwen/Qwen3-8B \
  --enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":32000000000}}'
