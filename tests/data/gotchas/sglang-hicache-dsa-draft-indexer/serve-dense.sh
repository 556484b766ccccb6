#!/bin/sh
# Dense-attention model: no indexer cache at all.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.15.post1 \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 \
  --enable-hierarchical-cache --hicache-ratio 2 --port 30000
