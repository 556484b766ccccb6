#!/bin/bash
# Near miss: same graph, every worker publishes KV events over ZMQ.
python3 -m dynamo.frontend --router-mode kv --http-port 8000 &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B \
  --kv-events-config '{"enable_kv_cache_events": true, "publisher": "zmq", "endpoint": "tcp://*:5557"}' &
python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B \
  --kv-events-config '{"enable_kv_cache_events": true, "publisher": "zmq", "endpoint": "tcp://*:5558"}'
