"""Running the course itself: the ``%%npu`` cell magic, lint-npu against the released packages (``lint/``), recording
NPU outputs on Ascend hardware, workshop support and the labs' automatic checks."""
