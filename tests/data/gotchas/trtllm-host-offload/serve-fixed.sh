docker run --rm --gpus all -p 8000:8000 nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6 \
  trtllm-serve serve Qwen/Qwen3-8B --host 0.0.0.0 --port 8000 \
  --extra_llm_api_options /cfg/t1-extra.yaml
