#!/bin/sh
# Block reuse turned off in the options file, named by --config (trtllm-serve's newer
# spelling of --extra_llm_api_options).
docker run --gpus all --ipc=host -p 8000:8000 -v /tmp/kbt:/cfg nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc15 \
  trtllm-serve meta-llama/Llama-3.1-8B-Instruct --backend pytorch --port 8000 \
  --config /cfg/extra-noreuse.yaml
