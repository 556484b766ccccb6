#!/bin/bash
# Disaggregated prefill with LMCache over NIXL, after vLLM's
# examples/others/lmcache/disagg_prefill_lmcache_v1/disagg_vllm_launcher.sh
MODEL=Qwen/Qwen3-8B
pip install vllm==0.26.0 lmcache==0.3.9

if [[ $1 == "prefiller" ]]; then
  UCX_TLS=cuda_ipc,cuda_copy,tcp \
  LMCACHE_CONFIG_FILE=configs/lmcache-prefiller-config.yaml \
  CUDA_VISIBLE_DEVICES=0 \
    vllm serve $MODEL \
      --port 8100 \
      --enforce-eager \
      --kv-transfer-config \
      '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer","kv_connector_extra_config": {"discard_partial_chunks": false}}'
elif [[ $1 == "decoder" ]]; then
  UCX_TLS=cuda_ipc,cuda_copy,tcp \
  LMCACHE_CONFIG_FILE=configs/lmcache-decoder-config.yaml \
  CUDA_VISIBLE_DEVICES=1 \
    vllm serve $MODEL \
      --port 8200 \
      --enforce-eager \
      --kv-transfer-config \
      '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}'
fi
