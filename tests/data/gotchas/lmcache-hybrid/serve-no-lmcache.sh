#!/bin/sh
# Near miss: the hybrid model on 0.26.0 with only vLLM's own prefix cache, no LMCache.
pip install vllm==0.26.0 lmcache==0.5.2
vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2 --port 8000 --enable-prefix-caching
