"""Bulk ingest of a whole conversation into a scope, through the same write path.

A conversation is a list of sessions, each with a date and timestamped turns (speaker,
text, optional id and image caption). Each session becomes a Session world inside the
scope, valid from the session date, holding one Turn node per turn; consecutive turns
are linked by precedes edges inside the session world; every turn refers_to its
speaker's entity and to the entities the extractor finds in it (resolved in the scope,
never merged silently). One transaction per session; embeddings are computed in one
batch per session before the transaction opens. Every session's date and turns are
checked before the first one is written, so bad input anywhere writes nothing.

A session's effective embedding is composed from its turns' by the composer (attention
pool with the session's content - who spoke, and when - as the query), kept current as
turns arrive.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from worlddb.core.errors import InvalidInput
from worlddb.core.records import Edge, Node
from worlddb.core.timeutil import parse_time
from worlddb.extract import EntityCandidate, ExtractionContext
from worlddb.graph import text_index
from worlddb.memory.scopes import ScopeSet
from worlddb.memory.services import Services
from worlddb.memory.write import resolve_mention
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


def ingest_conversation(services: Services, scopes: ScopeSet, sessions: list[SessionIn], *,
                        source: str = "conversation") -> IngestResult:
    if not sessions:
        raise InvalidInput("a conversation needs at least one session")
    for session in sessions:  # all of them, before session 1 commits
        start = parse_time(session.date, field="session date")
        for i, turn in enumerate(session.turns):
            _turn_node(turn, i, start, scopes, source)
    session_ids: list[str] = []
    turn_ids: dict[str, str] = {}
    speakers = sorted({t.speaker for s in sessions for t in s.turns})
    for number, session in enumerate(sessions, start=1):
        anchor, turns = _ingest_session(services, scopes, session, number, speakers, source)
        session_ids.append(anchor)
        turn_ids.update(turns)
    return IngestResult(scopes=scopes.keys, sessions=session_ids, turns=turn_ids)


def _ingest_session(services: Services, scopes: ScopeSet, session: SessionIn, number: int,
                    speakers: list[str], source: str) -> tuple[str, dict[str, str]]:
    start = parse_time(session.date, field="session date")
    moment = datetime.fromtimestamp(start / 1e6, tz=UTC)
    name = session.name or f"session {number}"
    # what the session is, as the composer's query over its turns: when, and who spoke
    speakers_here = sorted({t.speaker for t in session.turns})
    about = f"Conversation between {', '.join(speakers_here)} on {text_index.render_date(start)}"
    world = Node("Session", name=name, content=about, meta={"number": number, "source": source},
                 provenance={"scopes": scopes.keys, "tool": "ingest", "source": source}, created_at=start)
    turns = [_turn_node(t, i, start, scopes, source) for i, t in enumerate(session.turns)]
    mentions = []
    for turn in session.turns:
        found = services.extractor.extract(turn.text, ExtractionContext(
            timestamp=moment, speaker=turn.speaker, known_names=tuple(speakers)))
        mentions.append([e for e in found.entities if e.name.strip()])
    candidates = [EntityCandidate(name=s, type="person") for s in speakers]
    names = candidates + [e for group in mentions for e in group]
    # one model call: turn texts, their sentence units, entity names and the session's content
    prepared_index, others = text_index.prepare_with(
        services.embedder, services.encoder, [(node, start) for node in turns],
        also=services.resolver.name_texts(names) + [world.content])
    content = others[world.content]
    prepared = services.resolver.prepare(names, vectors=others)
    model, dim = services.embedder.model_id, services.embedder.dim
    out: dict[str, str] = {}
    with services.db.write("ingest") as w:
        worlds = [w.scope(kind, sid) for kind, sid in scopes]
        session_anchor = w.add(world, valid_from=start, parents=worlds)
        # a session or turn already stored (the same conversation ingested again) keeps its
        # index rows; if it was erased, it stays a tombstone - its text is not indexed again
        if content is not None and session_anchor in w.receipt.nodes:
            # the session's content is the composer's attention query: it must be there first
            w.put_vector(session_anchor, hnsw.CONTENT, model, text_index.as_blob(content), dim)
        previous = None
        for i, (node, index, found) in enumerate(zip(turns, prepared_index, mentions)):
            anchor = w.add(node, valid_from=start, parents=[session_anchor])
            if anchor in w.receipt.nodes:
                text_index.write_index(w, anchor, index, model, dim)
            for scope_world, key in zip(worlds, scopes.keys):
                people = [EntityCandidate(name=node.meta["speaker"], type="person")] + found
                for cand in people:
                    entity = resolve_mention(services.resolver, w, scope_world, key, cand, prepared)
                    role = "speaker" if cand.name == node.meta["speaker"] else "mention"
                    w.link(Edge("refers_to", anchor, entity.id, props={"role": role}))
            if previous is not None:
                w.link(Edge("precedes", previous, anchor, world=session_anchor))
            previous = anchor
            out[session.turns[i].turn_id or f"{number}:{i + 1}"] = anchor
    services.resolver.after_write(list(out.values()))
    return session_anchor, out


def _turn_node(turn: TurnIn, index: int, start: int, scopes: ScopeSet, source: str) -> Node:
    if not isinstance(turn.text, str) or not isinstance(turn.speaker, str) or not turn.speaker.strip():
        raise InvalidInput("every turn needs a speaker and text")
    meta = {"speaker": turn.speaker}
    if turn.turn_id:
        meta["turn_id"] = turn.turn_id
    if turn.caption:
        meta["caption"] = turn.caption
    return Node("Turn", name=turn.speaker, content=turn.text, meta=meta,
                provenance={"scopes": scopes.keys, "tool": "ingest", "source": source}, created_at=start + index)

