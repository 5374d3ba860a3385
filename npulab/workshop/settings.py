"""The workshop's settings from the ``WORKSHOP_*`` variables: the hub, the seat commands and preflight read the same."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_NPUS = "0,1,2,3,4,5,6,7"


@dataclass(frozen=True)
class WorkshopSettings:
    """What ``workshop/jupyterhub_config.py`` reads from its environment (defaults as there)."""

    npus: tuple[int, ...]
    per_npu: int
    roster: Path | None
    state_dir: Path
    admin: str
    ip: str
    port: int
    ssl_cert: Path | None
    ssl_key: Path | None

    @property
    def seats_file(self) -> Path:
        return self.state_dir / "seats.json"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkshopSettings:
        """Parse the variables; ValueError (Chinese) for a value the hub could not use either."""
        env = os.environ if environ is None else environ
        raw = env.get("WORKSHOP_NPUS", DEFAULT_NPUS)
        try:
            npus = tuple(int(d) for d in raw.split(",") if d.strip())
        except ValueError:
            raise ValueError(f"WORKSHOP_NPUS 应是逗号分隔的 NPU 编号，例如 0,1,2,3；收到 {raw!r}") from None
        try:
            per_npu = int(env.get("WORKSHOP_PER_NPU", "1"))
            port = int(env.get("WORKSHOP_PORT", "8000"))
        except ValueError as err:
            raise ValueError(f"WORKSHOP_PER_NPU / WORKSHOP_PORT 须为整数（{err}）") from None
        optional = {k: Path(env[k]) if env.get(k) else None for k in ("WORKSHOP_ROSTER", "WORKSHOP_SSL_CERT", "WORKSHOP_SSL_KEY")}
        return cls(npus=npus, per_npu=per_npu, roster=optional["WORKSHOP_ROSTER"],
                   state_dir=Path(env.get("WORKSHOP_STATE_DIR", "workshop-state")), admin=env.get("WORKSHOP_ADMIN", "instructor"),
                   ip=env.get("WORKSHOP_IP", "127.0.0.1"), port=port,
                   ssl_cert=optional["WORKSHOP_SSL_CERT"], ssl_key=optional["WORKSHOP_SSL_KEY"])
