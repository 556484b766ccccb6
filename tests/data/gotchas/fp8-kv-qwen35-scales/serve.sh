#!/bin/sh
# Qwen3.6-27B checkpoint with calibrated k_scale/v_scale served with an FP8 KV cache:
# the Qwen3.5-family loader drops the scales and runs at 1.0 (vllm#54623).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.6-27B-FP8 \
  --kv-cache-dtype fp8 \
  --max-model-len 32768
