"""Is the Triton that torch_npu's inductor needs importable here, or only community Triton?

torch_npu 2.12.0 (github:Ascend/pytorch, tag v26.1.0-pytorch2.12.0) switches its inductor to Triton code generation for
``npu`` as soon as *any* ``triton`` package exists (``torch_npu/_inductor/utils.py``, ``patch_has_triton``). The kernels it
then generates import ``triton.language.extra.cann.libdevice``, or else ``triton.language.extra.ascend.libdevice``
(``torch_npu/_inductor/npu_triton_helpers.py``), and compile through Triton's active driver, which Triton-Ascend provides
as the backend ``triton.backends.ascend`` (github:triton-lang/triton-ascend, ``third_party/ascend/backend``). Community
Triton (the ``triton`` wheel on PyPI) has none of these, so inductor on an NPU fails at the first compiled step with
``No module named 'triton.language.extra.ascend'``.

``probe()`` tries exactly those imports, in torch_npu's order; it imports Triton but never torch.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.env.check import metadata_version

LIBDEVICE_MODULES = ("triton.language.extra.cann.libdevice", "triton.language.extra.ascend.libdevice")
BACKEND_MODULE = "triton.backends.ascend"


@dataclass(frozen=True)
class TritonAscendStatus:
    """What a Python environment offers torch_npu's inductor: which libdevice imported, the Ascend backend, versions."""

    libdevice: str | None  # the module that imported, or None
    backend: bool  # triton.backends.ascend is there
    triton_version: str | None  # distribution "triton" (community), or None
    triton_ascend_version: str | None  # distribution "triton-ascend", or None
    error: str = ""  # why the libdevice import failed (the last error)

    @property
    def importable(self) -> bool:
        """True when everything torch_npu's Triton path imports is there."""
        return self.libdevice is not None and self.backend

    @property
    def community_only(self) -> bool:
        """A ``triton`` package is importable but it is not Triton-Ascend (what torch_npu 2.12 trips over)."""
        return self.has_triton and not self.importable

    @property
    def has_triton(self) -> bool:
        return self.triton_version is not None or self.triton_ascend_version is not None or _spec("triton")

    def describe(self) -> str:
        """One line in the reader's language: what is importable and what is missing."""
        if self.importable:
            return t("doctor.triton_status.usable", libdevice=self.libdevice, backend=BACKEND_MODULE)
        if not self.has_triton:
            return t("doctor.triton_status.none")
        which = (t("doctor.triton_status.community", version=self.triton_version) if self.triton_version
                 else t("doctor.triton_status.some"))
        missing = [m for m, ok in ((t("doctor.triton_status.or").join(LIBDEVICE_MODULES), self.libdevice),
                                   (BACKEND_MODULE, self.backend)) if not ok]
        return t("doctor.triton_status.missing", which=which, missing=t("doctor.triton_status.and").join(missing))


def _spec(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def probe() -> TritonAscendStatus:
    """Try torch_npu's libdevice imports (cann first, then ascend) and look for the Ascend backend."""
    libdevice, error = None, ""
    for name in LIBDEVICE_MODULES:
        try:
            importlib.import_module(name)
        except Exception as err:  # ImportError, or a Triton that breaks on import: either way not usable
            error = f"{type(err).__name__}: {err}"
            continue
        libdevice = name
        break
    return TritonAscendStatus(libdevice, _spec(BACKEND_MODULE), metadata_version("triton"),
                              metadata_version("triton-ascend"), "" if libdevice else error)
