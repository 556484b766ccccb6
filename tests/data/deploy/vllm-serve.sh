vllm serve Qwen/Qwen3-8B --enable-prefix-caching --kv-cache-dtype fp8
