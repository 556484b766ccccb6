#!/bin/bash
# Trigger for gotchas/mooncake-tcp-write-completes-before-delivery: vLLM P/D over the
# Mooncake connector with a Transfer Engine older than 0.3.12 (TCP completion without
# acknowledgment).
pip install mooncake-transfer-engine==0.3.11.post1

CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B --port 8010 \
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}' &

CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-8B --port 8020 \
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}' &
wait
