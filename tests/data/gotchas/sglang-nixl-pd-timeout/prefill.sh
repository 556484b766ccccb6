#!/bin/sh
# Prefill server only of the NIXL pair: it logs the failure itself; the hang is on decode.
docker run -d --gpus '"device=0"' --net host --ipc=host --privileged \
  lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
  --disaggregation-ib-device mlx5_0 --tp 1 --host 0.0.0.0 --port 30000
