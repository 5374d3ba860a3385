"""The HCCL settings table and the CANN stack tables in English (issue 37): hccl_settings.yaml and cann_stack.yaml keep
an English twin (``<field>_en``) beside every printed Chinese field; with NPULAB_LANG=zh the table is the Chinese it was."""


from english_checks import CJK

from npulab.core.i18n import localized
from npulab.env import cann_stack
from npulab.pytorch import distributed


def test_hccl_table_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    table = distributed.hccl_table()
    assert CJK.search(table) is None, CJK.search(table)
    assert table.startswith("| Variable | Default | Values | Effect | When to change it | Source |")
    assert "| `HCCL_CONNECT_TIMEOUT` | 120 s | [120, 7200] |" in table and "| `HCCL_BUFFSIZE` | 200 MB |" in table
    assert "| `RANK_TABLE_FILE` | not set |" in table and "[CANN 9.0.0 environment variable reference: HCCL_IF_IP" in table


def test_cann_stack_tables_have_english_twins(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    fields = {"tools": ("purpose", "cann", "cuda"), "env_vars": ("purpose", "cuda"), "op_path": ("step", "observe"),
              "version_examples": ("note",)}
    rows = {"tools": cann_stack.tools(), "env_vars": cann_stack.env_vars(), "op_path": cann_stack.op_path(),
            "version_examples": cann_stack.version_examples()}
    for table, names in fields.items():
        for row in rows[table]:
            for name in names:
                assert CJK.search(localized(row, name)) is None, (table, name, row[name])
    assert localized(cann_stack.env_vars()[0], "purpose") == "the NPUs visible to the process (renumbered 0, 1, …)"


def test_hccl_table_chinese_is_unchanged(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    table = distributed.hccl_table()
    assert table.startswith("| 变量 | 默认 | 取值 | 作用 | 什么时候动它 | 来源 |")
    assert "| `RANK_TABLE_FILE` | 未设置 |" in table
    assert "[CANN 环境变量参考：HCCL_CONNECT_TIMEOUT（83RC1）](" in table
    assert localized(cann_stack.env_vars()[0], "purpose") == "进程可见的 NPU（并重新编号为 0、1、…）"
