#!/bin/bash
# Trigger: frontend routing with the KV router in front of vLLM workers (ai-dynamo/dynamo#4904).
python3 -m dynamo.frontend --router-mode kv --http-port 8000 &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B
