#!/bin/sh
# 1P1D with vLLM's push-mode NIXL connector on 0.27.0: decode keeps prefix caching on
# (the default), so a request whose prefix decode already holds gets a partial local
# hit and prefill writes the rest of the KV into decode's blocks.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_consumer"}'
