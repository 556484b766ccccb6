#!/bin/sh
# GPT-OSS-120B with DP attention, TP4/DP4/EP4, default MoE all-to-all backend (none).
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --tp 4 --dp 4 --ep 4 --enable-dp-attention --host 0.0.0.0 --port 30000
