"""Fuzzing the nine MCP tools' arguments through the in-memory client.

Arguments are generated from each tool's advertised inputSchema (valid values, so calls
also succeed and build state) and then broken: wrong JSON types, missing required keys,
unknown keys, huge strings, control characters, FTS5 syntax (`"`, `*`, `NEAR(`, `) OR (`),
truncated or stringified JSON for array/object parameters, bad dates, bad ids and prefixes
(and good ones, taken from earlier successful writes), wrong purge confirmations.

For every call:
- the client gets a result (a tool error is a result); nothing else escapes, and the
  server keeps answering;
- a tool error names the tool and says what was wrong - never a traceback, and never the
  SDK's bare "Error executing tool X", which means an exception escaped the engine's
  error boundary;
- a failed call, and any call to a read-only tool, leaves every table of the file as it
  was (compared through a second, read-only connection);
- a call giving a boolean, integer or string argument a value of another JSON type ("on" or
  1 for a flag, true, "3" or 2.0 for a count, "null" for either) fails: nothing is coerced;
and after every example the file still verifies and the server still answers. Each
example runs on a fresh server and database, so a failing sequence (shrunk) is saved and
replays on its own (fuzz.regressions).
"""

from __future__ import annotations

import logging
import sqlite3
import tempfile
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hyp_seed
from hypothesis import strategies as st

from fuzz.harness import snapshot
from fuzz.vocabulary import Violation

#: (tool, "ok" | "error") -> count, across sessions in the process
OUTCOMES: Counter = Counter()
#: the calls of the most recent failing sequence (after shrinking, the minimal one)
LAST_FAILURE: dict = {}
READ_ONLY = {"memory_recall", "memory_list", "memory_read", "memory_list_scopes"}
NASTY = ["", " ", "\x00", "a\x00b", "\x1f\x7f", '"', "*", "NEAR(", ") OR (", 'a" OR "b', "NEAR(a b, 2)", "x*",
         "^tea", "-tea", "tea AND", "{", "'; DROP TABLE nodes; --", "\u202e", "🙂 tea", "\n\n", "null", "[]",
         "{}", '[{"name":', '{"a": 1', "Ünïcödé", "\ud800"]
TEXTS = ["Sarah lives in Austin.", "I moved to Paris in 2021.", "tea with Jon on monday", "Sara works at Acme."]
DATES = ["2024-05-01", "2024-05-01T12:00:00Z", "2024-13-01", "yesterday", "0000-00-00", "9999-12-31T23:59:59Z",
         "1970-01-01", "2024-05-01T25:00", "+2024-05-01", "2024-05-01T12:00:00+14:00", " 2024-05-01 ",
         "0001-01-01T00:00:00-23:59", "2024-05-01T12:00:00.123456789Z"]
BAD_IDS = ["deadbeef", "DEADBEEF00", "0" * 64, "g" * 64, "abc", "0" * 65, "0123456", " " * 8, "-1"]
SCOPE_IDS = ["alice", "bob", "x", "", " ", "a\x00b", "z" * 257, "user:alice", "tab\there"]
CONFIRMS = ["user:alice", "user:bob", "agent:x", "", "USER:ALICE", "user:alice "]
KINDS = ["user", "agent", "app", "run", "", "bogus", "USER"]
#: values of the wrong JSON type for a flag, a count and a string (pydantic's lax mode takes most)
WRONG_TYPED = {"boolean": ["on", "off", "true", "false", "yes", "1", "null", "", 1, 0, 1.0, [], {}],
               "integer": [True, False, "3", "10", "null", "", 2.0, 1.5, [], {}],
               "string": [7, 0, True, 2.5, ["alice"], {"a": 1}]}
STRING_POOLS = {"id": None, "valid_from": DATES, "as_of": DATES, "known_at": DATES, "confirm": CONFIRMS,
                "kind": KINDS, "cursor": ["", "1", "0", "-1", "999999999999999999999", "abc", "2"],
                "user_id": SCOPE_IDS, "agent_id": SCOPE_IDS, "app_id": SCOPE_IDS, "run_id": SCOPE_IDS}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def _nested(depth: int):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


class Known:
    """A placeholder for the id of a memory an earlier call wrote, in some spelling."""

    def __init__(self, index: int, form: str):
        self.index, self.form = index, form

    def resolve(self, known: list[str]):
        if not known:
            return "0" * 64
        anchor = known[self.index % len(known)]
        return {"full": anchor, "prefix": anchor[:8], "upper": anchor[:12].upper(), "spaced": f" {anchor} ",
                "short": anchor[:7]}[self.form]


def _strings(name: str) -> st.SearchStrategy:
    if name == "id":
        return st.one_of(st.builds(Known, st.integers(0, 50), st.sampled_from(["full", "full", "prefix", "upper",
                                                                                "spaced", "short"])),
                         st.sampled_from(BAD_IDS))
    pool = STRING_POOLS.get(name)
    base = st.sampled_from(TEXTS) if pool is None else st.sampled_from(pool)
    return st.one_of(base, base, st.sampled_from(NASTY), st.text(max_size=30),
                     st.just("tea " * 9000))  # 36,000 characters: over the text limit


def _value(name: str, schema: dict, defs: dict) -> st.SearchStrategy:
    if "$ref" in schema:
        return _value(name, defs[schema["$ref"].split("/")[-1]], defs)
    if "anyOf" in schema:
        return st.one_of([_value(name, s, defs) for s in schema["anyOf"]])
    kind = schema.get("type")
    if kind == "string":
        return _strings(name)
    if kind == "integer":
        lo, hi = schema.get("minimum", -5), schema.get("maximum", 1000)
        return st.one_of(st.integers(lo, hi), st.sampled_from([lo - 1, hi + 1, 0, -1, 2**63, 2**70]),
                         st.sampled_from(WRONG_TYPED["integer"]))
    if kind == "boolean":
        return st.one_of(st.booleans(), st.booleans(), st.sampled_from(WRONG_TYPED["boolean"]))
    if kind == "null":
        return st.none()
    if kind == "array":
        item = _value(name, schema.get("items", {}), defs)
        return st.one_of(st.lists(item, max_size=3), st.lists(item, min_size=51, max_size=52),
                         st.sampled_from(['[{"name": "Sarah"}]', '[{"name":', "[1, 2", "[]"]))
    if kind == "object" and "properties" in schema:
        return _arguments(schema, defs, mutate=False)
    if kind == "object":
        return st.one_of(st.dictionaries(st.text(max_size=10), json_values, max_size=4),
                         st.sampled_from(['{"k": 1}', '{"k":', "{}"]),
                         st.just({"deep": _nested(40)}),
                         st.just({"big": "x" * 20_000}))
    return json_values


@st.composite
def _arguments(draw, schema: dict, defs: dict, mutate: bool = True) -> dict:
    props, required = schema.get("properties", {}), set(schema.get("required", []))
    args = {}
    for name, sub in props.items():
        if name in required or draw(st.booleans()):
            args[name] = draw(_value(name, sub, defs))
    if mutate:
        roll = draw(st.integers(0, 9))
        if roll == 0 and required:
            args.pop(draw(st.sampled_from(sorted(required))), None)
        elif roll == 1:
            args[draw(st.sampled_from(["user", "scope", "ids", "Text", "__proto__"]))] = draw(json_values)
        elif roll in (2, 3) and props:
            args[draw(st.sampled_from(sorted(props)))] = draw(json_values)
    return args


who = st.sampled_from(["alice", "bob", "carol"])
known_id = st.builds(Known, st.integers(0, 50), st.sampled_from(["full", "prefix"]))
good_date = st.sampled_from(["2024-05-01", "2021-01-01T08:00:00Z", "2030-01-01"])
VALID = {
    "memory_write": st.fixed_dictionaries({"text": st.sampled_from(TEXTS)}, optional={
        "user_id": who, "agent_id": st.just("helper"), "valid_from": good_date,
        "entities": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["Sarah", "Sara", "Jon"])}), max_size=2),
        "facts": st.lists(st.fixed_dictionaries({"subject": st.just("Sarah"), "relation": st.just("lives_in"),
                                                 "object": st.sampled_from(["Austin", "Paris"])}), max_size=1)}),
    "memory_recall": st.fixed_dictionaries({"query": st.sampled_from(TEXTS + NASTY[5:12])}, optional={
        "user_id": who, "limit": st.integers(1, 100), "as_of": good_date, "known_at": good_date,
        "include_retired": st.booleans()}),
    "memory_list": st.fixed_dictionaries({}, optional={"user_id": who, "limit": st.integers(1, 500),
                                                       "include_retired": st.booleans()}),
    "memory_read": st.fixed_dictionaries({"id": known_id}, optional={"user_id": who}),
    "memory_amend": st.fixed_dictionaries({"id": known_id, "text": st.sampled_from(TEXTS)}, optional={"user_id": who}),
    "memory_retire": st.fixed_dictionaries({"id": known_id}, optional={"user_id": who, "reason": st.just("old"),
                                                                    "wrong": st.booleans()}),
    "memory_retire_all": st.fixed_dictionaries({"user_id": who}),
    "memory_purge_scope": who.flatmap(lambda u: st.fixed_dictionaries(
        {"user_id": st.just(u), "confirm": st.just(f"user:{u}")}, optional={"erase": st.booleans()})),
    "memory_list_scopes": st.fixed_dictionaries({}, optional={"kind": st.sampled_from(["user", "agent"])}),
}


def call_strategy(tools: dict[str, dict]) -> st.SearchStrategy:
    """(tool, arguments): mostly schema-derived and broken, often valid, now and then an unknown tool."""
    names = sorted(tools)
    fuzzed = {n: _arguments(tools[n], tools[n].get("$defs", {})) for n in names}

    def pick(mode: str) -> st.SearchStrategy:
        if mode == "unknown":
            return st.tuples(st.just("no_such_tool"), st.just({}))
        if mode == "write":
            return st.tuples(st.just("memory_write"), VALID["memory_write"])
        table = fuzzed if mode == "fuzzed" else VALID
        return st.sampled_from(names).flatmap(lambda n: st.tuples(st.just(n), table.get(n, fuzzed[n])))

    return st.sampled_from(["write"] * 3 + ["fuzzed"] * 4 + ["valid"] * 3 + ["unknown"]).flatmap(pick)


def scalar_type(schema: dict) -> str | None:
    """"boolean", "integer" or "string" for an argument of that JSON type (nullable or not), else None."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    kinds = [k for k in kinds if k != "null"]
    return kinds[0] if len(kinds) == 1 and kinds[0] in WRONG_TYPED else None


def _of_type(value, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, str)


def wrong_typed(schema: dict, args: dict) -> list[str]:
    """The arguments of a call that a boolean, integer or string parameter gets in another JSON
    type (null counts as not given)."""
    props = schema.get("properties", {})
    return sorted(name for name, value in args.items()
                  if name in props and value is not None and (kind := scalar_type(props[name])) is not None
                  and not isinstance(value, Known) and not _of_type(value, kind))


def _resolve(value, known: list[str]):
    if isinstance(value, Known):
        return value.resolve(known)
    if isinstance(value, dict) and set(value) == {"$known"}:
        return Known(*value["$known"]).resolve(known)
    if isinstance(value, dict):
        return {k: _resolve(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, known) for v in value]
    return value


class Session:
    """One server over one database, its in-memory client on an event loop of its own."""

    def __init__(self, directory: str | Path):
        import anyio.from_thread
        from mcp import Client

        from fuzz import harness
        from worlddb.server import ServerConfig, build_server
        from worlddb.vectors.embedder import HashEmbedder

        self._drop = None
        if harness.STORES is not None:
            self.path, self._drop = harness.STORES()
        else:
            self.path = Path(directory) / "mcp.db"
        server = build_server(ServerConfig(db=str(self.path), default_user="alice", background=False,
                                           functional=("lives_in",),
                                           engine_options={"embedder": HashEmbedder(), "query_model": True}))
        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self.portal = self._portal_cm.__enter__()
        self._client_cm = self.portal.wrap_async_context_manager(Client(server))
        self.client = self._client_cm.__enter__()
        if self._drop is not None:  # a connection of the store's own backend (it commits nothing)
            from worlddb.core import backends

            self.reader = backends.for_target(self.path).connect(self.path)
        else:
            self.reader = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
        self.known: list[str] = []
        self.calls = 0
        self.tools = {t.name: t.input_schema for t in self.portal.call(self.client.list_tools).tools}

    def close(self) -> None:
        self.reader.close()
        self._client_cm.__exit__(None, None, None)
        self._portal_cm.__exit__(None, None, None)
        if self._drop is not None:
            self._drop()

    def call(self, name: str, raw_args: dict) -> str | None:
        """Make one call and check it (the module docstring); returns a tool error's text, or None."""
        args = _resolve(raw_args, self.known)
        before = snapshot(self.reader)
        self.calls += 1
        try:
            result = self.portal.call(self.client.call_tool, name, args)
        except Exception as exc:
            raise Violation(f"{name}({_short(args)}) raised {type(exc).__name__} out of the client: {exc}") from exc
        text = " ".join(getattr(c, "text", "") for c in result.content)
        OUTCOMES[(name, "error" if result.is_error else "ok")] += 1
        if result.is_error:
            if name in self.tools and not text.startswith(f"{name}: "):
                raise Violation(f"{name}({_short(args)}): tool error without the tool's own message: {text[:300]!r}")
            if "Traceback" in text or 'File "' in text:
                raise Violation(f"{name}: tool error carries a traceback")
            if snapshot(self.reader) != before:
                raise Violation(f"{name}({_short(args)}) failed ({text[:200]}) but changed the database")
            return text
        if coerced := wrong_typed(self.tools.get(name, {}), args):
            raise Violation(f"{name}({_short(args)}) succeeded though {', '.join(coerced)} had the wrong JSON type")
        if name in READ_ONLY and snapshot(self.reader) != before:
            raise Violation(f"read-only {name}({_short(args)}) changed the database")
        if name in ("memory_write", "memory_amend"):
            self.known.append(result.structured_content["id"])
        return None

    def check_file(self) -> None:
        from worlddb.core.store import Store
        from worlddb.graph.verify import verify

        store = Store.open(self.path)
        try:
            report = verify(store)
        finally:
            store.close()
        if not report.ok:
            raise Violation(f"after MCP calls the file does not verify: {report.mismatches[:3]}")
        alive = self.portal.call(self.client.call_tool, "memory_list_scopes", {})
        if alive.is_error:
            raise Violation("the server stopped answering")


def _short(args: dict) -> str:
    return repr({k: (v[:40] + "..." if isinstance(v, str) and len(v) > 40 else v) for k, v in args.items()})[:400]


@contextmanager
def session():
    with tempfile.TemporaryDirectory(prefix="worlddb-mcp-fuzz-") as directory:
        quiet = logging.getLogger("mcp")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)  # an escaped exception is a Violation here, not log noise
        s = Session(directory)
        try:
            yield s
        finally:
            s.close()
            quiet.setLevel(level)


def replay(batch: list) -> int:
    """Run one sequence of (tool, arguments) calls on a fresh server and database, checking
    every call and then the file; returns how many calls ran."""
    with session() as s:
        for name, args in batch:
            s.call(name, args)
        s.check_file()
        return s.calls


def jsonable(value):
    """A generated call as JSON: a Known placeholder becomes {"$known": [index, form]}."""
    if isinstance(value, Known):
        return {"$known": [value.index, value.form]}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def tool_schemas() -> dict[str, dict]:
    with session() as s:
        return s.tools


def run(*, examples: int, calls: int, seed: int) -> int:
    """Fuzz `examples` sequences of up to `calls` tool calls, each on a fresh server and
    database; returns the calls made. LAST_FAILURE keeps the (shrunk) failing sequence."""
    made = [0]

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(call_strategy(tool_schemas()), min_size=1, max_size=calls))
    def fuzz(batch):
        try:
            made[0] += replay(batch)
        except BaseException as exc:
            LAST_FAILURE.clear()
            LAST_FAILURE.update(calls=jsonable(batch), error=f"{type(exc).__name__}: {exc}")
            raise

    hyp_seed(seed)(fuzz)()
    return made[0]
