#!/bin/sh
# Near miss: no KV connector, so the GPU prefix cache is the only tier the reset has to clear.
docker run --gpus all -p 8000:8000 -e VLLM_SERVER_DEV_MODE=1 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-8B \
  --enable-prefix-caching
