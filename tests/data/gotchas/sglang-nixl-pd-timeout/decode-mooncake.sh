#!/bin/sh
# The same decode server over Mooncake, which pushes a failure status to decode.
docker run -d --gpus '"device=4,5,6,7"' --net host --ipc=host --privileged \
  lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --disaggregation-mode decode --disaggregation-transfer-backend mooncake \
  --disaggregation-ib-device mlx5_0 --tp 4 --host 0.0.0.0 --port 30001
