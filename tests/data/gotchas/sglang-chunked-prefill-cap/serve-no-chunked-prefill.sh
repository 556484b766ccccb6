#!/bin/sh
# Same server with chunked prefill turned off: no request is ever mid-prefill across passes.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-5-FP8 \
  --tp 8 --dp 8 --enable-dp-attention --max-running-requests 128 \
  --chunked-prefill-size -1 --host 0.0.0.0 --port 30000
