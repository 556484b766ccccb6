#!/bin/bash
# vLLM with in-process LMCache and a local disk tier on a persistent volume.
export PYTHONHASHSEED=0
export LMCACHE_CHUNK_SIZE=256
export LMCACHE_LOCAL_CPU=True
export LMCACHE_MAX_LOCAL_CPU_SIZE=40
export LMCACHE_LOCAL_DISK="file:/mnt/kvcache/lmcache"
export LMCACHE_MAX_LOCAL_DISK_SIZE=500
vllm serve Qwen/Qwen3-8B --port 8000 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
