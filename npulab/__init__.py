"""npulab: the helper package of the course 昇腾 NPU 编程实战.

Notebooks import what they teach with from here; each module holds one concern:

- ``device``      pick the best device (npu → cuda → cpu) without breaking ``import torch``
- ``timing``      benchmarks that synchronise the device, warm up, repeat and report the median
- ``gating``      the ``%%npu`` cell magic so "Run All" never crashes without an NPU
- ``provenance``  figures labelled measured / recorded / reported / derived
- ``plotting``    matplotlib style with a CJK font family list
- ``envinfo``     the environment summary printed by every lesson's first cell
- ``cann``, ``compat``, ``doctor``, ``visible``  CANN layout, version data, environment diagnosis
- ``lint_npu``, ``record``  checks and recording of NPU-only cells

The command line is ``python -m npulab <tool> ...``.
"""

__version__ = "0.1.0"


def load_ipython_extension(ipython):  # pragma: no cover - thin IPython hook
    """``%load_ext npulab`` registers the ``%%npu`` cell magic."""
    from npulab.gating import register_magics

    register_magics(ipython)
