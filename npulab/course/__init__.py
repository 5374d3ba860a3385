"""Running the course itself: the ``%%npu`` cell magic, lint-npu against the real torch_npu wheel, recording NPU
outputs on Ascend hardware, workshop support and the labs' automatic checks."""
