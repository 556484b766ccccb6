#!/bin/sh
# The same 1P1D deployment on 0.27.0 with the default pull-mode NixlConnector: decode
# pulls only the blocks it lacks, the suffix trimming that vllm#48758 reused for push.
docker run -d --gpus '"device=0"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
docker run -d --gpus '"device=1"' --net host vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-8B --port 8200 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
