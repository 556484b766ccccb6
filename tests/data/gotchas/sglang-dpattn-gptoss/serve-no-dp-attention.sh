#!/bin/sh
# Same model and TP size without DP attention: the reduce-scatter fast path is not taken.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --tp 4 --ep 4 --host 0.0.0.0 --port 30000
