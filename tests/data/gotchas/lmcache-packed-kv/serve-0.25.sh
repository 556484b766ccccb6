#!/bin/sh
# Near miss: the same LMCache setup pinned to vLLM 0.25.1, before the packed KV layout.
pip install vllm==0.25.1 lmcache==0.5.4
LMCACHE_CHUNK_SIZE=256 LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE=20 \
vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --no-enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
