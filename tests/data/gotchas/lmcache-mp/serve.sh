lmcache server --l1-size-gb 60 --eviction-policy LRU &
vllm serve moonshotai/Kimi-K2.6 --tensor-parallel-size 8 --enable-expert-parallel \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":6555}}'
