#!/bin/bash
# Each side takes its KV cache dtype from a variable of its own: they may differ.
P_DTYPE=$1
D_DTYPE=$2
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --kv-cache-dtype $P_DTYPE &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --kv-cache-dtype $D_DTYPE &
