#!/bin/sh
# The connector of the upstream report.
docker run --gpus all -p 8000:8000 -e VLLM_SERVER_DEV_MODE=1 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both"}'
