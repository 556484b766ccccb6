#!/bin/sh
# Near miss: a Gated DeltaNet hybrid (hybrid-linear), not a Mamba2 hybrid.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3.5-4B \
  --max-model-len 8192
