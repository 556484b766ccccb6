#!/bin/sh
# A KV events config is passed but publishing stays off.
docker run --gpus all --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B \
  --kv-events-config '{"enable_kv_cache_events":false,"publisher":"null"}'
