"""npulab: the helper package of the course 昇腾 NPU 编程实战.

Notebooks import what they teach with from here; each module holds one concern.

Foundation (every chapter):
- ``device``, ``timing``, ``bench``  device selection npu → cuda → cpu; benchmarks that warm up, synchronise,
  repeat and report the median (``bench``: matmul, bandwidth, resnet50, allreduce)
- ``gating``, ``notebooks``, ``lint_npu``, ``npu_symbols``, ``record``  NPU-only cells: the ``%%npu`` magic, tags,
  static checks against the real torch_npu wheel, recording on Ascend hardware
- ``provenance``, ``peaks``, ``plotting``, ``envinfo``, ``paths``, ``cli``, ``labs``  figures labelled measured /
  recorded / reported / derived, CJK plots, the first-cell summary, command-line plumbing, lab checks

01 environment: ``cann``, ``compat``, ``shellenv``, ``visible``, ``doctor``, ``apimap``
02 architecture: ``davinci``, ``formats``, ``cube``, ``roofline``, ``interconnect``, ``collectives``, ``cann_stack``
03 PyTorch: ``migrate`` (CUDA→NPU analyzer), ``resnet``, ``train``
04 MindSpore: ``ms_env``, ``ms_models``, ``ms_convert``, ``ms_pairs``, ``ms_timing``
05 tools: ``smi`` (npu-smi parsers), ``dmi``, ``onnx_tools``, ``atc``, ``acl_infer`` (+ ``acl_fake`` for tests)
06 advanced: ``ascendc`` (vector pipeline model), ``strategy``, ``distributed``, ``llm`` (``kv_cache``: KV cache and
  HBM planner; ``decoder``: the small transformers decoder, LoRA; ``plan_cli``: ``llm-plan``)
Workshops: ``workshop`` (one NPU per participant, agenda from notebook metadata)

The command line is ``python -m npulab <tool> ...``.
"""

__version__ = "0.1.0"


def load_ipython_extension(ipython):  # pragma: no cover - thin IPython hook
    """``%load_ext npulab`` registers the ``%%npu`` cell magic."""
    from npulab.gating import register_magics

    register_magics(ipython)
