#!/bin/sh
# Near miss: KV events from a full-attention model, one KV group, one hash per block.
docker run --gpus all --ipc=host -p 8000:8000 -p 5557:5557 vllm/vllm-openai:v0.27.0 \
  --model Qwen/Qwen3-32B --tensor-parallel-size 2 \
  --enable-prefix-caching \
  --kv-events-config '{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557","topic":"kv@qwen3"}'
