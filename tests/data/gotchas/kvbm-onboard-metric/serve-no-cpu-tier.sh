#!/bin/bash
# Near miss: same worker without a KVBM host tier.
python -m dynamo.vllm --model Qwen/Qwen3-32B
