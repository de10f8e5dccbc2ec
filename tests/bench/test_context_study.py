"""bench.context_study finds a turn by its neighbours' words, and its leave-one-conversation-out
choice never looks at the conversation it is scored on."""

from __future__ import annotations

import sqlite3

from bench import context_study
from bench.locomo import score

TURNS = {"D1:1": "Caroline: I went to the pride parade downtown",
         "D1:2": "Melanie: Wow! Did you see that band?",
         "D1:3": "Caroline: Yes, and the drummer waved at me"}


def tables():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    rowid = {turn: 10 + i for i, turn in enumerate(TURNS)}
    conn.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)", [(rowid[t], text) for t, text in TURNS.items()])
    turn_map = {"conversations": {"c": {"sessions": [list(TURNS)], "rowid": rowid}}}
    built, cost = context_study.context_tables(conn, turn_map)
    assert set(cost) == {f"{n} / {f}" for n in context_study.NEIGHBOURS for f in context_study.FORMS}
    return built, rowid


def test_a_turn_is_found_by_its_neighbours_words():
    built, rowid = tables()
    # the previous turn names the parade: the turn after it is found by that word alone
    assert context_study.context_lane(built[("prev / alone", "c")], "Which parade did Caroline attend?") == \
        [rowid["D1:2"]]
    # the next turn's words find the turn before it
    assert context_study.context_lane(built[("next / alone", "c")], "Who waved, the drummer?") == [rowid["D1:2"]]
    # with the turn's own text, the turn that says it is found too, ahead of its neighbour
    assert context_study.context_lane(built[("prev / with turn", "c")], "parade") == [rowid["D1:1"], rowid["D1:2"]]
    assert context_study.context_lane(built[("prev+next / with turn, neighbours x0.5", "c")], "band")[0] == \
        rowid["D1:2"]
    assert context_study.context_lane(built[("prev / alone", "c")], "?!") == []


def test_each_fold_chooses_on_the_other_conversations_only():
    def rows(conversation, good):
        ranked = ["D1:1"] if good else ["D1:2"]
        return [{"conversation": conversation, "category": 1, "metrics": score(ranked, ["D1:1"])}]
    # "a" wins on x only, "b" on the other three: every fold chooses "b", though "a" is the
    # better one on x itself
    per_setting = {"a": rows("x", 1) + rows("y", 0) + rows("z", 0) + rows("w", 0),
                   "b": rows("x", 0) + rows("y", 1) + rows("z", 1) + rows("w", 1)}
    result = context_study.loo(per_setting, ["x", "y", "z", "w"])
    assert result["choices"] == {"x": "b", "y": "b", "z": "b", "w": "b"}
    # held out, x is scored by "b", which misses it there
    assert result["held_out"]["turn_any@10"] == 75.0
