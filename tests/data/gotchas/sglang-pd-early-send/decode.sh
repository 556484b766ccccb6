#!/bin/sh
# Decode server only of the Mooncake pair: the prefill server owns the transfer.
docker run -d --gpus all --net host --ipc=host --privileged \
  lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-4.6-FP8 \
  --disaggregation-mode decode --disaggregation-transfer-backend mooncake \
  --disaggregation-ib-device mlx5_0 --tp 8 \
  --trust-remote-code --host 0.0.0.0 --port 30001
