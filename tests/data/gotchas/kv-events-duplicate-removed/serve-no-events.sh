#!/bin/sh
# The same server without KV events: a router that only approximates the cache from
# its own routing decisions does not read BlockRemoved.
docker run --gpus all --net host vllm/vllm-openai:v0.28.0 \
  --model Qwen/Qwen3-8B
