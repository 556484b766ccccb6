#!/bin/sh
# 1P1D with vLLM's push-mode NIXL connector on 0.27.0, prefix caching turned off on
# both sides: decode never has a local hit, so prefill always writes the whole prompt.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8100 --no-enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8200 --no-enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_consumer"}'
