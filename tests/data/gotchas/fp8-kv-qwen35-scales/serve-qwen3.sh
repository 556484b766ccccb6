#!/bin/sh
# Near miss: FP8 KV cache on a dense Qwen3 model, whose loader remaps the scales.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-32B-FP8 \
  --kv-cache-dtype fp8 \
  --max-model-len 32768
