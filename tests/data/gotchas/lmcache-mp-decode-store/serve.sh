#!/bin/sh
# LMCache multi-process mode on a fixed prompt set: vLLM with LMCacheMPConnector pointed
# at the node's lmcache server.
vllm serve meta-llama/Llama-3.1-8B-Instruct \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://lmcache-server","lmcache.mp.port":6555}}'
