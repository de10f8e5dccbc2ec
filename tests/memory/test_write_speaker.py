"""A memory written as one message keeps its speaker in its index text, as an ingested turn does."""

from __future__ import annotations

from tests.support import ALICE, BOB
from worlddb.memory.ingest import SessionIn, TurnIn


def fts_text(engine, anchor: str) -> str:
    return engine.store.conn.execute("SELECT text FROM fts WHERE rowid=?", (engine.store.rowid(anchor),)).fetchone()[0]


def test_metadata_speaker_is_indexed_as_an_ingested_turn_speaker_is(engine):
    text = "I painted a sunrise over the lake last week."
    turn = engine.ingest_conversation([SessionIn(date="2023-05-08T13:56:00Z", turns=(TurnIn("Melanie", text),))], BOB)
    memory = engine.write_memory(text, ALICE, metadata={"speaker": "Melanie"}, valid_from="2023-05-08T13:56:00Z")
    assert fts_text(engine, memory.id) == fts_text(engine, turn.turns["1:1"])
    assert fts_text(engine, memory.id) == "[1:56 pm on 8 May, 2023] Melanie: " + text
    hit = engine.recall("what did Melanie paint?", ALICE, limit=1).results[0]
    assert hit.id == memory.id and hit.lanes.get("bm25") == 1


def test_role_names_the_speaker_when_metadata_has_no_speaker(engine):
    by_role = engine.write_memory("Remind me to water the ferns.", ALICE, metadata={"role": "user"},
                                  valid_from="2024-01-02")
    both = engine.write_memory("The ferns were watered.", ALICE, metadata={"role": "assistant", "speaker": "Ava"},
                               valid_from="2024-01-02")
    assert fts_text(engine, by_role.id) == "[12:00 am on 2 January, 2024] user: Remind me to water the ferns."
    assert fts_text(engine, both.id) == "[12:00 am on 2 January, 2024] Ava: The ferns were watered."


def test_a_speaker_that_is_not_text_is_not_indexed(engine):
    for meta in ({"speaker": {"name": "Ava"}}, {"speaker": "  "}, {"role": 3}, {"source": "import"}):
        written = engine.write_memory("Tea, not coffee, after noon.", ALICE, metadata=meta, valid_from="2024-01-02")
        assert fts_text(engine, written.id) == "[12:00 am on 2 January, 2024] Tea, not coffee, after noon."
