#!/bin/sh
# trtllm-serve disaggregated 1 context + 1 generation server for gpt-oss-120b.
IMAGE=nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2
docker run --rm --gpus all --net host --ipc=host -v "$PWD":/cfg $IMAGE \
  trtllm-serve disaggregated -c /cfg/disagg_config_buffer_fits.yaml
