#!/bin/sh
# In-process LMCache (LMCacheConnectorV1, CPU tier): not the MP worker adapter.
LMCACHE_LOCAL_CPU=True LMCACHE_MAX_LOCAL_CPU_SIZE=80 \
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 2048 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
