#!/bin/sh
# Near miss: same service without batch-invariant mode (no invariance is promised).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.29.0 \
  --model Qwen/Qwen3-8B \
  --max-num-seqs 256 \
  --max-num-batched-tokens 8192
