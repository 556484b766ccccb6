#!/bin/bash
# Near miss: disk tier size 0, so LMCache builds no disk tier.
export LMCACHE_CHUNK_SIZE=256
export LMCACHE_LOCAL_CPU=True
export LMCACHE_MAX_LOCAL_CPU_SIZE=40
export LMCACHE_MAX_LOCAL_DISK_SIZE=0
vllm serve Qwen/Qwen3-8B --port 8000 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
