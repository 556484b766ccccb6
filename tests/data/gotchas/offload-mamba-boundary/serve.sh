#!/bin/sh
# Hybrid Mamba2 model with vLLM's native CPU offloading connector on 0.26.0:
# exact-boundary prompts refetched from CPU restore the wrong recurrent state.
docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.26.0 \
  --model tiiuae/Falcon-H1-7B-Instruct \
  --enable-prefix-caching \
  --kv-transfer-config '{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":32000000000}}'
