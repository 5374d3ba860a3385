"""The documented rehearsal: a synthetic CANN and stand-in devices, and the exports that point the hub at them."""

import stat
import subprocess
import sys
from pathlib import Path

from npulab.testing.rehearsal import main


def test_the_rehearsal_prints_exports_that_point_at_a_working_cann_and_root_only_devices(tmp_path, capsys):
    assert main([str(tmp_path / "r"), "--npus", "2,3"]) == 0
    exports = dict(line[len("export "):].split("=", 1) for line in capsys.readouterr().out.splitlines()
                   if line.startswith("export "))
    assert exports["WORKSHOP_NPUS"] == "2,3" and exports["WORKSHOP_DEVICE_ACCESS"] == "seat"
    dev = Path(exports["WORKSHOP_DEV_DIR"])
    assert sorted(p.name for p in dev.iterdir()) == ["davinci2", "davinci3", "davinci_manager", "devmm_svm", "hisi_hdc"]
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o660 for p in dev.iterdir())
    loaded = subprocess.run(["bash", "-c", f"source {exports['WORKSHOP_CANN_SET_ENV']} && "
                             f"{sys.executable} -c 'import npulab_synthetic_cann as m; print(m.VERSION)'"],
                            capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "9.1.0"


def test_bad_npus_are_a_usage_error(tmp_path, capsys):
    assert main([str(tmp_path), "--npus", "a,b"]) == 2 and "参数错误" in capsys.readouterr().err
