#!/bin/sh
# vLLM 0.28.0 publishing KV events to a prefix-aware router (llm-d precise prefix-cache
# scoring, Dynamo's KV router); prefix caching is on by default.
docker run --gpus all --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B \
  --kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557","topic":"kv-events"}'
