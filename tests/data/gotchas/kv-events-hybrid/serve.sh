#!/bin/sh
# vLLM worker behind a KV-aware router (llm-d precise prefix scorer / Dynamo) serving a
# GDN hybrid and publishing per-group KV events over ZMQ.
docker run --gpus all --ipc=host -p 8000:8000 -p 5557:5557 vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3.5-27B --tensor-parallel-size 2 \
  --enable-prefix-caching \
  --kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557","topic":"kv@qwen35"}'
