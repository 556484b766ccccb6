#!/bin/sh
# Near miss: the same deployment on 0.28.0, which carries both hit-window alignment fixes.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.28.0 \
  --model tiiuae/Falcon-H1-7B-Instruct \
  --enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":32000000000}}'
