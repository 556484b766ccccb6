#!/bin/sh
# Near miss: prefix caching on, no speculative decoding.
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.21.0 \
  --model Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 2 \
  --enable-prefix-caching
