#!/bin/sh
# Near miss: SGLang's deterministic inference instead of vLLM batch-invariant mode.
docker run --gpus all -p 30000:30000 lmsysorg/sglang:v0.5.6 \
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --enable-deterministic-inference --host 0.0.0.0 --port 30000
