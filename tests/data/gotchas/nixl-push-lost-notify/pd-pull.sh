#!/bin/sh
# The same 1P1D deployment with the default pull-mode NixlConnector.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
