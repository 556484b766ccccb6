#!/bin/sh
# Qwen3.5-4B with prefix caching: the attention block is inflated to 528 tokens, so
# shorter shared prefixes never hit (vllm#40696).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.5-4B \
  --enable-prefix-caching \
  --max-model-len 32768
