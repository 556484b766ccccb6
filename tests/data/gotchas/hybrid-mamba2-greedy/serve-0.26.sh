#!/bin/sh
# Near miss: a release below the recorded lower bound (>=0.27.0).
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.26.0 \
  --model ibm-granite/granite-4.0-h-tiny \
  --max-model-len 8192
