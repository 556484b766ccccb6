#!/bin/sh
# Near miss: the documented workaround, prefix caching off.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.27.1 \
  --model ibm-granite/granite-4.0-h-tiny \
  --max-model-len 8192 \
  --no-enable-prefix-caching \
  --max-num-batched-tokens 2048
