vllm serve moonshotai/Kimi-K2.6 --tensor-parallel-size 8 \
  --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
