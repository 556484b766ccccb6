#!/bin/bash
# Near miss: round-robin frontend; no KV index is expected.
python3 -m dynamo.frontend --router-mode round-robin --http-port 8000 &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B
