#!/bin/sh
# Qwen3.6 GDN hybrid with MTP speculative decoding on vLLM 0.21.0, prefix caching on (the
# default): prefix hits drop the last full-attention block while the GDN groups keep it.
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.21.0 \
  --model Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 2 \
  --enable-prefix-caching \
  --speculative-config '{"method":"qwen3_5_mtp","num_speculative_tokens":2}'
