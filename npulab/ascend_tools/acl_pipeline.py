"""Run an offline model (``.om``) with AscendCL's Python API (pyACL), written from the documented call sequence.

Call order (Ascend/samples ``python/common/acllite/acllite_resource.py`` and ``acllite_model.py``): ``acl.init`` → ``acl.rt.set_device`` →
``acl.rt.create_context`` → ``acl.rt.create_stream`` → ``acl.mdl.load_from_file`` → ``acl.mdl.create_desc`` +
``acl.mdl.get_desc`` → for every input: ``acl.rt.malloc`` on the device, ``acl.rt.memcpy`` host → device,
``acl.create_data_buffer`` + ``acl.mdl.add_dataset_buffer``; the same for outputs (without the copy) →
``acl.mdl.execute`` → copy each output device → host (``acl.rt.malloc_host`` + ``acl.rt.memcpy`` +
``acl.util.ptr_to_bytes``) → release everything in reverse order → ``acl.rt.reset_device`` → ``acl.finalize``.

Two rules the seed article's snippet broke (its pyACL inference example): every call's return code is checked
(``load_from_file`` returns ``(model_id, ret)``, not a model description), and every resource is released
in a ``finally`` block in reverse order of acquisition — also when a step in the middle fails, and without
letting a failed release hide the original error. ``acl`` is imported only when ``run_om`` is called
(it exists only where CANN is installed); tests pass a stand-in module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from npulab.core.i18n import t

ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
# aclDataType → NumPy dtype (AscendCL API reference, aclDataType)
ACL_DTYPES = {0: np.float32, 1: np.float16, 2: np.int8, 3: np.int32, 4: np.uint8, 6: np.int16, 7: np.uint16,
              8: np.uint32, 9: np.int64, 10: np.uint64, 11: np.float64, 12: np.bool_}


class AclError(RuntimeError):
    """An AscendCL call returned a non-zero code (``call`` names it, ``ret`` is the code)."""

    def __init__(self, call: str, ret: object, note: str = ""):
        self.call, self.ret = call, ret
        super().__init__(t("acl.failed", call=call, ret=ret, note=t("acl.note", note=note) if note else ""))


def check(ret: object, call: str) -> None:
    """Raise ``AclError`` unless ``ret`` is 0 (ACL_SUCCESS)."""
    if ret != ACL_SUCCESS:
        raise AclError(call, ret)


class Releases:
    """A stack of release calls, run in reverse order; failures are collected, not raised on the spot."""

    def __init__(self) -> None:
        self._stack: list[tuple[str, Callable[[], object]]] = []
        self.failures: list[AclError] = []

    def push(self, call: str, release: Callable[[], object]) -> None:
        self._stack.append((call, release))

    def release_all(self) -> list[AclError]:
        while self._stack:
            call, release = self._stack.pop()
            try:
                ret = release()
            except Exception as err:  # a broken release must not stop the others
                self.failures.append(AclError(call, type(err).__name__, str(err)))
                continue
            if ret not in (None, ACL_SUCCESS):
                self.failures.append(AclError(call, ret))
        return self.failures


def _host_pointer(acl, array: np.ndarray) -> tuple[int, object]:
    """A host pointer to ``array``'s bytes and the object that must stay alive while it is used."""
    if hasattr(acl.util, "bytes_to_ptr"):  # newer pyACL
        data = array.tobytes()
        return acl.util.bytes_to_ptr(data), data
    return acl.util.numpy_to_ptr(array), array


def _device_buffer(acl, releases: Releases, dataset, size: int, what: str) -> int:
    """Allocate ``size`` bytes on the device and add them to ``dataset``; return the device pointer."""
    ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, t("acl.call_for", call="acl.rt.malloc", what=what))
    releases.push("acl.rt.free", lambda: acl.rt.free(ptr))
    buffer = acl.create_data_buffer(ptr, size)
    if not buffer:
        raise AclError("acl.create_data_buffer", buffer, what)
    releases.push("acl.destroy_data_buffer", lambda: acl.destroy_data_buffer(buffer))
    _, ret = acl.mdl.add_dataset_buffer(dataset, buffer)
    check(ret, t("acl.call_for", call="acl.mdl.add_dataset_buffer", what=what))
    return ptr


def _dataset(acl, releases: Releases, what: str):
    dataset = acl.mdl.create_dataset()
    if not dataset:
        raise AclError("acl.mdl.create_dataset", dataset, what)
    releases.push("acl.mdl.destroy_dataset", lambda: acl.mdl.destroy_dataset(dataset))
    return dataset


def run_om(om_path: str | Path, inputs: Sequence[np.ndarray], *, device_id: int = 0, acl=None) -> list[np.ndarray]:
    """Run ``om_path`` once on NPU ``device_id`` (logical id) with ``inputs``; return the outputs as arrays.

    Raises ``AclError`` for a failing call and ``ValueError`` (Chinese) for inputs that do not fit the model;
    in every case the resources acquired so far are released. A failed release after a successful run raises
    ``AclError`` too; after a failed run it is attached to the raised error as ``release_failures``.
    """
    if acl is None:
        try:
            acl = importlib.import_module("acl")
        except ModuleNotFoundError as err:
            raise ModuleNotFoundError(t("acl.no_pyacl")) from err
    releases = Releases()
    try:
        check(acl.init(), "acl.init")
        releases.push("acl.finalize", acl.finalize)
        check(acl.rt.set_device(device_id), "acl.rt.set_device")
        releases.push("acl.rt.reset_device", lambda: acl.rt.reset_device(device_id))
        context, ret = acl.rt.create_context(device_id)
        check(ret, "acl.rt.create_context")
        releases.push("acl.rt.destroy_context", lambda: acl.rt.destroy_context(context))
        stream, ret = acl.rt.create_stream()
        check(ret, "acl.rt.create_stream")
        releases.push("acl.rt.destroy_stream", lambda: acl.rt.destroy_stream(stream))
        model_id, ret = acl.mdl.load_from_file(str(om_path))
        check(ret, "acl.mdl.load_from_file")
        releases.push("acl.mdl.unload", lambda: acl.mdl.unload(model_id))
        desc = acl.mdl.create_desc()
        if not desc:
            raise AclError("acl.mdl.create_desc", desc)
        releases.push("acl.mdl.destroy_desc", lambda: acl.mdl.destroy_desc(desc))
        check(acl.mdl.get_desc(desc, model_id), "acl.mdl.get_desc")

        n_inputs = acl.mdl.get_num_inputs(desc)
        if len(inputs) != n_inputs:
            raise ValueError(t("acl.input_count", inputs=n_inputs, arrays=len(inputs)))
        input_set = _dataset(acl, releases, t("acl.inputs"))
        for i, array in enumerate(inputs):
            array = np.ascontiguousarray(array)
            size = acl.mdl.get_input_size_by_index(desc, i)
            if array.nbytes != size:
                raise ValueError(t("acl.input_size", index=i, nbytes=array.nbytes, dtype=array.dtype, shape=array.shape,
                                   size=size))
            device_ptr = _device_buffer(acl, releases, input_set, size, t("acl.input", index=i))
            host_ptr, keep = _host_pointer(acl, array)
            check(acl.rt.memcpy(device_ptr, size, host_ptr, size, ACL_MEMCPY_HOST_TO_DEVICE), t("acl.call_for", call="acl.rt.memcpy", what=t("acl.host_to_device")))
            del keep

        output_set = _dataset(acl, releases, t("acl.outputs"))
        outputs = []
        for i in range(acl.mdl.get_num_outputs(desc)):
            size = acl.mdl.get_output_size_by_index(desc, i)
            outputs.append((_device_buffer(acl, releases, output_set, size, t("acl.output", index=i)), size))

        check(acl.mdl.execute(model_id, input_set, output_set), "acl.mdl.execute")

        results = []
        for i, (device_ptr, size) in enumerate(outputs):
            host_ptr, ret = acl.rt.malloc_host(size)
            check(ret, "acl.rt.malloc_host")
            releases.push("acl.rt.free_host", lambda p=host_ptr: acl.rt.free_host(p))
            check(acl.rt.memcpy(host_ptr, size, device_ptr, size, ACL_MEMCPY_DEVICE_TO_HOST), t("acl.call_for", call="acl.rt.memcpy", what=t("acl.device_to_host")))
            dims, ret = acl.mdl.get_output_dims(desc, i)
            check(ret, "acl.mdl.get_output_dims")
            dtype = ACL_DTYPES.get(acl.mdl.get_output_data_type(desc, i))
            if dtype is None:
                raise AclError("acl.mdl.get_output_data_type", acl.mdl.get_output_data_type(desc, i), t("acl.unknown_dtype"))
            data = np.frombuffer(acl.util.ptr_to_bytes(host_ptr, size), dtype=dtype).copy()
            results.append(data.reshape(tuple(dims["dims"])))
        return results
    finally:
        failures = releases.release_all()
        pending = sys.exc_info()[1]
        if pending is not None:
            pending.release_failures = failures  # the original error stays the one raised
        elif failures:
            raise failures[0]
