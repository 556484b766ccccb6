#!/bin/sh
# 1P1D with vLLM's push-mode NIXL connector: prefill WRITEs KV into decode's registered
# blocks and decode counts completion notifications.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_consumer"}'
