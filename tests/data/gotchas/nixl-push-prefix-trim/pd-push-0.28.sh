#!/bin/sh
# The same 1P1D push-mode deployment on 0.28.0, the first release certain to carry
# vllm#48758 (prefill writes only the blocks decode lacks).
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlPushConnector","kv_role":"kv_consumer"}'
