#!/bin/sh
# Near miss: vLLM 0.28.0 with its native CPU offloading connector instead of LMCache.
pip install vllm==0.28.0
vllm serve meta-llama/Llama-3.1-8B-Instruct --port 8000 --no-enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":20000000000}}'
