#!/bin/sh
# Host-memory HiCache only: no L3 restore, so the indexer buffer travels with the KV.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-5.1-FP8 --tp 8 \
  --enable-hierarchical-cache --hicache-ratio 1.0 --port 30000
