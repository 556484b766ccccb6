#!/bin/bash
# SGLang HiCache with Mooncake Store as L3; the Mooncake master has its SSD tier on.
mooncake_master --rpc_port 50051 --enable_http_metadata_server=true --http_metadata_server_port 8080 \
  --enable_offload=true --offload_on_evict=true &
MOONCAKE_MASTER=127.0.0.1:50051 MOONCAKE_TE_META_DATA_SERVER=http://127.0.0.1:8080/metadata \
MOONCAKE_PROTOCOL=rdma MOONCAKE_GLOBAL_SEGMENT_SIZE=64gb \
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp 8 --port 30000 \
  --enable-hierarchical-cache --hicache-ratio 2 --hicache-storage-backend mooncake &
wait
