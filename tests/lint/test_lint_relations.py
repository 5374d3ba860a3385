"""lint-npu round 4 (issue 36): the mechanisms for relations between arguments or flags and for documented limits,
each on small snippets of its own (the held-out sets measure them on real APIs)."""

from __future__ import annotations

from npulab.lint import command_flags, value_grammar


def test_grammar_multiples_and_written_units():
    tc = {"int": [0, 255], "multiple_of": 4}
    assert value_grammar.problem("132", tc) is None
    assert "4 的整数倍" in value_grammar.problem("130", tc)
    assert "[0, 255]" in value_grammar.problem("256", tc)
    limit = {"int": [200, 4294967296], "suffix": "MB"}
    assert value_grammar.problem("1024MB", limit) is None
    assert "[200, 4294967296]" in value_grammar.problem("100MB", limit)
    assert "MB" in value_grammar.problem("1024", limit) and value_grammar.problem("1GBMB", limit)


def test_flag_relations_know_every_spelling(en):
    tables = command_flags.Tables()
    tables.other = {"values": {"tool": {"relations": [
        {"flags": [["--node-rank", "--node_rank"], ["--nnodes"]], "relation": "<", "source": "s"}]}}}
    assert command_flags.relation_problems("tool", ["--nnodes=2", "--node-rank=1"], tables) == []
    (problem,) = command_flags.relation_problems("tool", ["--nnodes", "2", "--node_rank=2"], tables)
    assert "`--node_rank` must be < `--nnodes`" in problem
    assert command_flags.relation_problems("tool", ["--nnodes=1:4", "--node-rank=5"], tables) == []  # elastic range
