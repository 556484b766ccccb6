#!/bin/sh
# Qwen3.6-27B (GDN hybrid) on vLLM 0.26.0 with LMCache's multi-process connector.
pip install vllm==0.26.0 lmcache==0.5.2
lmcache server --l1-size-gb 40 --eviction-policy LRU &
vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --port 8000 \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":6555}}'
