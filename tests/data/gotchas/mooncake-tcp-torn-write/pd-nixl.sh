#!/bin/bash
# Near miss for gotchas/mooncake-tcp-write-completes-before-delivery: vLLM P/D over NIXL, with
# no Mooncake Transfer Engine in the transfer path.

CUDA_VISIBLE_DEVICES=0 vllm serve Qwen/Qwen3-8B --port 8010 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}' &

CUDA_VISIBLE_DEVICES=1 vllm serve Qwen/Qwen3-8B --port 8020 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' &
wait
