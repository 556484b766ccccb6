#!/bin/sh
# Near miss: the same MTP deployment with prefix caching turned off.
docker run --gpus all --ipc=host -p 8000:8000 vllm/vllm-openai:v0.21.0 \
  --model Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 2 \
  --no-enable-prefix-caching \
  --speculative-config '{"method":"qwen3_5_mtp","num_speculative_tokens":2}'
