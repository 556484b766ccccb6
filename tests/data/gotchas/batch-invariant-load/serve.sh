#!/bin/sh
# Batch-invariant vLLM serving at production concurrency: invariance breaks once a step
# carries 256+ tokens or ~44 co-resident sequences (vllm#48271, #51187).
docker run --gpus all -p 8000:8000 -e VLLM_BATCH_INVARIANT=1 vllm/vllm-openai:v0.29.0 \
  --model Qwen/Qwen3-8B \
  --max-num-seqs 256 \
  --max-num-batched-tokens 8192
