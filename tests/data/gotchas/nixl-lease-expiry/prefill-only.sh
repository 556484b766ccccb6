#!/bin/bash
# Near miss: only the prefill side of a NIXL pair (the decode pool is deployed elsewhere).
pip install vllm==0.27.0
CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5600 vllm serve Qwen/Qwen3-32B --port 8100 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
