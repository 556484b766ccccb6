#!/bin/bash
# SGLang's P/D as its disaggregation docs start it: prefill and decode servers, then the
# minimal load balancer in front of them (an entry point, not an unknown engine).
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --port 30000 --disaggregation-ib-device mlx5_roce0 &
python -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --port 30001 --base-gpu-id 1 --disaggregation-ib-device mlx5_roce0 &
python -m sglang.srt.disaggregation.mini_lb --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 0.0.0.0 --port 8000
