vllm serve moonshotai/Kimi-K2.6 --tensor-parallel-size 8 --enable-expert-parallel \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
