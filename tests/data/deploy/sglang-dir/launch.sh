#!/usr/bin/env bash
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --disaggregation-mode prefill --tp-size 1 &
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-35B-A3B --disaggregation-mode decode --tp-size 4 &
