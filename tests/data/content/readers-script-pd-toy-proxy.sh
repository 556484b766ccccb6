#!/bin/bash
# vLLM's NIXL P/D as its integration tests start it: both sides kv_both, and only the toy
# proxy's --prefiller-ports / --decoder-ports say which is which. One script on one
# machine: both sides run the same vLLM and NIXL, whatever their versions.
MODEL=Qwen/Qwen3-0.6B
KV='{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
CUDA_VISIBLE_DEVICES=0 VLLM_NIXL_SIDE_CHANNEL_PORT=5559 \
  vllm serve $MODEL --port 8100 --enforce-eager --kv-transfer-config "$KV" &
CUDA_VISIBLE_DEVICES=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5659 \
  vllm serve $MODEL --port 8200 --enforce-eager --kv-transfer-config "$KV" &
python3 tests/v1/kv_connector/nixl_integration/toy_proxy_server.py --port 8192 \
  --prefiller-hosts localhost --prefiller-ports 8100 \
  --decoder-hosts localhost --decoder-ports 8200 &
