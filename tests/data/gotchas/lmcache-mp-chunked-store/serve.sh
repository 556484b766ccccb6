#!/bin/sh
# LMCache multi-process mode: a local `lmcache server` and vLLM with LMCacheMPConnector;
# chunked prefill left at vLLM's default (on), so long prompts are stored in several steps.
lmcache server --chunk-size 256 --l1-size-gb 80 --eviction-policy LRU &
vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 2048 \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":6555}}'
