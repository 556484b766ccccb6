#!/bin/sh
# No speculative drafter: no draft indexer to lose.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.15.post1 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-5.1-FP8 --tp 8 \
  --enable-hierarchical-cache --hicache-ratio 3 --port 30000
