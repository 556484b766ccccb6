#!/bin/bash
# Trigger for gotchas/mooncake-tcp-write-completes-before-delivery: SGLang P/D with the
# Mooncake transfer backend on a Transfer Engine older than 0.3.12.
pip install mooncake-transfer-engine==0.3.10.post2

python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000 \
  --disaggregation-mode prefill --disaggregation-transfer-backend mooncake &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 \
  --disaggregation-mode decode --disaggregation-transfer-backend mooncake --base-gpu-id 1 &
wait
