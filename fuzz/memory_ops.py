"""Memory-layer operations (Engine): predicted refusals, learned structure, predicted validity.

The memory layer decides things the model cannot know in advance (which entity a mention
resolves to, what the built-in extractor finds, ids that depend on the clock), so after a
successful call the model learns the rows the call added (fuzz.learn, which also checks
them), while validity effects are predicted here: amend closes the old memory, retire
takes along facts with no other open source, retire_all retires exactly the scope's
members, purge retires what belongs to that scope alone and lets go of what another scope
shares, and erase removes exactly what no other scope holds. Refusals are
predicted from the arguments and the model: out-of-scope ids, ids that are not memories
(an entity or session passed to amend or retire), closed memories, bad text or dates and
wrong confirmations. Writes into a world whose record was erased succeed.

Write, amend, retire and read may run as a principal with a partial grant (op["as"],
fuzz.grants): a scope outside its grant is NotFound, amending a memory that is also in one is
Forbidden, so is retiring one, and nothing a call returns may name a node or scope outside the
grant.
"""

from __future__ import annotations

from fuzz import grants
from fuzz.learn import adopt
from fuzz.model import MEMORY_TYPES, TEXT_TYPES, Expect
from fuzz.vocabulary import NAMES, RELATIONS, SCOPES, TIMES, WORDS, Violation
from worlddb.core.records import Edge
from worlddb.core.timeutil import parse_time, to_iso
from worlddb.memory.ingest import SessionIn, TurnIn
from worlddb.memory.scopes import ScopeSet

#: what the contract lets memory_amend replace and memory_retire close
AMENDABLE = MEMORY_TYPES
RETIRABLE = (*MEMORY_TYPES, "Fact")

DATES = ("2023-05-01", "2023-05-01T10:00:00Z", "2021-12-31", "1999-01-01")
BAD_DATES = ("2023-02-30", "yesterday", "2023-13-01T00:00:00")
_REL_TEXT = {"lives_in": "lives in", "works_at": "works at", "likes": "likes"}


def run(h, op: dict) -> None:
    globals()["_" + op["op"]](h, op)


def _home(h, op: dict, anchor: str | None) -> ScopeSet:
    """The scope an id-taking call names: op["scope"], or (None) one the node is in - for a
    principal (op["as"]), one of those it is granted if there is one."""
    if op.get("scope") is None and anchor is not None:
        keys = sorted(h.model.scope_keys_of(anchor))
        access = grants.principal(op)
        if access is not None:
            keys = [k for k in keys if access.allows(k)] or keys
        if keys:
            kind, sid = keys[h.steps % len(keys)].split(":", 1)
            return ScopeSet(((kind, sid),))
    return _scopes([op.get("scope") or 0])


def _scopes(op_scopes) -> ScopeSet:
    pairs = list(dict.fromkeys(SCOPES[i % len(SCOPES)] for i in op_scopes)) or [SCOPES[0]]
    return ScopeSet(tuple(pairs))


def _in_scope(h, anchor: str | None, scopes: ScopeSet) -> bool:
    worlds = [h.model.scopes[k] for k in scopes.keys if k in h.model.scopes]
    return anchor is not None and any(anchor in h.model.closure(w) for w in worlds)


def _outside(access, scopes: ScopeSet) -> Expect | None:
    """NotFound if a principal names a scope outside its grant (checked before anything else)."""
    if access is not None and not all(access.allows(k) for k in scopes.keys):
        return Expect("NotFound", f"a scope outside {access.principal}'s grant")
    return None


def _call(h, what: str, expected: Expect | None, call):
    """Run one engine call; judge a refusal; return (result, [(seq, at)...], last seq) or None."""
    before, last = h.snapshot(), h.store.last_seq()
    error, result = None, None
    try:
        result = call()
    except Exception as exc:  # judged: only WorldDBError may leave the engine
        error = exc
    h.judge(what, expected, error, before)
    if error is not None:
        return None
    txs = h.store.conn.execute("SELECT seq, at FROM tx WHERE seq > ? ORDER BY seq", (last,)).fetchall()
    h.tx_times.extend(at for _, at in txs)
    return result, txs, last


# ---------------------------------------------------------------------- operations
def _m_write(h, op: dict) -> None:
    h.counter += 1
    marker = f"q{h.counter:05d}z"
    scopes = _scopes(op["scopes"])
    words = [WORDS[w % len(WORDS)] for w in op.get("words", [])]
    if op.get("template"):
        s, r, o = op["template"]
        words = [NAMES[s % len(NAMES)], _REL_TEXT[RELATIONS[r % len(RELATIONS)]], NAMES[o % len(NAMES)] + "."] + words
    text = " ".join(words + [marker])
    expected = None
    bad = op.get("bad")
    if bad == "blank":
        text, expected = "  \n ", Expect("InvalidInput", "blank text")
    elif bad == "long":
        text, expected = "x" * 32_001, Expect("InvalidInput", "text over the limit")
    vf_code = op.get("vf")
    valid_from = to_iso(TIMES[vf_code]) if vf_code in TIMES else (BAD_DATES[0] if vf_code == "bad" else None)
    if vf_code == "bad":
        expected = expected or Expect("InvalidInput", "bad date")
    entities = None if op.get("entities") is None else [
        {"name": NAMES[i % len(NAMES)] if i >= 0 else " "} for i in op["entities"]]
    facts = None if op.get("facts") is None else [
        {"subject": NAMES[s % len(NAMES)], "relation": RELATIONS[r % len(RELATIONS)], "object": NAMES[o % len(NAMES)]}
        for s, r, o in op["facts"]]
    if entities is not None and any(not e["name"].strip() for e in entities):
        expected = expected or Expect("InvalidInput", "blank entity name")
    if entities is not None and facts is None:
        facts = []
    if facts is not None and entities is None:
        entities = []
    access = grants.principal(op)
    expected = _outside(access, scopes) or expected
    got = _call(h, "write_memory", expected, lambda: h.engine.write_memory(
        text, scopes, valid_from=valid_from, entities=entities, facts=facts, access=access))
    if got is None:
        return
    result, txs, last = got
    if access is not None:
        grants.scan(h, access, "write_memory", result)
    anchors = {scope_node_id(k) for k in scopes.keys}
    new, _ = adopt(h, last, parents=anchors, marker=marker)
    node = h.model.nodes.get(result.id)
    if result.id not in new or node.type != "Memory":
        raise Violation("write_memory did not create a new Memory node")
    if vf_code in TIMES and node.valid_from != TIMES[vf_code]:
        raise Violation(f"memory valid_from {node.valid_from}, asked for {TIMES[vf_code]}")
    if vf_code not in TIMES and not node.valid_from <= txs[-1][1]:
        raise Violation("a memory without valid_from starts after its own transaction")
    for ent in result.entities:
        scope = h.model.scopes.get(ent.scope)
        if ent.id not in h.model.nodes or scope is None or ent.id not in h.model.closure(scope):
            raise Violation(f"entity {ent.name} resolved outside scope {ent.scope}")
        if (ent.resolution == "exact") == (ent.id in new):
            raise Violation(f"entity {ent.name}: resolution {ent.resolution} but new={ent.id in new}")
    h.memories.append(result.id)


def scope_node_id(key: str) -> str:
    from worlddb.core.store import scope_node

    kind, sid = key.split(":", 1)
    return scope_node(kind, sid).id


def _m_amend(h, op: dict) -> None:
    anchor = h.pick(op["memory"])
    scopes = _home(h, op, anchor)
    h.counter += 1
    marker = f"q{h.counter:05d}z"
    text = " ".join([WORDS[w % len(WORDS)] for w in op.get("words", [])] + [marker])
    if anchor is None:
        return
    expected = None
    old_keys = h.model.scope_keys_of(anchor)
    access = grants.principal(op)
    if _outside(access, scopes):
        expected = _outside(access, scopes)
    elif not _in_scope(h, anchor, scopes):
        expected = Expect("NotFound", "not in the caller's scope")
    elif h.model.nodes[anchor].type not in AMENDABLE:
        expected = Expect("InvalidInput", "amending what is not a memory")
    elif h.model.nodes[anchor].valid_to is not None:
        expected = Expect("InvalidInput", "amending a closed memory")
    elif access is not None and not all(access.allows(k) for k in old_keys):
        expected = Expect("Forbidden", "amending a memory also in a scope outside the grant")
    elif op.get("bad") == "blank":
        text, expected = " ", Expect("InvalidInput", "blank text")
    else:
        expected = None
    ident = anchor[:op["prefix"]] if op.get("prefix") else anchor
    got = _call(h, "amend", expected, lambda: h.engine.amend(ident, text, scopes, reason="fuzz", access=access))
    if got is None:
        return
    result, txs, last = got
    if access is not None:
        grants.scan(h, access, "amend", result)
    starts = parse_time(result.valid_from)
    old_from = h.model.nodes[anchor].valid_from
    if starts < old_from or (old_from <= txs[-1][1] and starts > txs[-1][1]):
        raise Violation(f"amendment starts at {starts}, old memory at {old_from}, transaction at {txs[-1][1]}")
    if set(result.scopes) != old_keys:
        raise Violation(f"amendment landed in {result.scopes}, the old memory is in {sorted(old_keys)}")
    new, _ = adopt(h, last, parents={h.model.scopes[k] for k in old_keys}, marker=marker,
                    amended=(anchor, starts))
    if result.id not in new or result.supersedes != anchor:
        raise Violation("amend did not write a new memory superseding the old one")
    h.memories.append(result.id)


def _retire_in_model(h, anchor: str, at: int, wrong: bool) -> bool:
    """memory_retire as the model says: the node and the facts only it supports are retired, and,
    retired as never true (`wrong`, or before it begins), the validity of each ends where it began
    and each of them ends nothing any more (`_undo`). A node retired before and held at some time,
    retired again with `wrong`, is retired as never true so, with the retired facts only it
    supports; any other retire of a retired node changes nothing."""
    model = h.model
    node = model.nodes[anchor]
    never = wrong or node.valid_from > at
    again = wrong and node.retired_at is not None and _held(node)
    if never and (node.retired_at is None or again) and _held(node):
        model.close(anchor, node.valid_from, at=at)
    changed = model.retire(anchor, at=at)
    if changed or again:
        facts = []
        for e in [e for e in model.live_edges("derived_from") if e.dst == anchor]:
            sources = [x.dst for x in model.live_edges("derived_from") if x.src == e.src]
            if [s for s in sources if s != anchor and model.nodes[s].valid_to is None]:
                continue
            if model.retire(e.src, at=at) if changed else model.nodes[e.src].retired_at is not None:
                facts.append(e.src)
        for fact in facts if never else []:
            if _held(model.nodes[fact]):
                model.close(fact, model.nodes[fact].valid_from, at=at)
        for retired in [anchor, *facts] if never else []:
            _undo(model, retired, at)
    return changed or again


def _undo(model, anchor: str, at: int) -> None:
    """What a node retired as never true ended holds again: its supersedes and revises edges go
    (the model withdraws what was closed in their names). Of what it superseded, whatever still
    holds when the first node that superseded it and holds begins is superseded by that one
    instead, as if the retired node had never been - and a memory's facts with it."""
    ended = [e for e in model.live_edges() if e.src == anchor and e.type in ("supersedes", "revises")]
    for e in ended:
        model.unlink(Edge(e.type, e.src, e.dst), at=at)
    after = sorted((model.nodes[e.src] for e in model.live_edges("supersedes") if e.dst == anchor),
                   key=lambda n: (n.valid_from, n.anchor))
    for heir in [n for n in after if _holds(n)]:
        for old in [model.nodes[e.dst] for e in ended if e.type == "supersedes"]:
            if old.retired_at is None and heir.valid_from > old.valid_from and (
                    old.valid_to is None or old.valid_to > heir.valid_from):
                edge = Edge("supersedes", heir.anchor, old.anchor)
                model.link(edge, at=at)
                for d in [d for d in model.live_edges("derived_from") if d.dst == old.anchor]:
                    fact = model.nodes[d.src]
                    if fact.retired_at is None:
                        model.close(d.src, max(heir.valid_from, fact.valid_from), at=at, cause=edge.id)


def _holds(node) -> bool:
    """Not retired, and its validity not empty."""
    return node.retired_at is None and _held(node)


def _held(node) -> bool:
    """Its validity not empty, retired or not."""
    return node.valid_to is None or node.valid_to > node.valid_from


def _m_retire(h, op: dict) -> None:
    anchor = h.pick(op["memory"])
    scopes = _home(h, op, anchor)
    if anchor is None:
        return
    access = grants.principal(op)
    expected = None if _in_scope(h, anchor, scopes) else Expect("NotFound", "not in the caller's scope")
    if expected is None and h.model.nodes[anchor].type not in RETIRABLE:
        expected = Expect("InvalidInput", "retiring what is not a memory")
    if expected is None and access is not None and not all(access.allows(k) for k in h.model.scope_keys_of(anchor)):
        expected = Expect("Forbidden", "retiring a memory also in a scope outside the grant")
    expected = _outside(access, scopes) or expected
    wrong = op.get("wrong", True)  # (saved examples before the flag retired as never true)
    got = _call(h, "retire", expected, lambda: h.engine.retire(anchor, scopes, reason="fuzz", wrong=wrong,
                                                                access=access))
    if got is None:
        return
    result, txs, last = got
    if access is not None:
        grants.scan(h, access, "retire", result)
    h.model.begin()
    changed = _retire_in_model(h, anchor, txs[-1][1], wrong)
    h.model.commit()
    if result.already_retired == changed:
        raise Violation(f"retire reported already_retired={result.already_retired}, model changed={changed}")


def _m_retire_all(h, op: dict) -> None:
    scopes = _scopes(op["scopes"])
    missing = [k for k in scopes.keys if k not in h.model.scopes]
    expected = Expect("NotFound", "retire_all of a scope that does not exist") if missing else None
    got = _call(h, "retire_all", expected, lambda: h.engine.retire_all(scopes))
    if got is None:
        return
    result, txs, last = got
    model, at = h.model, txs[-1][1]
    members = set().union(*[model.closure(model.scopes[k]) for k in scopes.keys if k in model.scopes])
    # (the count is of the memories and turns that were current or still to come, as
    # memory_list_scopes counts them; facts, summaries and texts already closed are retired uncounted)
    current = {n for n in members if model.nodes[n].type in MEMORY_TYPES and _open_after(model.nodes[n], at)}
    model.begin()
    count = sum(model.retire(n, at=at) and n in current for n in members
                if model.nodes[n].type in TEXT_TYPES + ("Fact",) and model.nodes[n].retired_at is None)
    model.commit()
    if result.retired != count:
        raise Violation(f"retire_all retired {result.retired}, model expected {count}")


def _open_after(node, at: int) -> bool:
    """Whether a model node is still valid after `at`: not closed by then (a planned change may
    end it later), nor closed at its start (amended when it began)."""
    return node.valid_to is None or node.valid_to > max(at, node.valid_from)


def _m_purge(h, op: dict) -> None:
    kind, sid = SCOPES[op["scope"] % len(SCOPES)]
    key = f"{kind}:{sid}"
    scopes = _scopes([op["scope"], op["scope"] + 1]) if op.get("multi") else ScopeSet(((kind, sid),))
    confirm = key if op.get("confirm", "ok") == "ok" else key.upper() + " "
    erase = bool(op.get("erase"))
    model = h.model
    if len(scopes) != 1 or confirm != key:
        expected = Expect("InvalidInput", "purge needs one scope and its key")
    elif key not in model.scopes:
        expected = Expect("NotFound", "no such scope")
    else:
        expected = model.refusal(lambda: _let_go(model, model.scopes[key], erase))
    got = _call(h, "purge_scope", expected, lambda: h.engine.purge_scope(scopes, confirm, erase=erase))
    if got is None:
        return
    result, txs, last = got
    at, anchor = txs[-1][1], model.scopes[key]
    members = model.closure(anchor)
    alone = _alone(model, anchor)
    # erased counts what this purge erases: not what an earlier purge of the scope erased
    fresh = sum(not model.nodes[n].erased for n in alone) if erase else 0
    model.begin()
    # only what belongs to this scope alone is retired; a shared node is let go of instead
    # (the scope's own contains edge to it goes), so it stays current in its other scopes
    current = {n for n in alone if model.nodes[n].type in MEMORY_TYPES and _open_after(model.nodes[n], at)}
    retired = sum(model.retire(n, at=at) and n in current for n in sorted(alone)
                  if model.nodes[n].retired_at is None and model.nodes[n].type != "Scope")
    _let_go(model, anchor, erase)
    model.retire(anchor, at=at)
    model.commit()
    want = (retired, fresh, len(members) - len(alone))
    if (result.retired, result.erased, result.kept_shared) != want:
        raise Violation(f"purge reported {(result.retired, result.erased, result.kept_shared)}, model {want}")


def _alone(model, anchor: str) -> list[str]:
    """The members of a scope that no other scope holds."""
    others = set(model.scopes.values()) - {anchor}
    return [n for n in model.closure(anchor) if not (model.ancestors(n) & others)]


def _let_go(model, anchor: str, erase: bool) -> None:
    """The structural part of a purge: unlink shared members, erase the rest if asked."""
    alone = _alone(model, anchor)
    for child in sorted({e.dst for e in model.live_edges("contains") if e.src == anchor} - set(alone)):
        model.unlink(Edge("contains", anchor, child), at=0)
    for n in alone if erase else ():
        model.erase(n)


def _m_ingest(h, op: dict) -> None:
    scopes = _scopes(op["scopes"])
    sessions, expected = [], None
    for spec in op["sessions"]:
        date = BAD_DATES[1] if spec["date"] == "bad" else DATES[spec["date"] % len(DATES)]
        if spec["date"] == "bad":
            expected = expected or Expect("InvalidInput", "bad session date")
        turns = []
        for speaker, words in spec["turns"]:
            name = NAMES[speaker % len(NAMES)] if speaker >= 0 else " "
            if speaker < 0:
                expected = expected or Expect("InvalidInput", "a turn without a speaker")
            turns.append(TurnIn(speaker=name, text=" ".join(WORDS[w % len(WORDS)] for w in words) or "ok"))
        h.counter += 1
        sessions.append(SessionIn(date=date, turns=tuple(turns), name=f"session {h.counter}"))
    if not sessions:
        expected = Expect("InvalidInput", "no sessions")
    got = _call(h, "ingest_conversation", expected, lambda: h.engine.ingest_conversation(sessions, scopes))
    if got is None:
        return
    result, txs, last = got
    new, _ = adopt(h, last, parents={scope_node_id(k) for k in scopes.keys})
    for session, spec in zip(result.sessions, sessions):
        start = parse_time(spec.date)
        if h.model.nodes[session].valid_from != start:
            raise Violation("session valid_from is not its date")
    for anchor in result.turns.values():
        node = h.model.nodes[anchor]
        if node.type != "Turn":
            raise Violation("ingest returned a turn id that is not a Turn")


def _m_read(h, op: dict) -> None:
    anchor = h.pick(op["memory"])
    scopes = _home(h, op, anchor)
    if anchor is None:
        return
    inside = _in_scope(h, anchor, scopes)
    access = grants.principal(op)
    expected = _outside(access, scopes) or (None if inside else Expect("NotFound", "not in the caller's scope"))
    got = _call(h, "read_memory", expected, lambda: h.engine.read_memory(anchor, scopes, access=access))
    if got is None:
        return
    detail = got[0]
    if access is not None:
        grants.scan(h, access, "read_memory", detail)
    node = h.model.nodes[anchor]
    retired = node.retired_at is not None
    if detail.id != anchor or detail.valid_to != to_iso(node.valid_to) or detail.retired != retired:
        raise Violation("read_memory disagrees with the model about the memory's validity")
    if (detail.text is None) != node.erased:
        raise Violation("read_memory: erased content must read as None, and only erased content")
    inside = set().union(*[h.model.closure(h.model.scopes[k]) for k in scopes.keys if k in h.model.scopes])
    named = detail.supersedes + detail.superseded_by + detail.contradicts + [f.id for f in detail.facts]
    if any(n not in inside for n in named):
        raise Violation("read_memory named a node outside the caller's scopes "
                        f"({[h.model.nodes[n].type for n in named if n not in inside]})")

