#!/bin/sh
# vLLM 0.28.0 (packed K/V paged layout since 0.26.0) with LMCache's in-process connector
# and a local CPU tier; vLLM's prefix cache off so repeats are served from LMCache.
pip install vllm==0.28.0 lmcache==0.5.4
LMCACHE_CHUNK_SIZE=256 LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE=20 \
vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --no-enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
