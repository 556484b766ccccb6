#!/bin/sh
# Granite-4.0-H (Mamba2 hybrid) on 0.27.1 with default prefix caching: greedy output of
# the same batch differs between runs (vllm#57267).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model ibm-granite/granite-4.0-h-tiny \
  --max-model-len 8192
