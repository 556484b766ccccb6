#!/bin/sh
# Hybrid GDN model with prefix caching and an EAGLE3 drafter that adds a small-block KV group.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.5-27B \
  --enable-prefix-caching \
  --speculative-config '{"method": "eagle3", "model": "RedHatAI/Qwen3.5-27B-speculator.eagle3", "num_speculative_tokens": 3}'
