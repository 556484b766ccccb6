#!/bin/sh
# Block reuse left at its default (on); the options file named by --config.
docker run --gpus all --ipc=host -p 8000:8000 -v /tmp/kbt:/cfg nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc15 \
  trtllm-serve meta-llama/Llama-3.1-8B-Instruct --backend pytorch --port 8000 \
  --config /cfg/extra.yaml
