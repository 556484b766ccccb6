#!/bin/sh
# Decode server of an SGLang 1P1D pair over NIXL (gpt-oss-120b, decode TP4): when the
# prefill side's transfer fails after bootstrap, decode is never told and waits out
# SGLANG_DISAGGREGATION_WAITING_TIMEOUT (300 s).
docker run -d --gpus '"device=4,5,6,7"' --net host --ipc=host --privileged \
  lmsysorg/sglang:v0.5.16 \
  python3 -m sglang.launch_server --model-path openai/gpt-oss-120b \
  --disaggregation-mode decode --disaggregation-transfer-backend nixl \
  --disaggregation-ib-device mlx5_0 --tp 4 --host 0.0.0.0 --port 30001
