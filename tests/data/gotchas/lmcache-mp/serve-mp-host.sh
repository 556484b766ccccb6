vllm serve moonshotai/Kimi-K2.6 --tensor-parallel-size 8 \
  --kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.host":"tcp://lmcache-server","lmcache.mp.port":6555}}'
