#!/bin/sh
# Speculation without HiCache: nothing is restored from host memory.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.15.post1 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-5.1-FP8 --tp 8 \
  --speculative-algorithm EAGLE --speculative-num-steps 5 --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 6 --port 30000
