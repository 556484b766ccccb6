#!/bin/bash
# Trigger: vLLM worker with KVBM and a host tier, metrics on (shape of ai-dynamo/dynamo#4549).
export DYN_KVBM_CPU_CACHE_GB=150
export DYN_KVBM_METRICS=true
python -m dynamo.vllm --model Qwen/Qwen3-32B --connector kvbm
