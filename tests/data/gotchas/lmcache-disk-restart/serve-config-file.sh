#!/bin/bash
# The same disk tier, given through an LMCache config file.
LMCACHE_CONFIG_FILE=disk_config.yaml PYTHONHASHSEED=0 \
vllm serve Qwen/Qwen3-0.6B --port 8085 \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
