#!/bin/sh
# Dense-attention model: no indexer cache to lose.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --enable-hierarchical-cache --hicache-storage-backend mooncake --port 30000
