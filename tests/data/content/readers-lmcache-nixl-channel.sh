#!/bin/bash
# LMCache P/D as its older examples start it: the config moves KV over LMCache's own NIXL
# channel (LMCACHE_ENABLE_NIXL), not through vLLM's NixlConnector.
LMCACHE_ENABLE_NIXL=True LMCACHE_NIXL_ROLE=sender \
  vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8100 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer"}' &
LMCACHE_ENABLE_NIXL=True LMCACHE_NIXL_ROLE=receiver \
  vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8200 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}' &
