#!/bin/sh
# DP attention with an all-to-all backend: MoE output is combined by DeepEP, not reduce_scatterv.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --tp 4 --dp 4 --ep 4 --enable-dp-attention --moe-a2a-backend deepep --host 0.0.0.0 --port 30000
