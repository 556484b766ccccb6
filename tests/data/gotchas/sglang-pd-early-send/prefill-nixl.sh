#!/bin/sh
# The same prefill server over NIXL, which the record does not name (the NIXL half rests
# on one PR description).
docker run -d --gpus all --net host --ipc=host --privileged \
  lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path zai-org/GLM-4.6-FP8 \
  --disaggregation-mode prefill --disaggregation-transfer-backend nixl \
  --disaggregation-ib-device mlx5_0 --tp 8 --chunked-prefill-size 8192 \
  --trust-remote-code --host 0.0.0.0 --port 30000
