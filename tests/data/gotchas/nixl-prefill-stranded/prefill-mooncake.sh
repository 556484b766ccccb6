#!/bin/sh
# The same prefill server with the Mooncake connector instead of NIXL.
docker run -d --gpus '"device=0"' --net host \
  vllm/vllm-openai:v0.27.1 \
  --model meta-llama/Llama-3.1-8B-Instruct --port 8100 \
  --kv-transfer-config '{"kv_connector":"MooncakeConnector","kv_role":"kv_producer"}'
