#!/bin/sh
# Same model on the fa4 backend, whose prefill returns a natural-log LSE.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 \
  --tp 8 --attention-backend fa4 --trust-remote-code --host 0.0.0.0 --port 30000
