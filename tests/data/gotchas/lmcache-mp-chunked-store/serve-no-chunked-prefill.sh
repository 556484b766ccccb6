#!/bin/sh
# MP mode with chunked prefill turned off: each prompt is prefilled, and stored, in one step.
vllm serve Qwen/Qwen3-8B --no-enable-chunked-prefill \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://lmcache-server","lmcache.mp.port":6555}}'
