#!/bin/sh
# Near miss: dense full-attention model, normal 16-token blocks.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-4B \
  --enable-prefix-caching \
  --max-model-len 32768
