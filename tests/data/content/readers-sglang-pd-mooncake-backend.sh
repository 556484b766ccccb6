# The same pair over Mooncake: no NIXL engine, no NIXL gotcha.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend mooncake --port 30000 &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-transfer-backend mooncake --port 30001 &
