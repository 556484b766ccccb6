#!/bin/bash
# Near miss: same frontend without the KV router.
python3 -m dynamo.frontend --router-mode round-robin --http-port 8000 &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B
