"""`worlddb import` as a user runs it: a progress bar on stderr, a JSON report on stdout, and
memories a server then recalls; a bad file is one clear line and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from mcp import Client

from bench.serverproc import call, child_env, stdio_params


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worlddb.cli", "import", *args], env=child_env(**env),
                          capture_output=True, text=True, timeout=120)


async def test_import_then_recall_through_the_server_with_the_real_model(tmp_path):
    source = tmp_path / "memory.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in [
        {"type": "entity", "name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
        {"type": "entity", "name": "Lisbon", "entityType": "city", "observations": ["Has steep hills and trams"]},
        {"type": "relation", "from": "John_Smith", "to": "Lisbon", "relationType": "lives_in"},
    ]))
    db = tmp_path / "imported.db"
    done = run(str(source), "--db", str(db), "--format", "official-memory", "--scope", "user:u")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["memories"], report["transactions"], report["format"]) == (3, 1, "official-memory")
    assert report["per_second"] > 0
    assert "3/3" in done.stderr  # the progress bar
    async with Client(stdio_params(db, embedder="minilm", default_user="u")) as client:
        hits = (await call(client, "memory_recall", query="where does John Smith live?", limit=1))["results"]
        assert hits[0]["text"] == "John_Smith lives in Lisbon"


def test_a_bad_line_is_one_clear_line_and_nothing_is_created(tmp_path):
    source = tmp_path / "calls.jsonl"
    source.write_text('{"text": "fine"}\n{"text": "x", "valid_from": "someday"}\n')
    db = tmp_path / "never.db"
    done = run(str(source), "--db", str(db), "--scope", "user:u", "--embedder", "hash")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("worlddb import: line 2: valid_from")
    assert not db.exists()
    unscoped = run(str(source), "--db", str(db), "--embedder", "hash")
    assert unscoped.returncode == 2 and "--scope" in unscoped.stderr


def test_items_naming_no_scope_go_to_the_default_user_and_a_second_run_counts_what_it_wrote(tmp_path):
    source = tmp_path / "calls.jsonl"
    chat = {"messages": [{"role": "user", "content": "My dog is Rex."}, {"role": "assistant", "content": "Nice."}],
            "session": "s1", "valid_from": "2025-06-01T10:00:00Z", "user_id": "cy"}
    source.write_text('{"text": "Tea at four"}\n{"text": "Coffee at nine", "user_id": "bob"}\n' + json.dumps(chat))
    db = tmp_path / "m.db"
    done = run(str(source), "--db", str(db), "--embedder", "hash", WORLDDB_DEFAULT_USER="ann")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["transactions"], report["turns"], report["sessions"], report["duplicates"]) == (3, 2, 1, 0)
    # the same file again: the session holds its turns already, the stores its memories, and the report
    # says none was written
    again = json.loads(run(str(source), "--db", str(db), "--embedder", "hash", WORLDDB_DEFAULT_USER="ann").stdout)
    assert (again["memories"], again["turns"], again["sessions"], again["duplicates"]) == (0, 0, 0, 4)
    from tests.support import open_engine
    from worlddb.memory.scopes import ScopeSet

    with open_engine(db) as engine:
        # text items are written as given, unjudged, but not again: once
        assert [m.text for m in engine.list_memories(ScopeSet.of(user="ann")).memories] == ["Tea at four"]
        assert [m.text for m in engine.list_memories(ScopeSet.of(user="bob")).memories] == ["Coffee at nine"]
        assert len(engine.list_memories(ScopeSet.of(user="cy")).memories) == 2


async def test_judge_writes_a_history_file_as_memory_write_would_line_by_line(tmp_path):
    source = tmp_path / "history.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in [
        {"text": "I live in Austin.", "valid_from": "2020-05-01"},
        {"text": "I moved to Denver.", "valid_from": "2023-02-01"},
        {"text": "I moved to Denver.", "valid_from": "2023-02-01"}]))
    db = tmp_path / "judged.db"
    done = run(str(source), "--db", str(db), "--scope", "user:u", "--judge")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["memories"], report["superseded"], report["duplicates"], report["transactions"]) == (2, 1, 1, 3)
    async with Client(stdio_params(db, embedder="minilm", default_user="u")) as client:
        hits = (await call(client, "memory_recall", query="Where do I live?"))["results"]
        assert [h["text"] for h in hits] == ["I moved to Denver."]
