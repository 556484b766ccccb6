#!/usr/bin/env bash
# SGLang P/D disaggregation over Mooncake, after SGLang's docs
# (docs/advanced_features/pd_disaggregation.md); prefill on TP1 with an FP8 KV cache,
# decode on TP4 with the default.
pip install "sglang[all]==0.5.16"
export MODEL=Qwen/Qwen3.5-35B-A3B
python3 -m sglang.launch_server --model-path $MODEL --disaggregation-mode prefill \
  --disaggregation-transfer-backend mooncake --tp-size 1 --kv-cache-dtype fp8_e4m3 --port 30000 &
python3 -m sglang.launch_server --model-path $MODEL --disaggregation-mode decode \
  --disaggregation-transfer-backend mooncake --tp-size 4 --port 30001 --base-gpu-id 1 &
python3 -m sglang_router.launch_router --pd-disaggregation \
  --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 0.0.0.0 --port 8000
