#!/bin/sh
# Nemotron-3-Super, Mamba2 hybrid, block 8320 larger than max_model_len (vllm#48401).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8 \
  --tensor-parallel-size 4 \
  --max-model-len 4096
