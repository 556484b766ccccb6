#!/bin/sh
# Near miss: --prefix-match-unit set to a divisor of the 528-token block.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.5-4B \
  --enable-prefix-caching \
  --prefix-match-unit 176 \
  --max-model-len 32768
