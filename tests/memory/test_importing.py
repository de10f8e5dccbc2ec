"""Bulk import: the three formats become the memories they describe; a bad line anywhere
refuses the file whole; batches are transactions."""

from __future__ import annotations

import json

import pytest

from tests.support import ALICE, BOB, dump
from worlddb.core.errors import InvalidInput
from worlddb.memory import importing
from worlddb.memory.scopes import ScopeSet

pytestmark = pytest.mark.both_backends


def lines(path, *records) -> str:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return str(path)


def rows(engine) -> list[str]:
    """Every row of the engine's store (tests.support.dump)."""
    return dump(engine.store.path)


OFFICIAL = [
    {"type": "entity", "name": "John_Smith", "entityType": "person",
     "observations": ["Speaks fluent Spanish", "Graduated in 2019"]},
    {"type": "entity", "name": "Anthropic", "entityType": "organization", "observations": []},
    {"type": "relation", "from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
]


def test_the_reference_memory_servers_file_becomes_memories_linked_to_its_entities(engine, tmp_path):
    items = importing.read_items(lines(tmp_path / "memory.jsonl", *OFFICIAL), "official-memory", ALICE)
    report = engine.import_memories(items)
    assert (report.memories, report.transactions) == (4, 1)
    texts = sorted(m.text for m in engine.list_memories(ALICE, limit=10).memories)
    assert texts == ["Anthropic: organization", "John_Smith works at Anthropic", "John_Smith: Graduated in 2019",
                     "John_Smith: Speaks fluent Spanish"]
    hit = engine.recall("Which language does John Smith speak?", ALICE, limit=1).results[0]
    assert hit.text == "John_Smith: Speaks fluent Spanish" and hit.entities == ["John_Smith"]
    detail = engine.read_memory(report.ids[-1], ALICE)
    assert [(f.subject, f.relation, f.object) for f in detail.facts] == [("John_Smith", "works_at", "Anthropic")]
    # one entity per name: every memory about John Smith refers to the same one
    john = {e.id for i in report.ids for e in engine.read_memory(i, ALICE).entities if e.name == "John_Smith"}
    assert len(john) == 1


def test_a_mem0_export_keeps_text_time_metadata_and_scopes(engine, tmp_path):
    export = {"results": [
        {"id": "9c1f", "memory": "Prefers morning meetings", "hash": "x", "metadata": {"type": "preference"},
         "categories": ["work"], "created_at": "2024-07-20T01:09:24.546374-07:00", "updated_at": None,
         "user_id": "alice"},
        {"id": "77ab", "memory": "Is vegetarian", "user_id": "bob", "role": "user",
         "created_at": "2024-08-01T10:00:00Z"},
        {"id": "5d2e", "memory": "Likes jazz"},
    ]}
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(export))
    with pytest.raises(InvalidInput, match="--scope"):
        importing.read_items(path, "mem0")  # the third names no scope
    report = engine.import_memories(importing.read_items(path, "mem0", ScopeSet.of(user="carol")))
    assert report.memories == 3 and report.transactions == 3  # three scopes, three runs
    alice = engine.list_memories(ALICE).memories
    assert [(m.text, m.valid_from) for m in alice] == [("Prefers morning meetings", "2024-07-20T08:09:24.546374Z")]
    assert alice[0].metadata == {"type": "preference", "source": "mem0", "mem0_id": "9c1f", "categories": ["work"]}
    assert [m.text for m in engine.list_memories(BOB).memories] == ["Is vegetarian"]
    assert [m.text for m in engine.list_memories(ScopeSet.of(user="carol")).memories] == ["Likes jazz"]
    # one record per line is read too
    other = importing.read_items(lines(tmp_path / "mem0.jsonl", *export["results"][:2]), "mem0")
    assert [i.arguments["text"] for i in other] == ["Prefers morning meetings", "Is vegetarian"]


def test_jsonl_of_memory_write_arguments_with_texts_and_conversations(engine, tmp_path):
    path = lines(tmp_path / "calls.jsonl",
                 {"text": "The spare key is under the blue flowerpot", "metadata": {"where": "porch"}},
                 {"text": "Alice moved to Denver", "valid_from": "2024-03-01", "user_id": "alice"},
                 {"messages": [{"role": "Ann", "content": "We adopted a dog."}, {"role": "Bob", "content": "Name?"}],
                  "session": "s1", "valid_from": "2024-05-01"},
                 {"messages": [{"role": "Ann", "content": "Biscuit."}], "session": "s1"},
                 {"text": "Bob likes tea", "user_id": "bob"})
    items = importing.read_items(path, "jsonl", ALICE)
    assert importing.count(items) == 6
    report = engine.import_memories(items, batch=2)
    assert (report.memories, report.turns, report.sessions, report.transactions) == (3, 3, 1, 4)  # s1 twice
    assert report.ids[2] == report.ids[3]  # the second call continued session s1
    session = engine.read_memory(report.ids[2], ALICE)
    assert session.provenance["tool"] == "import"  # what wrote it, as an imported memory's says
    hit = engine.recall("what is the dog called", ALICE, limit=3).results
    assert "Biscuit." in [h.text for h in hit]


@pytest.mark.parametrize(("fmt", "records", "error"), [
    ("jsonl", [{"text": "fine"}, "[\"a\", \"list\"]"], "line 2: expected a JSON object"),
    ("jsonl", [{"text": "fine"}, {"txt": "typo"}], "line 2: unknown argument"),
    ("jsonl", [{"text": "fine"}, {"text": ""}], "line 2: text is empty"),
    ("jsonl", [{"text": "fine"}, {"text": "\u200b\ufeff \u2060"}], "line 2: text is empty"),
    ("jsonl", [{"text": "fine"}, {"text": "Robert Smith is my manager.",
                                  "entities": [{"name": "Robert Smith", "kind": "person", "alias": ["Bob"]}]}],
     r"line 2: entities\[0\] has unknown key\(s\) alias, kind; an item of entities has name, type, aliases"),
    ("jsonl", [{"text": "fine"}, {"text": "Robert Smith is my manager.", "entities": [{"name": "Robert Smith"}],
                                  "facts": [{"subject": "me", "relation": "has_manager", "object": "Robert Smith",
                                             "confidence": 0.9}]}],
     r"line 2: facts\[0\] has unknown key\(s\) confidence; an item of facts has subject, relation, object, text"),
    ("jsonl", [{"text": "fine"}, {"text": "x", "valid_from": "someday"}], "line 2: valid_from"),
    ("jsonl", [{"text": "fine"}, {"messages": [{"role": "a"}]}], r"line 2: messages\[0\].content"),
    ("jsonl", [{"text": "fine"}, {"text": "x", "user_id": ""}], "line 2: user_id"),
    ("jsonl", [{"text": "fine"}, {"text": "x", "messages": []}], "line 2: give text"),
    ("jsonl", [{"text": "fine"}, {"text": "x", "metadata": {"speaker": 7}}], "line 2: metadata.speaker must be"),
    ("mem0", [{"memory": "fine"}, {"memory": "x", "actor_id": {"id": 1}}], "line 2: metadata.speaker must be"),
    ("official-memory", [OFFICIAL[0], {"type": "thing"}], 'line 2: expected "type"'),
    ("official-memory", [OFFICIAL[0], {"type": "relation", "from": "a", "to": ""}], "line 2: a relation needs"),
], ids=["not an object", "unknown argument", "empty text", "invisible text", "unknown entity key", "unknown fact key",
        "bad date", "bad message", "bad scope", "both",
        "speaker not a name", "mem0 actor not a name", "unknown type", "bad relation"])
def test_a_bad_line_anywhere_refuses_the_file_and_writes_nothing(engine, tmp_path, fmt, records, error):
    engine.write_memory("already here", ALICE)
    before = rows(engine)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records))
    with pytest.raises(InvalidInput, match=error):
        engine.import_memories(importing.read_items(path, fmt, ALICE))
    assert rows(engine) == before


def test_a_file_that_is_not_json_names_its_line(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text('{"text": "fine"}\n{"text": oops}\n')
    with pytest.raises(InvalidInput, match="line 2: not JSON"):
        importing.read_items(path, "jsonl", ALICE)


def test_batches_are_transactions_of_at_most_the_batch_size(engine, tmp_path):
    path = lines(tmp_path / "many.jsonl", *({"text": f"Reading list entry {i}"} for i in range(25)))
    seen: list[int] = []
    report = engine.import_memories(importing.read_items(path, "jsonl", ALICE), batch=10, progress=seen.append)
    assert seen == [10, 10, 5] and report.transactions == 3
    kinds = [k for (k,) in engine.store.conn.execute("SELECT kind FROM tx ORDER BY seq")]
    assert kinds.count("memory_write_many") == 3


def test_a_batch_refused_in_its_model_step_stops_the_import_there_with_the_batches_before_it_written(
        engine, tmp_path):
    # the fifth item's entity name is over its limit: refused while its batch is prepared,
    # which happens ahead, while the batch before it commits (worlddb.memory.ahead)
    records = [{"text": f"Reading list entry {i}"} for i in range(9)]
    records[4] = {"text": "A bad entry", "entities": [{"name": "x" * 600}]}
    path = lines(tmp_path / "some-bad.jsonl", *records)
    seen: list[int] = []
    with pytest.raises(InvalidInput, match=r"line 4-6: entity name is longer than 512 characters"):
        engine.import_memories(importing.read_items(path, "jsonl", ALICE), batch=3, progress=seen.append)
    assert seen == [3]
    texts = sorted(m.text for m in engine.list_memories(ALICE, limit=50).memories)
    assert texts == [f"Reading list entry {i}" for i in range(3)]


HISTORY = [{"text": "I live in Austin.", "valid_from": "2020-05-01"},
           {"text": "I work at Dell.", "valid_from": "2020-06-01"},
           {"text": "I moved to Denver.", "valid_from": "2023-02-01"}]


def _current(engine, scopes) -> list[str]:
    return sorted(m.text for m in engine.list_memories(scopes, limit=50).memories)


def test_a_file_is_written_as_given_unless_the_import_is_asked_to_judge(engine, tmp_path):
    path = lines(tmp_path / "history.jsonl", *HISTORY)
    report = engine.import_memories(importing.read_items(path, "jsonl", ALICE))
    assert (report.memories, report.superseded, report.duplicates, report.transactions) == (3, 0, 0, 1)
    assert _current(engine, ALICE) == ["I live in Austin.", "I moved to Denver.", "I work at Dell."]
    judged = engine.import_memories(importing.read_items(path, "jsonl", BOB), judge=True)
    # each line as a memory_write in turn: the move ends Austin, and leaves the job alone
    assert (judged.memories, judged.superseded, judged.transactions) == (3, 1, 3)
    assert _current(engine, BOB) == ["I moved to Denver.", "I work at Dell."]
    hits = engine.recall("Where do I live?", BOB, limit=3).results
    assert hits[0].text == "I moved to Denver." and hits[0].valid_from.startswith("2023-02-01")
    austin = [h for h in engine.recall("Where do I live?", BOB, include_retired=True).results
              if h.id == judged.ids[0]]
    assert austin and austin[0].superseded_by == [judged.ids[2]]


def test_a_repeat_is_not_written_when_judged(engine, tmp_path):
    path = lines(tmp_path / "again.jsonl", {"text": "I am allergic to peanuts."},
                 {"text": "I am allergic to peanuts."}, {"text": "I like green tea."})
    report = engine.import_memories(importing.read_items(path, "jsonl", ALICE), judge=True)
    assert (report.memories, report.duplicates, len(report.ids)) == (2, 1, 2)
    assert _current(engine, ALICE) == ["I am allergic to peanuts.", "I like green tea."]


def test_a_planned_change_ends_what_it_replaces_when_its_export_is_imported(engine, tmp_path):
    from datetime import UTC, datetime, timedelta

    later = (datetime.now(UTC) + timedelta(days=45)).isoformat()
    dell = engine.write_memory("I work at Dell as an engineer.", ALICE, valid_from="2021-01-01")
    figma = engine.write_memory("I work at Figma as a designer.", ALICE, valid_from=later)
    assert figma.superseded == [dell.id]
    path = lines(tmp_path / "export.jsonl", *engine.export_memories(ALICE))
    # into other scopes of the same file: a batch of what holds now, then the plan, judged
    report = engine.import_memories([importing.ImportItem(item.line, BOB, item.arguments)
                                     for item in importing.read_items(path, "jsonl", ALICE)])
    assert (report.memories, report.superseded, report.transactions) == (2, 1, 2)
    now = engine.recall("Where do I work?", BOB, limit=2).results
    assert now[0].text == "I work at Dell as an engineer." and now[0].valid_to == figma.valid_from
    then = engine.recall("Where do I work?", BOB, as_of=(datetime.now(UTC) + timedelta(days=60)).isoformat()).results
    assert [h.text for h in then if h.text.startswith("I work")] == ["I work at Figma as a designer."]
