#!/bin/bash
# Near miss: the same 1P1D pair over the Mooncake transfer connector instead of NIXL.
pip install vllm==0.27.0
CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-32B --port 8100 \
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}' &
CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-32B --port 8200 \
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_consumer"}' &
wait
