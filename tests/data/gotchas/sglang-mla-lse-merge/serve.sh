#!/bin/sh
# DeepSeek-R1 on B200 with the trtllm_mla backend and the chunked prefix cache left on (default).
docker run --gpus all --ipc=host -p 30000:30000 lmsysorg/sglang:v0.5.18 \
  python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-0528 \
  --tp 8 --attention-backend trtllm_mla --trust-remote-code --host 0.0.0.0 --port 30000
