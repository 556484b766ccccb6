#!/bin/bash
# Both sides take the KV cache dtype from one variable of the script: whatever it is at
# run time, it is the same on both, so no mismatch can be claimed.
KV_DTYPE=${1:?kv cache dtype}
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --kv-cache-dtype $KV_DTYPE &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --kv-cache-dtype $KV_DTYPE &
