#!/bin/sh
# Near miss: explicit --block-size on a full-attention model (no recurrent state).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-32B \
  --tensor-parallel-size 4 \
  --enable-prefix-caching \
  --block-size 64
