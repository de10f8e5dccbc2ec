"""Bulk import (`worlddb import`): memories from a file, in batched transactions.

Formats:
  jsonl            one object per line: memory_write's arguments (`text` with `metadata`,
                   `valid_from`, `entities`, `facts`; or `messages` with `session`,
                   `valid_from`), and optionally the scope ids `user_id`, `agent_id`,
                   `app_id`, `run_id`.
  official-memory  the JSONL file of the MCP reference memory server: lines
                   {"type": "entity", "name", "entityType", "observations": [...]} and
                   {"type": "relation", "from", "to", "relationType"}. Each observation
                   becomes a memory "<name>: <observation>" linked to its entity (given, so
                   nothing is guessed); an entity without observations becomes
                   "<name>: <entityType>"; each relation a memory "<from> <relation> <to>"
                   with that fact.
  mem0             a Mem0 export: a JSON list of memory records, an object holding them
                   under "results" (what get_all returns) or "memories", or one record per
                   line. A record's `memory` is the text, `created_at` its valid-from,
                   `metadata` and `categories` its metadata (with the Mem0 id), `role` and
                   `actor_id` who said it, and its `user_id` / `agent_id` / `app_id` /
                   `run_id` its scopes.

Items that name no scope go to the default scope (`--scope`). The whole file is read and
checked before anything is written: a line that is not JSON, not an object, has unknown
arguments (or unknown keys in an item of entities, facts or messages), no text, bad dates
or bad messages is refused with its line number, and nothing is written. Then consecutive
text memories of the same scopes are written `batch` to a transaction through the
memory_write path (embeddings computed per batch, before its transaction), and each
`messages` item as its session (worlddb.memory.messages); a batch's extraction and
embeddings run while the batch before it commits (worlddb.memory.ahead). Turns the session
holds already are not written again (a file imported twice), and the report counts them as
duplicates, not as turns written.
A batch is written as given: the files these formats come from hold what is true now, so
nothing in them is judged against the rest; only a memory the store holds in the same words
already (the same file imported again), or an earlier item does, is not written again
(worlddb.memory.updates.repeated), and counts as a duplicate. Two kinds of item are written alone, as a single
memory_write writes them (judged against the current memories of their scopes, what is
imported before them included: worlddb.memory.updates): every text item, when the import is
asked to `judge` (a file of memories in the order they happened, "I live in Austin" before
"I moved to Denver"), and always one that begins after now. That is a planned change, as
`worlddb export` writes one next to the memory it ends later, and only the judge makes it end
that memory when it begins.
A batch the engine still refuses (an entity name over its limit, say) stops the import at
that batch; the batches before it stay written, and the error names the lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from worlddb.core.errors import InvalidInput, WorldDBError
from worlddb.core.timeutil import now_us, parse_time
from worlddb.memory import messages as conversation
from worlddb.memory.access import Access
from worlddb.memory.ahead import one_ahead
from worlddb.memory.ingest import PreparedSession
from worlddb.memory.scopes import ScopeSet, resolve_scopes
from worlddb.memory.services import Services
from worlddb.memory.write import (
    PreparedWrite,
    WriteRequest,
    check_item_keys,
    check_metadata,
    check_text,
    commit,
    complete,
    prepare,
)

FORMATS = ("jsonl", "official-memory", "mem0")
#: memories written per transaction
BATCH = 500
SCOPE_ARGS = ("user_id", "agent_id", "app_id", "run_id")
WRITE_ARGS = ("text", "messages", "session", "metadata", "valid_from", "entities", "facts")


@dataclass(frozen=True)
class ImportItem:
    """One memory_write call read from a file: its line, its scopes and its arguments."""

    line: int
    scopes: ScopeSet
    arguments: dict


@dataclass(frozen=True)
class ImportReport:
    memories: int = 0
    #: turns written, and the sessions they were written to (a session that held every turn of
    #: its items already is not counted)
    turns: int = 0
    sessions: int = 0
    transactions: int = 0
    #: the memories written, and the sessions turns were written to
    ids: list[str] = field(default_factory=list)
    #: current memories a judged item superseded (ended); and what was not written as already
    #: present: judged items that repeat a current memory, and turns their session already holds
    superseded: int = 0
    duplicates: int = 0


def read_items(path: str | Path, fmt: str = "jsonl", default: ScopeSet | None = None) -> list[ImportItem]:
    """Every item of the file, parsed and checked (see the module docstring)."""
    if fmt not in FORMATS:
        raise InvalidInput(f"format must be one of {', '.join(FORMATS)}")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}") from None
    reader = {"jsonl": _jsonl, "official-memory": _official, "mem0": _mem0}[fmt]
    items = list(reader(text, default))
    for item in items:
        _check(item)
    return items


def count(items: list[ImportItem]) -> int:
    """Memories the items write (a messages item writes one turn per message)."""
    return sum(len(i.arguments["messages"]) if "messages" in i.arguments else 1 for i in items)


def import_items(services: Services, items: list[ImportItem], *, batch: int = BATCH,
                 progress: Callable[[int], None] | None = None, judge: bool = False,
                 access: Access | None = None) -> ImportReport:
    """Write checked items (read_items) in batched transactions; `progress(n)` after each.
    Each batch's model step runs while the batch before it commits (worlddb.memory.ahead).
    With `judge`, each text item is judged as a single memory_write is, in a transaction of its
    own; a planned change always is (see the module docstring). `access`: whose import it is,
    as memory_write's (a judged item closes no memory also in a scope outside its grant)."""
    if batch < 1:
        raise InvalidInput("batch must be at least 1")
    memories = turns = transactions = superseded = duplicates = 0
    ids: list[str] = []
    sessions: set[str] = set()  # two lines of one conversation are one session
    now = now_us()
    groups = _groups(items, batch, lambda item: judge or _begins_after(item, now))
    with closing(one_ahead(partial(_prepare, services), groups)) as ready:
        for (group, _), prepared in ready:
            lines = f"line {group[0].line}" + (f"-{group[-1].line}" if len(group) > 1 else "")
            try:
                if "messages" in group[0].arguments:
                    written, new = conversation.commit_messages_counted(services, complete(services, prepared()))
                    turns += new
                    duplicates += len(written.turns) - new
                    if new:
                        sessions.add(written.id)
                        ids.append(written.id)
                    done = len(written.turns)
                else:
                    results = commit(services, complete(services, prepared()), access)
                    written = [r for r in results if r.duplicate_of is None]
                    memories += len(written)
                    duplicates += len(results) - len(written)
                    superseded += sum(len(r.superseded) for r in written)
                    ids.extend(r.id for r in written)
                    done = len(results)
            except WorldDBError as exc:
                raise type(exc)(f"{lines}: {exc} (the items before it are written)") from None
            transactions += 1
            if progress is not None:
                progress(done)
    return ImportReport(memories=memories, turns=turns, sessions=len(sessions), transactions=transactions, ids=ids,
                        superseded=superseded, duplicates=duplicates)


def _prepare(services: Services, batch: tuple[list[ImportItem], bool]) -> PreparedWrite | PreparedSession:
    """A batch's model step: a messages item's session, or a run of text items (one, judged)."""
    group, judged = batch
    if "messages" in group[0].arguments:
        args = group[0].arguments
        valid_from = args.get("valid_from")
        return conversation.prepare_messages(
            services, group[0].scopes, args["messages"], session=args.get("session"),
            valid_from=parse_time(valid_from, field="valid_from") if valid_from else None, tool="import")
    return prepare(services, [_request(item, judged=judged) for item in group])


# ---------------------------------------------------------------------------- batching
def _begins_after(item: ImportItem, now: int) -> bool:
    """Whether a text item is a planned change: its valid_from is still to come."""
    valid_from = item.arguments.get("valid_from")
    return "text" in item.arguments and bool(valid_from) and parse_time(valid_from, field="valid_from") > now


def _groups(items: list[ImportItem], batch: int,
            judged: Callable[[ImportItem], bool]) -> Iterator[tuple[list[ImportItem], bool]]:
    """Runs of consecutive text items with the same scopes, at most `batch` long; each
    messages item alone, and each text item to be judged; with whether it is judged."""
    run: list[ImportItem] = []
    for item in items:
        alone = "messages" in item.arguments
        if alone or judged(item):
            if run:
                yield run, False
                run = []
            yield [item], not alone
            continue
        if run and (len(run) >= batch or run[0].scopes != item.scopes):
            yield run, False
            run = []
        run.append(item)
    if run:
        yield run, False


def _request(item: ImportItem, judged: bool = False) -> WriteRequest:
    args = item.arguments
    valid_from = args.get("valid_from")
    return WriteRequest(text=check_text(args.get("text")), scopes=item.scopes, metadata=args.get("metadata") or {},
                        valid_from=parse_time(valid_from, field="valid_from") if valid_from else None,
                        entities=args.get("entities"), facts=args.get("facts"), tool="import", judged=judged)


def _check(item: ImportItem) -> None:
    """What memory_write would refuse before writing, for one item."""
    args = item.arguments
    try:
        unknown = sorted(set(args) - set(WRITE_ARGS))
        if unknown:
            raise InvalidInput(f"unknown argument(s) {', '.join(unknown)}")
        conversation.check_write_arguments(text=args.get("text"), messages=args.get("messages"),
                                           session=args.get("session"), metadata=args.get("metadata"),
                                           entities=args.get("entities"), facts=args.get("facts"))
        valid_from = args.get("valid_from")
        start = parse_time(valid_from, field="valid_from") if valid_from else None
        if "messages" in args:
            conversation.check_session(args.get("session"))
            conversation.parse_messages(args["messages"], start)
        else:
            request = _request(item)
            check_metadata(request.metadata)
            for what in ("entities", "facts"):
                value = args.get(what)
                if value is not None and (not isinstance(value, list) or not all(isinstance(v, dict) for v in value)):
                    raise InvalidInput(f"{what} must be a list of objects")
                for i, entry in enumerate(value or ()):
                    check_item_keys(entry, what, i)
    except InvalidInput as exc:
        raise InvalidInput(f"line {item.line}: {exc}; nothing was imported") from None


# ---------------------------------------------------------------------------- formats
def _lines(text: str) -> Iterator[tuple[int, dict]]:
    # JSON lines end at "\n" (and "\r\n") only: str.splitlines would also break a line at a
    # U+2028 inside a string, which a JSON text may hold as it is
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise InvalidInput(f"line {number}: not JSON ({exc.msg}); nothing was imported") from None
        if not isinstance(value, dict):
            raise InvalidInput(f"line {number}: expected a JSON object; nothing was imported")
        yield number, value


def _scopes(number: int, given: dict, default: ScopeSet | None) -> ScopeSet:
    try:
        return resolve_scopes(**{k: given.get(k) for k in SCOPE_ARGS}, default=default)
    except InvalidInput as exc:
        hint = " (give --scope for items that name none)" if default is None else ""
        raise InvalidInput(f"line {number}: {exc}{hint}; nothing was imported") from None


def _jsonl(text: str, default: ScopeSet | None) -> Iterator[ImportItem]:
    for number, value in _lines(text):
        scopes = _scopes(number, value, default)
        yield ImportItem(number, scopes, {k: v for k, v in value.items() if k not in SCOPE_ARGS})


def _words(relation: str) -> str:
    return re.sub(r"[_\s]+", " ", relation).strip()


def _official(text: str, default: ScopeSet | None) -> Iterator[ImportItem]:
    for number, value in _lines(text):
        scopes = _scopes(number, {}, default)
        kind = value.get("type")
        meta = {"source": "official-memory"}
        if kind == "entity":
            name, etype, observations = value.get("name"), value.get("entityType"), value.get("observations", [])
            if not isinstance(name, str) or not name.strip() or not isinstance(etype, str):
                raise InvalidInput(f"line {number}: an entity needs a name and an entityType; nothing was imported")
            if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
                raise InvalidInput(f"line {number}: observations must be a list of strings; nothing was imported")
            entity = {"name": name, "type": etype or None}
            for observation in observations or [etype]:
                yield ImportItem(number, scopes, {"text": f"{name}: {observation}", "entities": [entity],
                                                  "metadata": {**meta, "entity": name}})
        elif kind == "relation":
            source, target, relation = value.get("from"), value.get("to"), value.get("relationType")
            if not all(isinstance(v, str) and v.strip() for v in (source, target, relation)):
                raise InvalidInput(f"line {number}: a relation needs from, to and relationType; nothing was imported")
            yield ImportItem(number, scopes, {
                "text": f"{source} {_words(relation)} {target}", "entities": [{"name": source}, {"name": target}],
                "facts": [{"subject": source, "relation": relation, "object": target}],
                "metadata": {**meta, "relation": relation}})
        else:
            raise InvalidInput(f'line {number}: expected "type": "entity" or "relation"; nothing was imported')


def _mem0(text: str, default: ScopeSet | None) -> Iterator[ImportItem]:
    try:
        document = json.loads(text)
    except ValueError:
        records = list(_lines(text))  # one record per line
    else:
        if isinstance(document, dict):
            document = document.get("results", document.get("memories"))
        if not isinstance(document, list):
            raise InvalidInput('a Mem0 export is a list of memories, or an object with "results"; '
                               "nothing was imported")
        records = list(enumerate(document, start=1))
    for number, record in records:
        if not isinstance(record, dict):
            raise InvalidInput(f"record {number}: expected an object; nothing was imported")
        scopes = _scopes(number, record, default)
        meta = record.get("metadata") or {}
        if not isinstance(meta, dict):
            raise InvalidInput(f"record {number}: metadata must be an object; nothing was imported")
        meta = {**meta, "source": "mem0"}
        for key, into in (("id", "mem0_id"), ("categories", "categories"), ("role", "role"), ("actor_id", "speaker")):
            if record.get(key) not in (None, "", []):
                meta[into] = record[key]
        arguments = {"text": record.get("memory"), "metadata": meta}
        if record.get("created_at"):
            arguments["valid_from"] = record["created_at"]
        yield ImportItem(number, scopes, arguments)
