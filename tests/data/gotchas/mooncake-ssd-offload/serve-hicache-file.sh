#!/bin/bash
# Near miss: a Mooncake master with SSD offload is still running, but the engine's L3 is
# HiCache's file backend, so no engine reads through Mooncake.
mooncake_master --rpc_port 50051 --enable_offload=true --offload_on_evict=true &
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp 8 --port 30000 \
  --enable-hierarchical-cache --hicache-ratio 2 --hicache-storage-backend file &
wait
