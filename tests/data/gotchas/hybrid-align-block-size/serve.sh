#!/bin/sh
# Hybrid GDN model with prefix caching and an explicit --block-size: the Mamba state
# column is computed in attention-block units (vllm#53142, #55600).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tensor-parallel-size 4 \
  --enable-prefix-caching \
  --block-size 64
