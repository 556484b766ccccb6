#!/bin/sh
# Same server with the chunked prefix cache turned off: extends take the absorbed MLA path, no merge.
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 \
  --tp 8 --attention-backend trtllm_mla --disable-chunked-prefix-cache --trust-remote-code \
  --host 0.0.0.0 --port 30000
