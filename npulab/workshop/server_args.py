"""The single-user server's command-line options, the same on one server and on Kubernetes: idle culling done by the
server itself, and kernels that talk over Unix sockets in the participant's own runtime folder."""

from __future__ import annotations

DEFAULT_IDLE_MINUTES = 60


def server_args(idle_seconds: int) -> list[str]:
    """``Spawner.args`` for a workshop server idle-culled after ``idle_seconds`` (kernels after half of it)."""
    idle_seconds = int(idle_seconds)
    return [
        f"--ServerApp.shutdown_no_activity_timeout={idle_seconds}",  # idle culling, done by the server itself
        f"--MappingKernelManager.cull_idle_timeout={idle_seconds // 2}",
        "--MappingKernelManager.cull_interval=120",
        # kernels talk over Unix sockets in the account's own runtime folder (~/.local/share/jupyter/runtime, inside a
        # 0700 home), not TCP ports on 127.0.0.1 that every account on the server can connect to: over TCP anyone may
        # subscribe to another kernel's IOPub channel, which needs no key and carries that participant's code and
        # outputs. In a pod of its own the same setting keeps the kernels off the pod's network.
        "--KernelManager.transport=ipc",
    ]
