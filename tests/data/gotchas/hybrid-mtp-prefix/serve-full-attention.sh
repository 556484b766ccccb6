#!/bin/sh
# Near miss: EAGLE3 and prefix caching on a full-attention model (one KV group, no hybrid
# hit-length mismatch).
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.21.0 \
  --model Qwen/Qwen3-8B \
  --enable-prefix-caching \
  --speculative-config '{"method":"eagle3","model":"RedHatAI/Qwen3-8B-speculator.eagle3","num_speculative_tokens":3}'
