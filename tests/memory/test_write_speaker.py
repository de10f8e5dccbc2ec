"""A memory written as one message keeps its speaker, as an ingested turn does: in its index
text, and as the person its refers_to edge calls the speaker (so the speaker lane finds it)."""

from __future__ import annotations

import json

import pytest

from tests.support import ALICE, BOB
from worlddb.core.errors import InvalidInput
from worlddb.core.timeutil import now_us
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.retrieval.lanes import run_lanes

pytestmark = pytest.mark.both_backends


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


def test_a_blank_speaker_or_one_that_is_not_text_is_refused(engine):
    written = engine.write_memory("Tea, not coffee, after noon.", ALICE, metadata={"source": "import"},
                                  valid_from="2024-01-02")
    assert fts_text(engine, written.id) == "[12:00 am on 2 January, 2024] Tea, not coffee, after noon."
    before = engine.list_memories(ALICE).memories
    for meta, message in (({"speaker": {"name": "Ava"}}, "must be a string"), ({"role": 3}, "must be a string"),
                          ({"speaker": "  "}, "metadata.speaker is blank"), ({"role": ""}, "metadata.role is blank"),
                          ({"speaker": "\u200b"}, "metadata.speaker is blank")):
        with pytest.raises(InvalidInput, match=message):
            engine.write_memory("Milk, not cream.", ALICE, metadata=meta)
    assert engine.list_memories(ALICE).memories == before


def _speaker_lane(engine, query, scopes=ALICE) -> list[str]:
    worlds = [engine.store.scope_anchor(kind, sid) for kind, sid in scopes]
    rows = run_lanes(engine.services.sources, query, worlds, 100, open_only_at=now_us())["speaker"]
    anchors = engine.store.anchors_for_rowids(rows)
    return [anchors[r] for r in rows]


def _roles(engine, anchor: str) -> dict[str, str]:
    """Entity name -> the role of the memory's refers_to edge to it."""
    detail = engine.read_memory(anchor, ALICE)
    names = {e.id: e.name for e in detail.entities}
    rows = engine.store.conn.execute(
        "SELECT d.anchor, e.props FROM edges e JOIN nodes d ON d.rowid = e.dst "
        "WHERE e.src = ? AND e.type = 'refers_to'", (engine.store.rowid(anchor),))
    return {names[dst]: json.loads(props)["role"] for dst, props in rows}


def test_a_plain_write_links_its_speaker_as_an_ingested_turn_does(engine):
    said = {text: engine.write_memory(text, ALICE, metadata={"speaker": speaker}, valid_from="2023-05-08").id
            for speaker, text in (("Ann", "I signed up for a pottery class yesterday"),
                                  ("Ben", "I saw the pottery bowls Ann made at the fair"),
                                  ("Ann", "The kids and I went swimming at the lake"))}
    # Ben's memory names Ann: a mention, not her words
    roles = _roles(engine, said["I saw the pottery bowls Ann made at the fair"])
    assert roles["Ben"] == "speaker" and roles["Ann"] == "mention"
    lane = _speaker_lane(engine, "What pottery has Ann made?")
    assert lane[0] == said["I signed up for a pottery class yesterday"]
    assert set(lane) == {said["I signed up for a pottery class yesterday"],
                         said["The kids and I went swimming at the lake"]}
    written = engine.write_memory("Ann here: I glazed two bowls today.", ALICE, metadata={"speaker": "Ann"})
    assert _roles(engine, written.id) == {"Ann": "speaker"}  # named again in the text: one edge, as the speaker
    ann = [e for e in written.entities if e.name == "Ann"]
    assert len(ann) == 1 and ann[0].resolution == "exact"


def test_a_generic_role_names_no_speaker(engine):
    for role in ("user", "assistant", "System", "tool"):
        written = engine.write_memory("Remind me to water the ferns.", ALICE, metadata={"role": role})
        assert role not in _roles(engine, written.id)
    assert engine.find_entities("user", ALICE) == []
