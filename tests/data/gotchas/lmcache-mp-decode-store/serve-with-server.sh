#!/bin/sh
# MP mode relying on the connector's default address, with the lmcache server started beside it.
lmcache server --l1-size-gb 40 --eviction-policy LRU &
vllm serve meta-llama/Llama-3.1-8B-Instruct \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"}'
