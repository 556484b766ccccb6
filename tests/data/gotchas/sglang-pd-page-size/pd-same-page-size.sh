#!/bin/sh
# The same 1P1D pair with --page-size 64 on both roles (llm-d's pinned value).
IMAGE=lmsysorg/sglang:v0.5.18
docker run -d --gpus '"device=0"' --net host --ipc=host --privileged $IMAGE \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --disaggregation-mode prefill --disaggregation-ib-device mlx5_0 \
  --page-size 64 --host 0.0.0.0 --port 30000
docker run -d --gpus '"device=1"' --net host --ipc=host --privileged $IMAGE \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --disaggregation-mode decode --disaggregation-ib-device mlx5_0 \
  --page-size 64 --host 0.0.0.0 --port 30001
