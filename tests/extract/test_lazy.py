"""worlddb.extract._lazy: a pattern that stands for re.compile's, compiled on its first use."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from worlddb.extract._lazy import compile_lazily, lazy


@pytest.mark.parametrize("flags", [0, re.I, re.I | re.M, re.A, re.I | re.A, re.X])
def test_text_and_flags_are_the_compiled_patterns_before_it_is_compiled(flags):
    pattern = compile_lazily(r"(?P<v>\w+) moved", flags)
    compiled = re.compile(r"(?P<v>\w+) moved", flags)
    assert (pattern.pattern, pattern.flags) == (compiled.pattern, compiled.flags)
    assert pattern._compiled is None


def test_the_first_use_compiles_it_and_it_then_answers_as_the_compiled_one():
    pattern = lazy(r"\bmoved to (?P<city>[A-Z]\w+)")
    assert pattern._compiled is None
    found = pattern.search("We MOVED TO Denver last week")
    assert found is not None and found["city"] == "Denver"
    assert pattern._compiled is not None and pattern.groupindex == {"city": 1}
    assert [m.group(0) for m in pattern.finditer("moved to Oslo, moved to Rome")] == ["moved to Oslo", "moved to Rome"]
    assert pattern.sub("-", "moved to Oslo") == "-"


def test_a_bad_pattern_fails_on_first_use_as_re_compile_would():
    pattern = compile_lazily(r"(unclosed")
    with pytest.raises(re.error):
        pattern.search("text")


def test_importing_the_readers_compiles_none_of_their_module_patterns():
    # a fresh interpreter: another test in this process may have used some of them
    code = ("from worlddb.extract import open_slots, unread_change\n"
            "from worlddb.extract._lazy import LazyPattern\n"
            "values = [v for m in (open_slots, unread_change) for v in vars(m).values()]\n"
            "values += [i for v in values if isinstance(v, tuple) for i in v]\n"
            "made = [v for v in values if isinstance(v, LazyPattern)]\n"
            "print(len(made), sum(p._compiled is not None for p in made))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    made, compiled = map(int, done.stdout.split())
    assert made >= 50 and compiled == 0
