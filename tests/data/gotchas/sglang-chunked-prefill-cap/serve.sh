#!/bin/sh
# GLM-5-FP8 with DP attention, a per-rank cap of 16 running requests, chunked prefill on.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-5-FP8 \
  --tp 8 --dp 8 --enable-dp-attention --max-running-requests 128 \
  --chunked-prefill-size 8192 --host 0.0.0.0 --port 30000
