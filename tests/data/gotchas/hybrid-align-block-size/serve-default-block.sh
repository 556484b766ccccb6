#!/bin/sh
# Near miss: same hybrid model and prefix caching, no explicit block size, no drafter.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tensor-parallel-size 4 \
  --enable-prefix-caching
