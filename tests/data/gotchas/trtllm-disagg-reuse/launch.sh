IMAGE=nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2
docker run --rm --gpus all --net host -v /tmp/kbt:/cfg $IMAGE \
  trtllm-serve disaggregated -c /cfg/disagg_config.yaml
