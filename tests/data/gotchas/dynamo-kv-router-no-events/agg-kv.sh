#!/bin/bash
# KV-routing frontend in front of vLLM workers that were never told to publish KV events:
# the router falls back to approximate mode (ai-dynamo/dynamo#11473).
python3 -m dynamo.frontend --router-mode kv --http-port 8000 &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B
