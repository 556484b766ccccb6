#!/bin/sh
# Near miss: the same hybrid worker without KV events (router falls back to approximate scoring).
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3.5-27B --tensor-parallel-size 2 \
  --enable-prefix-caching
