#!/usr/bin/env bash
# The same P/D pair with the same KV cache dtype and TP on both sides.
pip install "sglang[all]==0.5.16"
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --disaggregation-mode prefill --tp-size 2 --kv-cache-dtype fp8_e4m3 &
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --disaggregation-mode decode --tp-size 2 --kv-cache-dtype fp8_e4m3 &
