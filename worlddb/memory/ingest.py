"""Conversations: Session worlds of Turn nodes chained by precedes, through the same write path.

Two ways in, one way of writing:
  - `ingest_conversation` (Python API): a list of sessions, each with a date and turns
    (speaker, text, optional id and image caption). Every session's date and turns are
    checked before the first one is written, so bad input anywhere writes nothing; then
    one transaction per session, each session's model step running while the session
    before it commits (worlddb.memory.ahead).
  - memory_write with `messages` (worlddb.memory.messages): one call's messages are turns of
    one session, in one transaction; a later call with the same caller session id in the
    same scopes continues that session's world and chain (the `sessions` table keeps,
    per scope and id, the Session world, its latest turn and its length).

Each session is a Session world inside the scopes, valid from the session's time, holding
one Turn node per turn, valid from its own time (the session's unless a message gives
one); consecutive turns are linked by precedes edges inside the session world; every turn
refers_to its speaker's entity and to the entities the extractor finds in it (resolved in
each scope, never merged silently). A generic role is no one's name (`speaker_entity`): "user"
is the scope's user - whom a plain memory_write's "I" means - and assistant, system and tool
turns have no speaker entity, so no entity is ever named after a role. Extraction and every
embedding - turn texts, their sentence units and the session's content in one model call,
then the entity names that may need a vector (not those that already resolve exactly in every
scope) - are computed before the transaction opens, in the steps worlddb.memory.write describes
(`prepare_session`, then `commit_session`); in `prepare_session` the model runs on a thread of
its own while the turns are read for entities and slot claims.

Once a scope has topic worlds, each turn also joins the topic nearest to it
(worlddb.consolidator.topics) in the same transaction.

A session's effective embedding is composed from its turns' by the composer (attention
pool with the session's content - who spoke, and when - as the query), kept current as
turns arrive.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from worlddb.consolidator import topics
from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node, NodeView
from worlddb.core.timeutil import parse_time, to_datetime, to_iso
from worlddb.extract import GENERIC_ROLES, EntityCandidate, ExtractionContext
from worlddb.extract.slots import ReadingParts
from worlddb.graph import text_index
from worlddb.graph.database import Writer
from worlddb.memory import claims, readings, turn_updates
from worlddb.memory.ahead import beside, one_ahead
from worlddb.memory.results import EntityOut
from worlddb.memory.scopes import ScopeSet, scope_anchors, scope_keys_of
from worlddb.memory.services import Services
from worlddb.memory.write import Mentions, complete, known_mentions, resolve_mention
from worlddb.retrieval import claims as claims_index
from worlddb.vectors import hnsw


@dataclass(frozen=True)
class TurnIn:
    speaker: str
    text: str
    turn_id: str | None = None
    caption: str | None = None


@dataclass(frozen=True)
class SessionIn:
    date: str | int
    turns: tuple[TurnIn, ...]
    name: str | None = None


@dataclass(frozen=True)
class IngestResult:
    scopes: list[str]
    sessions: list[str]
    turns: dict[str, str]  # turn_id (or index) -> anchor


@dataclass(frozen=True)
class Turn:
    """One turn as it is written: who, what, when (its valid-from, microseconds). `timed`: the
    caller gave its time (else it was taken from the turn before it, or the session's)."""

    speaker: str
    text: str
    at: int
    turn_id: str | None = None
    caption: str | None = None
    timed: bool = False


@dataclass(frozen=True)
class SessionPlan:
    """One session's turns and how its world is named, before anything is written.

    `key` is the caller's session id: with one, the session stored under that id in every
    scope is continued (or started, and recorded under it). `known_names` are the speakers
    the extractor is told about (a conversation's, across its sessions). With `own_turns`,
    each turn's record names its session world, so the same words said in another session,
    or again later in this one, are a turn of their own; without (ingest), the same
    conversation ingested twice is the same records. `created_at` stamps the session's
    record (default: its start)."""

    turns: list[Turn]
    start: int
    name: str
    meta: dict
    tool: str
    source: str
    known_names: tuple[str, ...]
    key: str | None = None
    own_turns: bool = False
    created_at: int | None = None
    #: each turn's place among the call's messages, where some were left out (already stored)
    numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class SessionWritten:
    session: str
    turns: list[str]
    entities: list[EntityOut] = field(default_factory=list)
    continued: bool = False
    #: earlier turns these turns changed (revises edges from them: worlddb.memory.turn_updates)
    revised: list[str] = field(default_factory=list)
    #: stored turns and memories, dated after some of these turns, that change them
    revised_by: list[str] = field(default_factory=list)


def ingest_conversation(services: Services, scopes: ScopeSet, sessions: list[SessionIn], *,
                        source: str = "conversation") -> IngestResult:
    if not sessions:
        raise InvalidInput("a conversation needs at least one session")
    speakers = tuple(sorted({t.speaker for s in sessions for t in s.turns if isinstance(t.speaker, str)}))
    plans = []
    for number, session in enumerate(sessions, start=1):  # all of them, before session 1 commits
        start = parse_time(session.date, field="session date")
        turns = [Turn(t.speaker, t.text, start, t.turn_id, t.caption) for t in session.turns]
        for turn in turns:
            check_turn(turn)
        plans.append(SessionPlan(turns=turns, start=start, name=session.name or f"session {number}",
                                 meta={"number": number, "source": source}, tool="ingest", source=source,
                                 known_names=speakers))
    session_ids: list[str] = []
    turn_ids: dict[str, str] = {}
    # each session's model step runs while the one before it commits (worlddb.memory.ahead)
    with closing(one_ahead(partial(prepare_session, services, scopes), plans)) as ready:
        committed = [commit_session(services, complete(services, prepared())) for _, prepared in ready]
    for number, (plan, written) in enumerate(zip(plans, committed), start=1):
        session_ids.append(written.session)
        for i, (turn, anchor) in enumerate(zip(plan.turns, written.turns)):
            turn_ids[turn.turn_id or f"{number}:{i + 1}"] = anchor
    return IngestResult(scopes=scopes.keys, sessions=session_ids, turns=turn_ids)


@dataclass(frozen=True)
class PreparedSession:
    """A session's turns ready to commit (worlddb.memory.write explains the steps): the world
    and turn shapes, each turn's mentions and index vectors, the session content's vector, and
    the mentions to resolve with the name vectors made so far."""

    scopes: ScopeSet
    plan: SessionPlan
    world: Node
    provenance: dict
    found: tuple[list[EntityCandidate], ...]
    index: tuple[text_index.Prepared, ...]
    content: np.ndarray
    mentions: Mentions
    #: each turn's speaker entity (`speaker_entity`), None for a role that names no one
    speakers: tuple[str | None, ...] = ()
    #: each turn's words the extractor could not tell from names (Extraction.unsure)
    unsure: tuple[tuple[EntityCandidate, ...], ...] = ()
    #: each turn's slot claims (worlddb.memory.turn_updates)
    claims: turn_updates.Readings = turn_updates.Readings()

    def with_names(self, vectors: Mapping[str, np.ndarray]) -> PreparedSession:
        return replace(self, mentions=self.mentions.with_vectors(vectors))

    def only(self, keep: Sequence[int]) -> PreparedSession:
        """The same session with only the turns at the indexes `keep` (in order)."""
        def pick(values: Sequence) -> tuple:
            return tuple(values[i] for i in keep) if values else tuple(values)

        claims = self.claims
        if claims.readings:
            moved = {old: new for new, old in enumerate(keep)}
            claims = replace(claims, readings=pick(claims.readings), keys=pick(claims.keys),
                             restating=frozenset(moved[i] for i in claims.restating if i in moved))
        numbers = tuple(self.plan.numbers[i] if self.plan.numbers else i for i in keep)
        plan = replace(self.plan, turns=[self.plan.turns[i] for i in keep], numbers=numbers)
        return replace(self, plan=plan, found=pick(self.found), index=pick(self.index), speakers=pick(self.speakers),
                       unsure=pick(self.unsure), claims=claims)


def prepare_session(services: Services, scopes: ScopeSet, plan: SessionPlan) -> PreparedSession:
    """The model's part of writing a session: extraction of every turn, and one model call for
    the turn texts, their sentence units and the session's content. Reads nothing from the store."""
    # what the session is, as the composer's query over its turns: when, and who spoke
    speakers_here = sorted({t.speaker for t in plan.turns})
    about = f"Conversation between {', '.join(speakers_here)} on {text_index.render_date(plan.start)}"
    provenance = {"scopes": scopes.keys, "tool": plan.tool, "source": plan.source}
    world = Node("Session", name=plan.name, content=about, meta=plan.meta, provenance=provenance,
                 created_at=plan.start if plan.created_at is None else plan.created_at)
    user = next((sid for kind, sid in scopes if kind == "user"), None)
    speakers = tuple(speaker_entity(t.speaker, user) for t in plan.turns)
    known = tuple(dict.fromkeys(n for n in (speaker_entity(k, user) for k in plan.known_names) if n))
    # The index text does not depend on where in the session a turn lands, so turns are
    # embedded before the transaction says whether the session continues an earlier one;
    # nor on what the readings below find, so the model runs on a thread of its own while
    # the turns are read for entities and claims (onnxruntime releases the GIL)
    shapes = [turn_node(t, t.at, provenance) for t in plan.turns]
    embedded = beside(text_index.prepare_with, services.embedder, services.encoder,
                      [(node, t.at) for node, t in zip(shapes, plan.turns)],
                      also=[world.content], form=services.vector_text)
    mentions, unsure = [], []
    for turn, speaker in zip(plan.turns, speakers):
        found = services.extractor.extract(turn.text, ExtractionContext(
            timestamp=to_datetime(turn.at), speaker=speaker, known_names=known))
        mentions.append([e for e in found.entities if e.name.strip()])
        unsure.append(tuple(e for e in found.unsure if e.name.strip()))
    readings = turn_updates.read([t.text for t in plan.turns], [t.speaker for t in plan.turns], user)
    index, others = embedded.result()
    people = known or tuple(dict.fromkeys(s for s in speakers if s))
    candidates = [EntityCandidate(name=s, type="person") for s in people]
    names = Mentions(((scopes, tuple(candidates + [e for group in mentions for e in group])),))
    return PreparedSession(scopes=scopes, plan=plan, world=world, provenance=provenance, found=tuple(mentions),
                           index=tuple(index), content=others[world.content], mentions=names, speakers=speakers,
                           unsure=tuple(unsure), claims=readings)


def speaker_entity(role: str, user: str | None) -> str | None:
    """The person a turn's speaker (a message's role) names: the scope's user (`user`, None
    without a user scope) for "user", no one for the other generic roles (assistant, system,
    tool), else the name as given."""
    folded = role.strip().casefold()
    if folded == "user":
        return user
    return None if folded in GENERIC_ROLES else role


def commit_session(services: Services, prepared: PreparedSession,
                   granted: Callable[[str], bool] | None = None) -> SessionWritten:
    """Write a prepared session's turns in one transaction. `granted`: turn_updates.apply's (a
    caller not granted every scope of a memory its turns change marks it and closes nothing)."""
    scopes, plan, world, provenance = prepared.scopes, prepared.plan, prepared.world, prepared.provenance
    content, names = prepared.content, services.resolver.prepared(dict(prepared.mentions.vectors))
    model, dim = services.embedder.model_id, services.embedder.dim
    anchors: list[str] = []
    entities: dict[tuple[str, str], EntityOut] = {}
    # which earlier turns these change, decided before the lock (a judge may be a model)
    changes = turn_updates.assess(services, scope_anchors(services.store, scopes), prepared.claims,
                                  [t.at for t in plan.turns], [t.text for t in plan.turns],
                                  [index.vector for index in prepared.index], [index.units for index in prepared.index],
                                  preceding=None if plan.key is None else
                                  lambda n: stored_turns(services.store, scope_anchors(services.store, scopes),
                                                         plan.key, n)[1])
    with services.db.write(plan.tool) as w:
        worlds = [w.scope(kind, sid) for kind, sid in scopes]
        earlier = find_session(w, worlds, scopes, plan.key) if plan.key is not None else None
        if earlier is None:
            session_anchor, previous, position = w.add(world, valid_from=plan.start, parents=worlds), None, 0
            # a session already stored (the same conversation ingested again) keeps its index
            # rows; if it was erased, it stays a tombstone - its text is not indexed again
            if content is not None and w.is_new(session_anchor):
                # the session's content is the composer's attention query: it must be there first
                w.put_vector(session_anchor, hnsw.CONTENT, model, text_index.as_blob(content), dim)
        else:
            session_anchor, previous, position = earlier
            _check_continues(w, plan, previous)
        turn_provenance = {**provenance, "session": session_anchor} if plan.own_turns else provenance
        for i, (turn, index, found, speaker, unsure) in enumerate(zip(plan.turns, prepared.index, prepared.found,
                                                                      prepared.speakers, prepared.unsure)):
            node = turn_node(turn, turn.at + position + i, turn_provenance)
            anchor = w.add(node, valid_from=turn.at, parents=[session_anchor])
            if w.is_new(anchor):
                text_index.write_index(w, anchor, index, model, dim)
                for scope_world in worlds:
                    topics.join(w, scope_world, anchor, index.vector)
                found_keys = prepared.claims.keys[i] if prepared.claims.keys else frozenset()
                claims.record(w, worlds, anchor, claims_index.for_turn(found_keys))
                if prepared.claims.readings:
                    readings.record(w, anchor, ReadingParts.of(prepared.claims.readings[i]), prepared.claims.user,
                                    turn.speaker or "")
            for scope_world, key in zip(worlds, scopes.keys):
                said_by = [EntityCandidate(name=speaker, type="person")] if speaker is not None else []
                for cand in said_by + found + known_mentions(services, scope_world, unsure):
                    entity = resolve_mention(services.resolver, w, scope_world, key, cand, names)
                    entities.setdefault((entity.id, key), entity)
                    role = "speaker" if cand.name == speaker else "mention"
                    w.link(Edge("refers_to", anchor, entity.id, props={"role": role}))
            if previous is not None:
                w.link(Edge("precedes", previous, anchor, world=session_anchor))
            previous = anchor
            anchors.append(anchor)
        marked = turn_updates.apply(services, w, anchors, changes, granted)
        # a session given no id is known by its own, which the write returns: a later call that
        # sends it continues the session
        record_session(w, worlds, plan.key if plan.key is not None else session_anchor, session_anchor, previous,
                       position + len(plan.turns))
    services.resolver.after_write(anchors)
    return SessionWritten(session=session_anchor, turns=anchors, entities=list(entities.values()),
                          continued=earlier is not None, revised=marked.revised, revised_by=marked.revised_by)


def _check_continues(w: Writer, plan: SessionPlan, last_turn: str) -> None:
    """A session continued goes on from its last turn: the first new turn may not be dated
    before it."""
    last = w.store.get(last_turn)
    if last is not None and plan.turns and plan.turns[0].at < last.valid_from:
        first = plan.numbers[0] if plan.numbers else 0
        raise InvalidInput(f"messages[{first}] ({to_iso(plan.turns[0].at)}) is before the last turn of session "
                           f"{plan.key!r} ({to_iso(last.valid_from)}): a session goes on from where it stopped; date "
                           "the messages from then on, or give a new session id")


def find_session(w: Writer, worlds: list[str], scopes: ScopeSet, key: str) -> tuple[str, str, int] | None:
    """(session world, its latest turn, how many turns it holds) stored under the caller's
    session id `key` in these scope worlds, read inside the write that continues it; None for
    a session not started yet in any of them, or one since retired or erased (the next call
    with its id starts a new one). A session held by only some of the scopes, or by
    different sessions in different scopes, is refused: continue it with the scopes it
    was started with."""
    found = _held(w, worlds, "x.ref = ?", key)
    if all(f is None for f in found) and re.fullmatch(r"[0-9a-f]{64}", key):
        # the session's own id, as a write's result gives it, continues it as its caller's id does
        session = w.tx.rowid(key)
        found = _held(w, worlds, "x.session = ?", session) if session is not None else found
    if all(f is None for f in found):
        return None
    if any(f is None or f[0] != found[0][0] for f in found):
        held = [k for k, f in zip(scopes.keys, found) if f is not None]
        raise InvalidInput(f"session {key!r} was started in {', '.join(held)}, not in exactly these scopes "
                           f"({', '.join(scopes.keys)}); continue it with the scopes it was started with, "
                           "or give a new session id")
    if set(scope_keys_of(w.store, found[0][0])) != set(scopes.keys):
        # a session also held by a scope not named here: its new turns would land there too, a
        # scope the caller did not name and may not be granted (which is not named back to it)
        raise InvalidInput(f"session {key!r} is held by other scopes than exactly these ({', '.join(scopes.keys)}); "
                           "continue it with the scopes that hold it, or give a new session id")
    return found[0]


def stored_turns(store, worlds: list[str], key: str, latest: int) -> tuple[str | None, list[NodeView]]:
    """(the live session the caller's id `key` - or the session's own id - names in every one of
    `worlds`, its `latest` newest turns, oldest first), read outside any write; (None, []) for
    none. The turns are read back along the precedes chain from the session's last turn, so a
    call that adds to a long session reads no more of it than it sends."""
    found = set()
    for world in worlds:
        rows = store.conn.execute(
            "SELECT s.anchor, t.anchor FROM sessions x JOIN nodes s ON s.rowid = x.session "
            "JOIN nodes t ON t.rowid = x.last_turn WHERE x.scope = "
            "(SELECT rowid FROM nodes WHERE anchor = ?) AND (x.ref = ? OR s.anchor = ?) LIMIT 1",
            (world, key, key)).fetchall()
        found.add(tuple(rows[0]) if rows else None)
    session, last = found.pop() if len(found) == 1 and None not in found else (None, None)
    view = store.get(session) if session is not None else None
    if view is None or view.erased or view.valid_to is not None:
        return None, []
    chain = [last]
    while len(chain) < latest and (before := store.ends(chain[-1], "precedes", "in")):
        chain.append(before[0])
    turns = store.get_many(chain)
    return session, [turns[a] for a in reversed(chain) if a in turns and turns[a].type == "Turn"]


def _held(w: Writer, worlds: list[str], condition: str, value) -> list[tuple[str, str, int] | None]:
    """Per scope world, (session world, latest turn, turns) of the live session its `sessions` row
    matching `condition` names, else None."""
    out = []
    for world in worlds:
        row = w.tx.conn.execute(
            "SELECT s.anchor, t.anchor, x.turns FROM sessions x JOIN nodes s ON s.rowid = x.session "
            f"JOIN nodes t ON t.rowid = x.last_turn WHERE x.scope = ? AND {condition} LIMIT 1",
            (w.tx.rowid(world), value)).fetchone()
        live = row is not None and (view := w.store.get(row[0])) is not None and not view.erased \
            and view.valid_to is None
        out.append(tuple(row) if live else None)
    return out


def record_session(w: Writer, worlds: list[str], key: str, session: str, last_turn: str, turns: int) -> None:
    rows = [(w.tx.rowid(world), key, w.tx.rowid(session), w.tx.rowid(last_turn), turns) for world in worlds]
    w.tx.conn.executemany("INSERT INTO sessions(scope, ref, session, last_turn, turns) VALUES (?,?,?,?,?) "
                          "ON CONFLICT(scope, ref) DO UPDATE SET session=excluded.session, "
                          "last_turn=excluded.last_turn, turns=excluded.turns", rows)
    # every id the session is known by (the caller's, its own) goes on from the same turn
    w.tx.conn.executemany("UPDATE sessions SET last_turn = ?, turns = ? WHERE scope = ? AND session = ?",
                          [(last, count, world, held) for world, _, held, last, count in rows])


def check_turn(turn: Turn) -> None:
    if not isinstance(turn.text, str) or not isinstance(turn.speaker, str) or not turn.speaker.strip():
        raise InvalidInput("every turn needs a speaker and text")


#: a turn's meta that is its message's alone (the caller's ref, a caption of its photo), beside
#: who said it
TURN_ONLY_META = ("turn_id", "caption")


def turn_node(turn: Turn, created_at: int, provenance: dict) -> Node:
    meta = {"speaker": turn.speaker}
    if turn.turn_id:
        meta["turn_id"] = turn.turn_id
    if turn.caption:
        meta["caption"] = turn.caption
    return Node("Turn", name=turn.speaker, content=turn.text, meta=meta, provenance=provenance,
                created_at=created_at)
