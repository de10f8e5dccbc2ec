"""`worlddb export` as a person runs it, in a subprocess: what a scope remembers now, written
through the MCP tools, comes out as the lines `worlddb import` reads; imported into a new
file it lists as it did, conversations go on, and exporting that file gives the same lines."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from mcp import Client

from bench.serverproc import call, child_env, stdio_params

SISTER = "My sister lives in Oslo,\u2028Frogner\x85 (near the park)\u2029."


def days(n: int) -> str:
    """A time `n` days from now."""
    return (datetime.now(UTC) + timedelta(days=n)).isoformat()


def worlddb(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "worlddb.cli", *args], env=child_env(), capture_output=True,
                          text=True, timeout=120)


async def _write(db) -> None:
    async with Client(stdio_params(db, default_user="u")) as client:
        austin = await call(client, "memory_write", text="I live in Austin.", valid_from="2025-01-01",
                            metadata={"source": "onboarding"})
        moved = await call(client, "memory_write", text="I live in Denver now.", valid_from="2025-03-01")
        assert moved["superseded"] == [austin["id"]]
        tea = await call(client, "memory_write", text="I drink green tea.", valid_from="2025-02-01")
        await call(client, "memory_retire", id=tea["id"])
        await call(client, "memory_write", valid_from="2025-06-01", session="s1", messages=[
            {"role": "user", "content": "We adopted a dog.", "ref": "m1", "time": "2025-06-01T10:00:00Z"},
            {"role": "assistant", "content": "Congratulations!", "caption": "a photo of a beagle"}])
        # a line or paragraph separator inside a text stays inside its one JSON line
        await call(client, "memory_write", text=SISTER, valid_from="2025-06-05")
        # entities and facts the writer gave are the memory's own, not what the extractor would find
        await call(client, "memory_write", text="Got my new car.", valid_from="2025-06-06",
                   entities=[{"name": "Tesla Model 3", "type": "product", "aliases": ["the Tesla"]}],
                   facts=[{"subject": "u", "relation": "owns", "object": "Tesla Model 3"},
                          {"subject": "Tesla Model 3", "relation": "colour", "object": "red", "text": "It is red."}])
        await call(client, "memory_write", text="Sarah called about Paris.", valid_from="2025-06-07", entities=[])
        await call(client, "memory_write", messages=[{"role": "user", "content": "The dog is called Rex."}],
                   session="s1", valid_from="2025-06-08")
        await call(client, "memory_write", messages=[{"role": "Caroline", "content": "I went to a pottery class."},
                                                     {"role": "Melanie", "content": "Lovely!"}],
                   valid_from="2025-07-01")
        await call(client, "memory_write", text="Bob's own note.", user_id="bob")
        # a planned change, written after the memory it will end: an import has it end that one again
        dell = await call(client, "memory_write", text="I work at Dell as an engineer.", valid_from="2025-07-05")
        figma = await call(client, "memory_write", text="I work at Figma as a designer.", valid_from=days(45))
        assert figma["superseded"] == [dell["id"]]


async def _listed(db) -> list[tuple]:
    async with Client(stdio_params(db, default_user="u")) as client:
        page = await call(client, "memory_list", limit=50)
        return [(m["type"], m["text"], m["metadata"], m["valid_from"]) for m in page["memories"]]


def _lines(path) -> list[dict]:
    """The file's JSON lines: split at newlines only (a text may hold U+2028, as JSON allows)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


async def test_a_scope_exports_to_lines_that_import_back_to_what_it_remembered(tmp_path):
    source, out = tmp_path / "memory.db", tmp_path / "alice.jsonl"
    await _write(source)
    done = worlddb("export", "--db", str(source), "--scope", "user:u", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "exported 6 memories and 3 conversation runs (5 turns) from 1 scope"
    lines = _lines(out)
    # oldest first; what was superseded or retired, and another user's note, are not there
    assert "\u2028" in out.read_text(encoding="utf-8")  # written as it is, not escaped
    assert [line.get("text") for line in lines] == [
        "I live in Denver now.", None, SISTER, "Got my new car.", "Sarah called about Paris.", None, None,
        "I work at Dell as an engineer.", "I work at Figma as a designer."]
    assert lines[0] == {"text": "I live in Denver now.", "valid_from": "2025-03-01T00:00:00Z", "user_id": "u"}
    assert lines[3] == {"text": "Got my new car.", "valid_from": "2025-06-06T00:00:00Z", "user_id": "u",
                        "entities": [{"name": "Tesla Model 3", "type": "product", "aliases": ["the Tesla"]}],
                        "facts": [{"subject": "u", "relation": "owns", "object": "Tesla Model 3"},
                                  {"subject": "Tesla Model 3", "relation": "colour", "object": "red",
                                   "text": "It is red."}]}
    # a writer that gave no entities asked for no extraction, and an import keeps it so
    assert lines[4]["entities"] == [] and lines[4]["facts"] == []
    assert lines[1] == {"messages": [
        {"role": "user", "content": "We adopted a dog.", "time": "2025-06-01T10:00:00Z", "ref": "m1"},
        {"role": "assistant", "content": "Congratulations!", "time": "2025-06-01T10:00:00Z",
         "caption": "a photo of a beagle"}], "session": "s1", "valid_from": "2025-06-01T10:00:00Z", "user_id": "u"}
    assert lines[5]["session"] == "s1" and [m["content"] for m in lines[5]["messages"]] == ["The dog is called Rex."]
    assert [m["role"] for m in lines[6]["messages"]] == ["Caroline", "Melanie"]  # named speakers stay theirs

    copy = tmp_path / "imported.db"
    loaded = subprocess.run([sys.executable, "-m", "worlddb.cli", "import", str(out), "--db", str(copy),
                             "--embedder", "hash"], env=child_env(), capture_output=True, text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    assert json.loads(loaded.stdout)["superseded"] == 1  # the plan ends Dell again
    assert await _listed(copy) == await _listed(source)
    again = tmp_path / "again.jsonl"
    assert worlddb("export", "--db", str(copy), "--out", str(again)).returncode == 0
    assert _lines(again) == lines
    # the imported conversation is the same conversation: a client's next call continues it
    async with Client(stdio_params(copy, default_user="u")) as client:
        more = await call(client, "memory_write", messages=[{"role": "user", "content": "Rex loves the park."}],
                          session="s1", valid_from="2025-06-09")
        hits = await call(client, "memory_recall", query="What is the dog called?", limit=10)
        now = (await call(client, "memory_recall", query="Where do I work?"))["results"]
        then = (await call(client, "memory_recall", query="Where do I work?", as_of=days(60)))["results"]
        ids = {m["text"]: m["id"] for m in (await call(client, "memory_list", limit=50))["memories"]}
        car = await call(client, "memory_read", id=ids["Got my new car."])
        sarah = await call(client, "memory_read", id=ids["Sarah called about Paris."])
    assert [(e["name"], e["type"]) for e in car["entities"]] == [("Tesla Model 3", "product")]
    assert sorted((f["subject"], f["relation"], f["object"], f["text"]) for f in car["facts"]) == [
        ("Tesla Model 3", "colour", "red", "It is red."), ("u", "owns", "Tesla Model 3", "u owns Tesla Model 3")]
    assert sarah["entities"] == [] and sarah["facts"] == []
    assert more["session"] in {hit["session"] for hit in hits["results"] if hit["text"] == "The dog is called Rex."}
    working = [(h["text"], h["valid_to"] is not None) for h in now if h["text"].startswith("I work")]
    assert working == [("I work at Dell as an engineer.", True)]
    assert [h["text"] for h in then if h["text"].startswith("I work")] == ["I work at Figma as a designer."]


async def test_an_unknown_scope_or_database_is_one_line_and_writes_no_file(tmp_path):
    source, out = tmp_path / "memory.db", tmp_path / "out.jsonl"
    await _write(source)
    for args, message in [
        (("--db", str(tmp_path / "missing.db")), "worlddb export: no database at"),
        (("--db", str(source), "--scope", "user:nobody"), "worlddb export: no scope user:nobody in"),
        (("--db", str(source), "--scope", "nobody"), "worlddb export: scope key 'nobody' must look like kind:id"),
    ]:
        done = worlddb("export", *args, "--out", str(out))
        assert done.returncode == 2 and done.stderr.startswith(message), done.stderr
        assert "Traceback" not in done.stderr and not out.exists()
        assert not list(tmp_path.glob(".out.jsonl.*"))

