#!/bin/bash
# Near miss: in-process LMCache with the CPU tier only, no disk tier.
export PYTHONHASHSEED=0
export LMCACHE_CHUNK_SIZE=256
export LMCACHE_LOCAL_CPU=True
export LMCACHE_MAX_LOCAL_CPU_SIZE=40
vllm serve Qwen/Qwen3-8B --port 8000 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
