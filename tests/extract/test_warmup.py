"""worlddb.extract.warmup: what the readers build on first use is built by Engine.warm,
before the first write after a server starts, except the slot rules' patterns, which compile
as texts need them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

from worlddb.extract import literals, warmup

#: every table the module says it builds, by its cache
TABLES = ("_slot_prefilter._needs", "_slot_cues._cue_needs", "_slot_reader._animate", "lexicon._entries",
          "given_names._table", "temporal._needs", "builtin._fact_needs")


def _built_after(step: str, tmp_path) -> dict[str, int]:
    """In a fresh interpreter: each table's cache size before and after `step`, and how many slot
    rules' patterns were compiled before and after it (they compile on first use)."""
    script = textwrap.dedent(f"""
        import json
        from worlddb.extract import _slot_cues, _slot_prefilter, _slot_reader, builtin, given_names, lexicon, temporal
        from worlddb.extract import _slot_rules
        from worlddb.memory.engine import Engine
        from worlddb.memory.scopes import ScopeSet
        from worlddb.vectors.embedder import HashEmbedder

        def sizes():
            return {{name: eval(name).cache_info().currsize for name in {TABLES!r}}}

        def compiled():
            return sum(rule.pattern._compiled is not None for rule in _slot_rules._RULES)

        ALICE = ScopeSet((("user", "alice"),))
        before, compiled_before = sizes(), compiled()
        engine = Engine.open({str(tmp_path / "w.db")!r}, embedder=HashEmbedder(), query_model=True)
        {step}
        print(json.dumps({{"before": before, "after": sizes(), "rules": len(_slot_rules._RULES),
                          "compiled": [compiled_before, compiled()]}}))
        engine.close()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_engine_warm_builds_the_readers_tables(tmp_path):
    found = _built_after("engine.warm()", tmp_path)
    assert set(found["before"].values()) == {0}  # nothing is built at import or open
    assert set(found["after"].values()) == {1}
    # the slot rules' patterns are left to compile as texts need them
    assert found["compiled"] == [0, 0]


def test_after_warm_a_write_compiles_only_the_rules_its_text_may_match(tmp_path):
    found = _built_after("engine.warm(); engine.write_memory('I moved to Denver last week', ALICE)", tmp_path)
    assert set(found["after"].values()) == {1}
    assert 0 < found["compiled"][1] < found["rules"] / 4


def test_without_warm_the_first_write_builds_them(tmp_path):
    found = _built_after("engine.write_memory('I moved to Denver last week', ALICE)", tmp_path)
    assert set(found["before"].values()) == {0}
    # the slot rules' patterns are compiled as a text is matched against them: some, not all
    assert found["compiled"][0] == 0 and 0 < found["compiled"][1] < found["rules"]
    # the slot reader's literal index, the largest, is built inside the write itself
    assert found["after"]["_slot_prefilter._needs"] == 1


def test_warm_is_idempotent():
    from worlddb.extract import _slot_prefilter, warmup

    warmup.warm()
    built = _slot_prefilter._needs()
    warmup.warm()
    assert _slot_prefilter._needs() is built


def test_a_command_that_only_reads_what_is_stored_compiles_no_slot_rule(tmp_path):
    # (`worlddb auth list`, `identity`, `export`: the engine is imported and a store opened)
    found = _built_after("engine.all_scopes()", tmp_path)
    assert found["compiled"] == [0, 0]


def test_the_shipped_literal_table_holds_every_readers_pattern_as_derived():
    # a pattern changed without `python -m worlddb.extract.warmup` is derived at run time: correct,
    # but the half second of parsing the table saves is back in every process
    shipped = literals._table()
    stale = [rx.pattern[:60] for rx in warmup.patterns() if shipped.get(literals.key(rx)) != literals.derive(rx)]
    assert not stale, f"run `python -m worlddb.extract.warmup`: {len(stale)} patterns not in the table: {stale[:3]}"


def test_a_pattern_the_table_does_not_hold_is_derived():
    rx = re.compile(r"\b(?:moved|relocated)\s+to\s+(?P<v>\w+)", re.I)
    assert literals.key(rx) not in literals._table()
    assert literals.required(rx) == literals.derive(rx) == (frozenset({"moved", "relocated"}), frozenset({"to"}))
    assert literals.required(re.compile(rx.pattern)) == literals.derive(re.compile(rx.pattern))  # other flags


def test_a_table_of_another_algorithm_or_unreadable_is_not_used(tmp_path, monkeypatch):
    rule = warmup.patterns()[0]
    for text in ('{"algorithm": 0, "sets": {}}', "not json"):
        table = tmp_path / "table.json"
        table.write_text(text.replace("{}", json.dumps({literals.key(rule): [["zzz"]]})), encoding="utf-8")
        monkeypatch.setattr(literals, "TABLE_PATH", table)
        monkeypatch.setattr(literals, "_TABLE", None)
        assert literals._table() == {} and literals.required(rule) == literals.derive(rule)
