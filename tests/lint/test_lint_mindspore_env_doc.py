"""lint-npu round 11: the value grammars of MindSpore's environment-variable reference are read from every row of the
page (scripts/extract_mindspore_env_values.py), not chosen variable by variable — a row gives a grammar only where its
"Value Range" cell closes the set. Tested on table rows written for the test, then on the generated data file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from npulab.env import env_vars, value_grammar

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "extract_mindspore_env_values.py"
_spec = importlib.util.spec_from_file_location("extract_mindspore_env_values", SCRIPT)
extract = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(extract)

PAGE = """
.. list-table::
   :header-rows: 1

   * - Environment Variable
     - Function
     - Type
     - Value Range
     - Description
   * - MS_TEST_LEVEL
     - A level.
     - Integer
     - 0: off.

       1: some.

       2 or unset: all.

       Default: 1
     -
   * - MS_TEST_OPEN
     - A switch.
     - Integer
     - 1: on.

       No setting or other value: off.
     -
   * - MS_TEST_COUNT
     - A count.
     - Integer
     - The count ranges from 2 to 16.
     -
   * - MS_TEST_PATH
     - A path.
     - String
     - File path, which can be a relative path or an absolute path.
     -
   * - MS_TEST_MODE
     - A mode.
     - String
     - FAST: the fast one.

       `SAFE`: the safe one.
     -
   * - MS_TEST_DEVICE
     - A device.
     - Integer
     - value range: [0, number of actual Devices-1].
     -
"""


def _grammars() -> dict:
    return {name: extract.grammar(kind, cell) for name, kind, cell, _notes in extract.rows(PAGE)}


def test_each_row_is_read_with_its_type_and_value_cell():
    assert [name for name, _kind, _cell, _notes in extract.rows(PAGE)] == [
        "MS_TEST_LEVEL", "MS_TEST_OPEN", "MS_TEST_COUNT", "MS_TEST_PATH", "MS_TEST_MODE", "MS_TEST_DEVICE"]


def test_a_cell_of_values_and_colons_is_a_closed_set():
    grammars = _grammars()
    assert grammars["MS_TEST_LEVEL"] == {"enum": ["0", "1", "2"]}  # "Default: 1" is not a value of its own
    assert grammars["MS_TEST_MODE"] == {"enum": ["FAST", "SAFE"]}


def test_an_integer_range_in_words_is_read():
    assert _grammars()["MS_TEST_COUNT"] == {"int": [2, 16]}


def test_a_cell_that_admits_other_values_gives_no_grammar_beyond_its_type():
    grammars = _grammars()
    assert grammars["MS_TEST_OPEN"] == {"integer": True}  # "other value": any other integer (round 14: the Type column)
    assert grammars["MS_TEST_PATH"] is None
    assert grammars["MS_TEST_DEVICE"] == {"integer": True}  # a range the machine decides: an integer still


def test_the_generated_grammars_refuse_and_accept_through_the_table():
    values = env_vars.table()["values"]
    generated = extract.yaml.safe_load(env_vars.MINDSPORE_VALUES.read_text(encoding="utf-8"))["values"]
    name = next(n for n, spec in generated.items() if "enum" in spec and n not in env_vars.load_yaml(
        env_vars.TABLE)["values"])
    spec = values[name]
    assert "mindspore-ai/docs" in spec["source"]
    assert value_grammar.problem(spec["enum"][0], spec) is None
    assert value_grammar.problem("definitely-not-listed", spec) is not None


def test_hand_written_entries_win_over_generated_ones():
    hand = env_vars.load_yaml(env_vars.TABLE)["values"]
    merged = env_vars.table()["values"]
    # (a page's pair relation, with its default and page, is kept beside a hand grammar: round 12)
    carried = ("requires", "default", "requires_source")
    # (except where a C++ reader raises on every value outside its own set: the parser's contract wins, round 16)
    enforced = {n for n, s in env_vars.load_yaml(env_vars.PARSERS_VALUES)["values"].items() if s.get("enforced")}
    assert all({k: v for k, v in merged[name].items() if k not in carried or k in spec} == spec
               for name, spec in hand.items() if name not in enforced)
    assert enforced and all(name not in hand or "TORCH_CHECK" in merged[name]["source"] for name in enforced)


# Round 13: forms of the same page the earlier rows did not use (rows written for the test).
PAGE_13 = """
   * - MS_TEST_SWITCH
     - A switch.
     - Integer
     - 1 for on, 0 for off. The default is 0.
     -
   * - MS_TEST_FORMAT
     - A format.
     - Integer
     - 0: short.

       2 or not set: everything.
     -
   * - MS_TEST_RECORD_MODE
     - A recorder mode.
     - Integer
     - 1: on failure.

       2: always.

       Default: 1.
     - This variable is used together with `MS_TEST_RECORD=1`.
   * - MS_TEST_CONF
     - Items.
     - String
     - Configuration items, with the format "key: value", multiple configuration items separated by commas.

       streams: The method, with possible values being 1) true: one. 2) false: none. 3) group (default value): by group.

       cache: Whether to enable the cache, with a default value of true.

       size: The size in MB, with a default value of 2.
     -
"""


def test_round_13_forms_give_sets_defaults_and_a_pair_relation():
    rows = {name: (kind, cell, notes) for name, kind, cell, notes in extract.rows(PAGE_13)}
    grammars = {name: extract.grammar(kind, cell) for name, (kind, cell, _notes) in rows.items()}
    assert grammars["MS_TEST_SWITCH"] == {"enum": ["1", "0"]}
    assert grammars["MS_TEST_FORMAT"] == {"enum": ["0", "2"]}  # "not set" is the unset case, not another value
    assert extract.extras(rows["MS_TEST_SWITCH"][1], "") == {"default": "0"}
    assert extract.extras(*rows["MS_TEST_RECORD_MODE"][1:]) == {
        "default": "1", "requires": {"name": "MS_TEST_RECORD", "enum": ["1"]}}


def test_key_value_items_close_the_keys_the_page_describes_and_leave_others_open():
    kind, cell, _notes = next((k, c, n) for name, k, c, n in extract.rows(PAGE_13) if name == "MS_TEST_CONF")
    spec = extract.grammar(kind, cell)
    assert spec["kv"]["streams"]["enum"] == ["true", "false", "group"]
    assert value_grammar.problem("streams:auto", spec) is not None
    assert value_grammar.problem("cache:yes", spec) is not None
    assert value_grammar.problem("streams:group,cache:True,size:4,unlisted_key:x", spec) is None
