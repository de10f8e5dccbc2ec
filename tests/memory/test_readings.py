"""Kept readings (worlddb.memory.readings): each write keeps its text's slot reading, the update
judge reads a candidate's from there, and only a row of this code's reader, for the voice the
judge reads in, is taken."""

from __future__ import annotations

import pytest

from tests.support import ALICE, BOB, open_engine, take_back
from worlddb.core import schema
from worlddb.extract.slots import ReadingParts, read, read_parts
from worlddb.graph.database import WorldDB
from worlddb.memory import claims_backfill, readings, slot_readings
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends


def kept(engine, anchor: str, voice) -> ReadingParts | None:
    return readings.load(engine.store, {anchor: voice}).get(anchor)


def body(engine, anchor: str) -> str | None:
    rowid = engine.store.rowid(anchor)
    row = engine.store.conn.execute("SELECT body FROM readings WHERE node = ?", (rowid,)).fetchone()
    return row[0] if row else None


def put(engine, anchor: str, text: str, voice, reader: int | None = None) -> None:
    """Replace the kept reading of `anchor` with that of `text` (recorded by `reader`)."""
    encoded = readings.encode(read_parts(text, speaker_is=voice[0], speaker=voice[1]), *voice)
    if reader is not None:
        encoded = encoded.replace(f"[{schema.CLAIMS_READER},", f"[{reader},", 1)
    with engine.db.write("test") as w:
        w.tx.conn.execute("UPDATE readings SET body = ? WHERE node = ?", (encoded, w.tx.rowid(anchor)))


def test_a_write_keeps_its_texts_reading_in_its_voice(engine):
    mine = engine.write_memory("I live in Austin and my phone number is 415-555-0100.", ALICE)
    toms = engine.write_memory("I work at Dell as a tester.", ALICE, metadata={"speaker": "Tom"})
    batch = engine.write_memories([{"text": "My sister Nora lives in Chicago."}, {"text": "Lovely weather."}], BOB)
    text = "I live in Austin and my phone number is 415-555-0100."
    assert kept(engine, mine.id, ("alice", None)) == read_parts(text, speaker_is="alice")
    assert kept(engine, mine.id, ("alice", None)).reading() == read(text, speaker_is="alice")
    # Tom's "I" is Tom
    toms_parts = kept(engine, toms.id, ("alice", "Tom"))
    assert [(c.subject, c.attribute) for c in toms_parts.reading().claims] == [("tom", "employer"), ("tom", "role")]
    # a text without claims keeps an empty reading: nothing to read again either
    assert kept(engine, batch[0].id, ("bob", None)).reading().claims
    assert kept(engine, batch[1].id, ("bob", None)) == read_parts("Lovely weather.", speaker_is="bob")
    # asked in another voice, nothing is given: the judge reads the text
    assert kept(engine, mine.id, ("bob", None)) is None
    assert kept(engine, toms.id, ("alice", None)) is None


def test_the_judge_reads_a_candidates_kept_reading_only_when_this_reader_made_it_for_its_voice(engine):
    scopes = {name: ScopeSet((("user", name),)) for name in ("alice", "bob", "carol")}
    phones = {name: engine.write_memory("My phone number is 415-555-0100.", scopes[name],
                                        valid_from="2025-01-01T00:00:00Z").id for name in scopes}
    # alice's row says what the new number's text says; bob's was made by another reader,
    # carol's for another user: only alice's is taken, so only her new number changes nothing
    same = "My phone number is 415-555-0199."
    put(engine, phones["alice"], same, ("alice", None))
    put(engine, phones["bob"], same, ("bob", None), reader=schema.CLAIMS_READER - 1)
    put(engine, phones["carol"], same, ("dave", None))
    changed = {name: engine.write_memory("My phone number changed to 415-555-0199.", scopes[name],
                                         valid_from="2025-06-01T00:00:00Z") for name in scopes}
    assert phones["alice"] not in changed["alice"].superseded
    assert changed["bob"].superseded == [phones["bob"]]
    assert changed["carol"].superseded == [phones["carol"]]


def test_a_row_that_does_not_parse_is_read_again(engine):
    phone = engine.write_memory("My phone number is 415-555-0100.", ALICE, valid_from="2025-01-01T00:00:00Z").id
    with engine.db.write("test") as w:
        w.tx.conn.execute("UPDATE readings SET body = ? WHERE node = ?", ('[24, "alice"', w.tx.rowid(phone)))
    assert kept(engine, phone, ("alice", None)) is None
    changed = engine.write_memory("My phone number changed to 415-555-0199.", ALICE,
                                  valid_from="2025-06-01T00:00:00Z")
    assert changed.superseded == [phone]


def test_a_session_keeps_each_turns_whole_reading(engine):
    written = engine.write_messages([
        {"role": "user", "content": "I live in Austin with my wife Priya."},
        {"role": "assistant", "content": "Got it - you live in Austin."},
        {"role": "Tom", "content": "I work at Dell."},
        {"role": "tool", "content": "I live in Paris."},
    ], ALICE, session="s1")
    anchors = [turn.id for turn in written.turns]
    speakers = ["user", "assistant", "Tom", "tool"]
    texts = ["I live in Austin with my wife Priya.", "Got it - you live in Austin.", "I work at Dell.",
             "I live in Paris."]
    for anchor, speaker, text in zip(anchors, speakers, texts):
        parts = kept(engine, anchor, ("alice", speaker))
        assert parts is not None and parts.reading() == slot_readings.turn_reading(text, speaker, "alice"), text
    assert [c.attribute for c in kept(engine, anchors[3], ("alice", "tool")).reading().claims] == []
    # a later session's change of a kept turn is found from its row
    later = engine.write_messages([{"role": "user", "content": "We moved to Denver last month."}], ALICE,
                                  session="s2")
    assert anchors[0] in later.revised


def test_erasing_a_memory_deletes_its_reading(engine):
    doomed = engine.write_memory("My phone number is 415-555-0100.", ScopeSet((("run", "r1"),)))
    kept_one = engine.write_memory("My phone number is 415-555-0199.", ALICE)
    assert body(engine, doomed.id) and "415-555-0100" in body(engine, doomed.id)
    engine.purge_scope(ScopeSet((("run", "r1"),)), "run:r1", erase=True)
    assert body(engine, doomed.id) is None
    assert body(engine, kept_one.id) is not None


def test_an_upgraded_store_gets_the_readings_its_writes_kept(db_path):
    with open_engine(db_path) as engine:
        engine.write_memories([{"text": "I live in Austin, Texas."}, {"text": "The office coffee machine broke."}],
                              ALICE)
        engine.write_memory("I work at Dell.", ALICE, metadata={"speaker": "Tom"})
        engine.write_messages([{"role": "user", "content": "My sister Nora lives in Chicago."},
                               {"role": "assistant", "content": "Noted - you have a sister in Chicago."}], BOB)
        before = dict(engine.store.conn.execute("SELECT node, body FROM readings").fetchall())
    assert len(before) == 5
    take_back(db_path, 11, tables=("readings",))  # schema 11: no readings table
    with WorldDB.open(db_path) as db:  # migration 12: the table, and the pass due again
        assert db.store.conn.execute("SELECT count(*) FROM readings").fetchone()[0] == 0
        assert claims_backfill.pending(db.store) is not None
        report = claims_backfill.backfill(db, batch=2)
        assert report.done and claims_backfill.pending(db.store) is None
        assert dict(db.store.conn.execute("SELECT node, body FROM readings").fetchall()) == before
