#!/bin/sh
# Near miss: same checkpoint, KV cache left in the model dtype.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.6-27B-FP8 \
  --kv-cache-dtype auto \
  --max-model-len 32768
