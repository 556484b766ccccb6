#!/bin/sh
# KV events on, prefix caching off: no block is kept under a hash, so none is announced
# or removed.
docker run --gpus all --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B --no-enable-prefix-caching \
  --kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557","topic":"kv-events"}'
