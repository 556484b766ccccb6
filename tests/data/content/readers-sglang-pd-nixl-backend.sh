# SGLang P/D over NIXL, said only by --disaggregation-transfer-backend: the value brings the
# NIXL engine (records/settings/kv-transfer-backend.yaml), so NIXL's gotchas can fire.
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode prefill --disaggregation-transfer-backend nixl --port 30000 &
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode decode --disaggregation-transfer-backend nixl --port 30001 &
