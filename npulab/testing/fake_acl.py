"""A stand-in for pyACL (the ``acl`` module) that records every call: for tests and for teaching on a CPU.

It implements just the calls ``npulab.ascend_tools.acl_pipeline.run_om`` makes. Memory is a dict of bytearrays, the "model"
doubles its float32 input, and ``fail={"acl.mdl.execute": 507011}`` makes a call return that code, so a
lesson can show what happens to the resources when a step in the middle fails. It is not AscendCL: it knows
nothing about real return codes, devices or models.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np


class FakeAcl:
    """Records calls in ``log``; ``live`` holds every acquired handle until it is released."""

    def __init__(self, fail: dict[str, int] | None = None, shape: tuple[int, ...] = (1, 4), bytes_api: bool = True):
        self.log: list[str] = []
        self.fail = dict(fail or {})
        self.memory: dict[int, bytearray] = {}
        self.live: dict[str, set[int]] = {}
        self.buffers: dict[int, int] = {}  # data buffer → device pointer
        self.datasets: dict[int, list[int]] = {}  # dataset → data buffers
        self._next = 1000
        nbytes = int(np.prod(shape)) * 4
        self.rt = SimpleNamespace(
            set_device=lambda d: self._ret("acl.rt.set_device"),
            reset_device=lambda d: self._ret("acl.rt.reset_device"),
            create_context=lambda d: self._new("acl.rt.create_context", "context"),
            destroy_context=lambda c: self._free("acl.rt.destroy_context", "context", c),
            create_stream=lambda: self._new("acl.rt.create_stream", "stream"),
            destroy_stream=lambda s: self._free("acl.rt.destroy_stream", "stream", s),
            malloc=lambda size, policy: self._alloc("acl.rt.malloc", "device", size),
            free=lambda p: self._free("acl.rt.free", "device", p),
            malloc_host=lambda size: self._alloc("acl.rt.malloc_host", "host", size),
            free_host=lambda p: self._free("acl.rt.free_host", "host", p),
            memcpy=self._memcpy,
        )
        self.mdl = SimpleNamespace(
            load_from_file=lambda path: self._new("acl.mdl.load_from_file", "model"),
            unload=lambda m: self._free("acl.mdl.unload", "model", m),
            create_desc=lambda: self._new("acl.mdl.create_desc", "desc")[0],
            destroy_desc=lambda d: self._free("acl.mdl.destroy_desc", "desc", d),
            get_desc=lambda d, m: self._ret("acl.mdl.get_desc"),
            get_num_inputs=lambda d: 1,
            get_num_outputs=lambda d: 1,
            get_input_size_by_index=lambda d, i: nbytes,
            get_output_size_by_index=lambda d, i: nbytes,
            get_output_dims=lambda d, i: ({"name": "output", "dimCount": len(shape), "dims": list(shape)}, 0),
            get_output_data_type=lambda d, i: 0,  # ACL_FLOAT
            create_dataset=lambda: self._new("acl.mdl.create_dataset", "dataset")[0],
            destroy_dataset=lambda s: self._free("acl.mdl.destroy_dataset", "dataset", s),
            add_dataset_buffer=self._add_buffer,
            execute=self._execute,
        )
        self.util = SimpleNamespace(ptr_to_bytes=lambda p, size: bytes(self.memory[p][:size]))
        if bytes_api:
            self.util.bytes_to_ptr = lambda b: self._host_copy("acl.util.bytes_to_ptr", bytes(b))
        else:  # older pyACL
            self.util.numpy_to_ptr = lambda a: self._host_copy("acl.util.numpy_to_ptr", a.tobytes())

    def leaks(self) -> dict[str, set[int]]:
        """Handles acquired and never released (empty when everything was cleaned up)."""
        return {kind: handles for kind, handles in self.live.items() if handles}

    # top-level acl functions
    def init(self) -> int:
        ret = self._ret("acl.init")
        if ret == 0:
            self.live.setdefault("acl", set()).add(1)
        return ret

    def finalize(self) -> int:
        return self._free("acl.finalize", "acl", 1)

    def create_data_buffer(self, ptr: int, size: int) -> int:
        buffer, _ = self._new("acl.create_data_buffer", "buffer")
        self.buffers[buffer] = ptr
        return buffer

    def destroy_data_buffer(self, buffer: int) -> int:
        return self._free("acl.destroy_data_buffer", "buffer", buffer)

    # plumbing
    def _ret(self, call: str) -> int:
        self.log.append(call)
        return self.fail.get(call, 0)

    def _new(self, call: str, kind: str) -> tuple[int, int]:
        ret = self._ret(call)
        self._next += 1
        if ret == 0:
            self.live.setdefault(kind, set()).add(self._next)
        return self._next, ret

    def _free(self, call: str, kind: str, handle: int) -> int:
        self.live[kind].remove(handle)  # KeyError: released twice, or never acquired
        return self._ret(call)

    def _alloc(self, call: str, kind: str, size: int) -> tuple[int, int]:
        ptr, ret = self._new(call, kind)
        self.memory[ptr] = bytearray(size)
        return ptr, ret

    def _host_copy(self, call: str, data: bytes) -> int:
        self.log.append(call)
        self._next += 1
        self.memory[self._next] = bytearray(data)
        return self._next

    def _memcpy(self, dst: int, dst_size: int, src: int, count: int, kind: int) -> int:
        self.memory[dst][:count] = self.memory[src][:count]
        return self._ret(f"acl.rt.memcpy:{kind}")

    def _add_buffer(self, dataset: int, buffer: int) -> tuple[int, int]:
        self.datasets.setdefault(dataset, []).append(buffer)
        return dataset, self._ret("acl.mdl.add_dataset_buffer")

    def _execute(self, model: int, inputs: int, outputs: int) -> int:
        ret = self._ret("acl.mdl.execute")
        if ret == 0:
            (src,), (dst,) = self.datasets[inputs], self.datasets[outputs]
            x = np.frombuffer(bytes(self.memory[self.buffers[src]]), dtype=np.float32)
            self.memory[self.buffers[dst]][:] = (2 * x).tobytes()
        return ret
