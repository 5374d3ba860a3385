"""lint-npu, what Triton's interpreter skips: a cell's kernels lowered to Triton IR (TTIR) by Triton's own front end,
for each launch of the cell, in the child ``npulab.lint.triton_run`` forks. The interpreter runs a kernel's body as
Python, so the code generator's own checks (``triton/compiler/code_generator.py``) never run there: a loop-carried
variable whose type or block shape changes in the loop, a variable typed differently by the two branches of an
``if``, a global that is not ``tl.constexpr``, a Python construct Triton does not lower, a ``for`` bound that is not
an integer scalar, a call of a plain Python function. The front end needs no GPU and no driver.

How: the cell runs a second time with Triton imported in its compiled mode. Each launch goes through Triton's own
``JITFunction.run`` (its binder types every argument, its options parser reads the launch's options), and where Triton
would compile, ``_front_end`` builds the ``ASTSource`` and calls ``make_ir`` only; nothing is launched. A stand-in driver
names the target (an NVIDIA one: the only backends the wheel ships are NVIDIA's and AMD's), and ``tl.dot``'s minimum
block is Triton-Ascend's, (1, 1, 1) (github.com/Ascend/triton-ascend ``third_party/ascend/backend/compiler.py`` at af4de17,
``min_dot_size``), not NVIDIA's 16. A refusal raised inside ``triton/backends/`` (the NVIDIA backend's own options and
limits, ``num_warps`` a power of two and the like) is the stand-in target's, not Ascend's: not reported; a launch
keyword that is an option of Triton-Ascend's backend (``multibuffer`` …, npulab/data/triton_ascend_lifted.yaml) is
dropped before Triton reads the launch, so the stand-in's options do not refuse it.
"""

from __future__ import annotations

import os
import sys
from functools import cache

from npulab.core.paths import DATA_DIR, shared_yaml

TARGET = ("cuda", 90, 32)  # backend, capability, warp size of the stand-in target (Hopper: no dtype it lacks)
_DOT_MIN = (1, 1, 1)  # Triton-Ascend's min_dot_size (third_party/ascend/backend/compiler.py)


def triton_modules() -> list[str]:
    """Triton's Python modules in ``sys.modules`` (not its C extension, which a process loads once)."""
    return [m for m in sys.modules if (m == "triton" or m.startswith("triton.")) and not m.startswith("triton._C")]


def imported_aside(interpret: bool) -> dict:
    """Triton's modules imported in the interpreted (``TRITON_INTERPRET=1``) or the compiled mode and kept aside:
    this process's ``sys.modules`` and environment are left as they were (a Triton imported before stays, none stays
    if there was none). Torch first (lint's process has it already)."""
    import torch  # noqa: F401

    earlier = {name: sys.modules.pop(name) for name in triton_modules()}
    before = os.environ.pop("TRITON_INTERPRET", None)
    if interpret:
        os.environ["TRITON_INTERPRET"] = "1"
    try:
        import triton.compiler.code_generator  # noqa: F401  (else imported late, by the first launch, in each child)
        import triton.language  # noqa: F401
        import triton.runtime.interpreter  # noqa: F401
        return {name: sys.modules[name] for name in triton_modules()}
    finally:
        os.environ.pop("TRITON_INTERPRET", None)
        if before is not None:
            os.environ["TRITON_INTERPRET"] = before
        for name in triton_modules():
            del sys.modules[name]
        sys.modules.update(earlier)


@cache
def compiled() -> dict:
    """The compiled-mode Triton, imported once in lint's process for its children."""
    return imported_aside(interpret=False)


def enter() -> None:
    """In the child: the compiled-mode Triton in ``sys.modules`` (none of the interpreted one's modules left), a
    stand-in driver, launches that only lower."""
    for name in triton_modules():
        del sys.modules[name]
    sys.modules.update(compiled())
    from triton.backends.compiler import GPUTarget
    from triton.runtime import jit
    from triton.runtime.driver import driver

    class StandIn:
        """What ``JITFunction.run`` asks a driver before it compiles: a device, a stream, a target."""

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

        def get_current_target(self):
            return GPUTarget(*TARGET)

    driver.set_active(StandIn())
    jit.JITFunction._do_compile = _front_end
    run = jit.JITFunction.run

    def without_ascend_options(self, *args, **kwargs):
        ascend = set(shared_yaml(DATA_DIR / "triton_ascend_lifted.yaml")["launch_options"]["names"]) - set(self.arg_names)
        return run(self, *args, **{name: value for name, value in kwargs.items() if name not in ascend})
    jit.JITFunction.run = without_ascend_options


def _front_end(self, key, signature, device, constexprs, options, attrs, warmup):
    """Replaces ``JITFunction._do_compile``: the kernel lowered to TTIR as ``triton.compiler.compile`` would, then
    None (``run`` then returns without launching)."""
    from triton._C.libtriton import ir

    backend = self.device_caches[device][3]
    src = self.ASTSource(self, signature, constexprs, attrs)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    codegen = {**backend.get_codegen_implementation(options), "min_dot_size": lambda lhs, rhs: _DOT_MIN}
    src.make_ir(backend.target, options, codegen, backend.get_module_map(), context)
    return None
