docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.29.0 \
  --model google/gemma-4-26B-A4B-it --no-enable-prefix-caching --max-model-len 32768
