"""Ascend's command-line tools and runtime APIs, readable on any machine: npu-smi parsers, ascend-dmi, ATC command
lines, ONNX export and the pyACL inference pipeline."""
