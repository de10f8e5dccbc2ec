"""memory_write and memory_amend: extract -> resolve -> reconcile -> commit.

1. Extract. Entities/facts the client passed are the extraction; otherwise the
   configured extractor runs (built-in: deterministic, no model).
2. Prepare, outside the write lock: the text's embedding and the resolver's name vectors.
   A write is done in steps (`prepare`, `names_to_embed` and `embed_names`, `commit`), so that
   an async caller can run the model's steps off the thread that owns the connection
   (worlddb.memory.aio): `prepare` runs the extractor and embeds the index texts and sentence
   units and reads nothing from the store; `names_to_embed` reads which entity names may need
   a vector (all but those that resolve exactly in every scope); `embed_names` makes those;
   `commit` judges and writes, in one transaction. The value passed between the steps
   (`PreparedWrite`) carries everything made so far; `write_many` runs the steps in turn.
3. In one transaction: the scope worlds, the Memory node inside each, its FTS row and
   vectors, and in each scope the topic world nearest to it (worlddb.consolidator.topics,
   once the scope has topics); per scope, each entity mention resolved (exact reuse, or a new entity with
   pending same_as proposals - never a silent merge), refers_to edges to them; each fact
   as a Fact node derived_from the memory. For relations configured as functional, a
   newer value supersedes the subject's current one and an equal-or-older one
   contradicts it. An amend adds the supersedes edge to the memory it replaces.
4. A single memory_write is judged against the current memories of its scopes that may be about
   the same thing (worlddb.memory.updates): it supersedes those it updates, contradicts those it
   conflicts with, and is not written at all when it repeats one (`duplicate_of`: also one in the
   same words that another server committed after the judge read, found inside the transaction;
   words that say something happened - no slot, a first verb in the simple past - repeat one only
   as a resend, beginning within an hour of it: updates.holds_on, updates.is_repeat). An item of a
   batch, which nothing judges, is not written either where a stored memory or an earlier item
   says it in the same words by that rule. A memory that
   is also in a scope outside the caller's grant is revised, never superseded. An amend's new
   text is judged the same way: it keeps the contradictions, and marks (revises) the other
   memories the judge would have it supersede or revise, closing none. An amend also takes the
   old memory's place under a planned change (a successor with a later valid_from). A
   memory_write that corrects the time just said, naming only the right one ("Actually, it's
   Tuesday"), revises the memory it corrects, as a conversation's turn does the turn before it
   (worlddb.memory.turn_updates.memory_restated).
5. A memory written without valid_from (memory_write, and an item of write_memories) begins when
   it arrived, or, when its text states a past time at which all it says became true
   (worlddb.extract.stated: "I moved to Berlin last month", "In 2019 I lived in Lisbon"), then,
   as the facts drawn from it do: it is judged and written as a memory given that valid_from, so
   what it replaces ends then, and a past state is history written late. Its index texts carry
   that time, so `prepare` embeds them again for it (a second model call, for such texts only).
   Its time does not place it before a memory the judge has it change, end it or conflict with,
   when that one began within the period the text names ("last month") or when it was written
   (which says only that it held then): the order of writing then says which came first, and it
   begins when it arrived (`_unplaced`).
Every edge goes through its handler; any refusal rolls the whole write back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

import numpy as np

from worlddb.consolidator import topics
from worlddb.core.errors import InvalidInput, NotFound
from worlddb.core.records import MAX_TEXT_CHARS, Edge, Node, has_control, is_blank
from worlddb.core.store import Store
from worlddb.core.timeutil import US, from_datetime, now_us, to_datetime, to_iso
from worlddb.extract import GENERIC_ROLES, EntityCandidate, ExtractionContext, FactCandidate
from worlddb.extract.judge import BuiltinJudge, Statement
from worlddb.extract.slots import ReadingParts, kin_of, kin_word, names_another, two_people
from worlddb.extract.stated import stated_period
from worlddb.extract.unread_change import renamed
from worlddb.graph import facts as factlib
from worlddb.graph import text_index
from worlddb.graph.database import Writer
from worlddb.memory import claims, name_kinds, readings, slot_readings, succession, turn_updates, updates
from worlddb.memory.access import Access
from worlddb.memory.ahead import beside
from worlddb.memory.results import ConflictOut, EntityOut, FactOut, WriteResult
from worlddb.memory.scopes import ScopeSet, scope_anchors, scope_keys_of
from worlddb.memory.services import Services
from worlddb.resolver import MAX_NAMESAKES, Ambiguous, Prepared, Resolved, Resolver
from worlddb.retrieval import claims as claims_index

MAX_ITEMS = 50
MAX_ALIASES = 20
#: a speaker named in metadata, in characters (it names an entity, as a message's role)
MAX_SPEAKER = 512

#: the metadata keys that name who said a memory's text (worlddb.graph.text_index.speaker_named)
SPEAKER_KEYS = ("speaker", "role")


@dataclass(frozen=True)
class WriteRequest:
    text: str
    scopes: ScopeSet
    metadata: dict
    valid_from: int | None
    entities: list[dict] | None
    facts: list[dict] | None
    tool: str
    supersedes: str | None = None
    reason: str | None = None
    #: judged as a single memory_write is, whatever its tool (an import's planned change, or an
    #: import asked to judge: worlddb.memory.importing)
    judged: bool = False
    #: the caller gave no valid_from: `valid_from` is when the write arrived (None: now), and a
    #: time the text states for what it says begins the memory instead (worlddb.extract.stated)
    from_text: bool = False


@dataclass(frozen=True)
class _Plan:
    """One memory, ready to write: everything model-made is already computed."""

    request: WriteRequest
    memory: Node
    #: when the memory begins: the request's valid_from, or the time its text states (`stated`)
    starts: int
    candidates: list
    facts: list
    #: the person the metadata says spoke the text (linked as its speaker), if any
    speaker: EntityCandidate | None = None
    #: what the claims index records for it (worlddb.memory.claims)
    claims: frozenset = frozenset()
    #: words the extractor could not tell from names (Extraction.unsure): a mention where the
    #: scope already has an entity of that name
    unsure: tuple[EntityCandidate, ...] = ()
    #: its text's slot reading and the (user, speaker) it was read for, kept with it
    #: (worlddb.memory.readings)
    reading: ReadingParts = ReadingParts()
    voice: readings.Voice = (None, None)
    #: when `starts` is the time the text states: the end of the period it names, and when the
    #: write arrived (`_placed`)
    stated: tuple[int, int] | None = None
    #: the kind of the name a correction names alone ("Actually Denver.": "place"), made in the
    #: model step (worlddb.memory.name_kinds), where it has one
    named: str | None = None
    #: its text states a slot the rules read, so the same words later repeat it (updates.is_repeat)
    states: bool = False


@dataclass(frozen=True)
class Mentions:
    """The entity mentions a prepared write resolves, as (scopes, candidates) groups, and the
    name vectors made for them so far, by normalised name (Resolver.name_texts)."""

    groups: tuple[tuple[ScopeSet, tuple[EntityCandidate, ...]], ...]
    vectors: Mapping[str, np.ndarray] = field(default_factory=dict)

    def with_vectors(self, vectors: Mapping[str, np.ndarray]) -> Mentions:
        return replace(self, vectors={**self.vectors, **vectors})


class Staged(Protocol):
    """A write prepared in steps (a PreparedWrite, or a session's turns:
    worlddb.memory.ingest.PreparedSession): its mentions, and a copy with more name vectors."""

    @property
    def mentions(self) -> Mentions: ...

    def with_names(self, vectors: Mapping[str, np.ndarray]): ...


S = TypeVar("S", bound=Staged)


@dataclass(frozen=True)
class PreparedWrite:
    """Memories ready to commit: each one's plan (its extraction done) and index vectors, and
    the mentions to resolve with the name vectors made so far."""

    plans: tuple[_Plan, ...]
    index: tuple[text_index.Prepared, ...]
    mentions: Mentions
    #: for a plan that starts when its text states: its index as of when the write arrived, the
    #: one it takes when that time cannot place it (`_placed`)
    arrived: tuple[text_index.Prepared | None, ...] = ()

    def with_names(self, vectors: Mapping[str, np.ndarray]) -> PreparedWrite:
        return replace(self, mentions=self.mentions.with_vectors(vectors))


def write_many(services: Services, requests: list[WriteRequest]) -> list[WriteResult]:
    """Write several memories in one transaction: all or none. Embeddings and name vectors
    are computed for the whole batch before the write lock is taken."""
    return commit(services, complete(services, prepare(services, requests)))


def prepare(services: Services, requests: list[WriteRequest]) -> PreparedWrite:
    """The model's part of a write: extraction, and one model call for the index texts and
    sentence units of every memory. Reads nothing from the store.

    The texts the model runs over need nothing the extractor finds (each is a memory's text,
    its speaker and its valid-from), so the extractor and the claims reading run on another
    thread (`beside`) while this one runs the model; onnxruntime lets go of the interpreter
    lock as it computes, so on a machine with a core to spare a single write's first step
    takes the longer of the two instead of their sum. The model stays on this thread, which
    holds the lock: the other way round, the model's own Python steps (the texts, the
    tokenizer) waited for the lock behind the reading, and a write at 10k memories gained
    nothing (prepare 6.0 ms against 5.1 this way, in process)."""
    for request in requests:
        check_metadata(request.metadata)
    # the valid-from is part of the index text; without one it is "now", fixed here so the
    # text embedded outside the transaction is the text indexed inside it
    starts = [request.valid_from if request.valid_from is not None else now_us() for request in requests]
    reading = beside(lambda: tuple(_plan(services, request, start) for request, start in zip(requests, starts)))
    index = text_index.prepare(services.embedder, services.encoder,
                               [(_text_of(request), start) for request, start in zip(requests, starts)],
                               form=services.vector_text)
    plans = tuple(_named(services, plan) for plan in reading.result())
    # a memory whose text states when it began (`_stated_start`) is indexed as of then, and kept
    # indexed as of when it arrived for a commit that cannot place it then (`_placed`)
    moved = [i for i, plan in enumerate(plans) if plan.stated is not None]
    arrived = tuple(index[i] if i in moved else None for i in range(len(plans))) if moved else ()
    if moved:
        redated = text_index.prepare(services.embedder, services.encoder,
                                     [(_text_of(plans[i].request), plans[i].starts) for i in moved],
                                     form=services.vector_text)
        for i, item in zip(moved, redated):
            index[i] = item
    groups = tuple((p.request.scopes, tuple(_speakers(p) + p.candidates + _fact_names(p.facts, p.candidates)))
                   for p in plans)
    return PreparedWrite(plans, tuple(index), Mentions(groups), arrived)


def _named(services: Services, plan: _Plan) -> _Plan:
    """`plan`, with the kind of the name its text corrects to alone (`_Plan.named`), if it has one."""
    name = renamed(plan.request.text) if plan.request.text else None
    kind = name_kinds.kind_of(services.embedder, name) if name else None
    return replace(plan, named=kind) if kind else plan


def check_metadata(metadata: object) -> None:
    """Refuse metadata a memory cannot be written with: not a JSON object, or a `speaker` or
    `role` (who said the text, whose voice its first person is read in) that is not a string.
    Reads hand both back as names, so anything else would fail every later read of the memory.
    One that is blank (`is_blank`: empty, or only whitespace and invisible characters) names no
    one, and is refused rather than read as no speaker, as a message's blank role is."""
    if not isinstance(metadata, dict):
        raise InvalidInput("metadata must be a JSON object")
    for key in SPEAKER_KEYS:
        if metadata.get(key) is not None and not isinstance(metadata[key], str):
            raise InvalidInput(f"metadata.{key} must be a string (a name), not {type(metadata[key]).__name__}")
        if isinstance(metadata.get(key), str) and is_blank(metadata[key]):
            raise InvalidInput(f"metadata.{key} is blank: it names who said the text (user, assistant or a "
                               f"person's name); leave {key} out for the user's own words")
        if isinstance(metadata.get(key), str) and has_control(metadata[key].strip()):
            raise InvalidInput(f"metadata.{key} holds a control character; it names who said the text")


def names_to_embed(services: Services, mentions: Mentions) -> list[str]:
    """The names (as Resolver.name_texts) of `mentions` that may need a vector and have none
    yet: a read of the store, no model. A name that resolves exactly to one entity in every
    scope needs none (see Resolver.needs_vector)."""
    store, resolver = services.store, services.resolver
    names: list[str] = []
    for scopes, candidates in mentions.groups:
        worlds = [store.scope_anchor(kind, sid) for kind, sid in scopes]
        names += resolver.name_texts(resolver.needs_vector(candidates, worlds))
    return [n for n in dict.fromkeys(names) if n not in mentions.vectors]


def embed_names(services: Services, names: list[str]) -> dict[str, np.ndarray]:
    """The model's vectors of entity names (keyed as given); reads nothing from the store."""
    return dict(zip(names, services.embedder.embed(names))) if names else {}


def complete(services: Services, prepared: S) -> S:
    """`prepared` with the vectors of the names it still needs (a read, then the model)."""
    return prepared.with_names(embed_names(services, names_to_embed(services, prepared.mentions)))


def commit(services: Services, prepared: PreparedWrite, access: Access | None = None,
           check: Callable[[], None] | None = None) -> list[WriteResult]:
    """Judge and write prepared memories, in one transaction (all or none). A name still
    without a vector (an entity erased since `names_to_embed`) is embedded inside it. With
    `access`, a write closes no memory that is also in a scope outside the caller's grant
    (`_within_grant`). `check` runs first inside the transaction, under the write lock: what it
    raises refuses the write, and nothing is written. A single memory judged before the lock is
    a duplicate, written not at all, of a memory in the same words another server committed
    meanwhile, and an item of a batch (which nothing judged) one of a stored memory or an earlier
    item in the same words (`updates.repeated`). A transaction that finds every memory it was to
    write a duplicate rolls back: it records nothing, not even itself."""
    plans, index = prepared.plans, prepared.index
    names = services.resolver.prepared(dict(prepared.mentions.vectors))
    # what each write means for current memories, decided before the lock (a judge may be a model)
    # (a single memory_write; a batch is an import, written as given but for its repeats: `_repeated`)
    since = updates.newest_node(services.store)
    judged = [updates.NOTHING] * len(plans)
    if len(plans) == 1:
        plan, item, judged[0] = _placed(services, plans[0], index[0], (prepared.arrived or (None,))[0], access)
        plans, index = (plan,), (item,)
    results: list[WriteResult | None] = [_duplicate(services, plan, verdict) for plan, verdict in zip(plans, judged)]
    if any(r is None for r in results):
        tool = plans[0].request.tool if len(plans) == 1 else "memory_write_many"
        try:
            with services.db.write(tool) as w:
                if check is not None:
                    check()
                for i, (plan, item, verdict) in enumerate(zip(plans, index, judged)):
                    if results[i] is None:
                        judged_alone = len(plans) == 1 and _judged_alone(plan.request)
                        results[i] = _duplicate(services, plan, _repeated(services, plan,
                                                                          since if judged_alone else None))
                    if results[i] is None:
                        results[i] = _apply(services, w, plan, item, names, verdict)
                if all(r is not None and r.duplicate_of is not None for r in results):
                    raise _Unwritten()
        except _Unwritten:
            pass  # rolled back: every memory was there already, and the transaction records nothing
    written = [r for r in results if r is not None and r.duplicate_of is None]
    services.resolver.after_write([r.id for r in written] + [e.id for r in written for e in r.entities])
    return [r for r in results if r is not None]


def _judge(services: Services, plan: _Plan, item) -> updates.Assessment:
    request = plan.request
    amend = request.tool == "memory_amend" and request.supersedes is not None
    if not amend and not _judged_alone(request):
        return updates.NOTHING
    user = next((sid for kind, sid in request.scopes if kind == "user"), None)
    ended = succession.ended_by(services.store, request.supersedes) if amend else frozenset()
    found = updates.assess(services, request.text, request.scopes, plan.starts, item.vector, item.units, plan.facts,
                           user, slot_readings.speaker_of(request.metadata), also=ended)
    if amend:
        return _amended(services, request, plan, item, user, found, ended)
    if found.duplicate_of is None:
        turns, followed = _turns_changed(services, request, plan, item, user)
        found = replace(found, turns=tuple(dict.fromkeys(found.turns + turns)), followed=found.followed + followed)
        found = _restated(services, request, plan, found, user)
    return found


def _amended(services: Services, request: WriteRequest, plan: _Plan, item, user: str | None,
             found: updates.Assessment, ended: frozenset[str]) -> updates.Assessment:
    """What an amend's new text means for the memories of its scopes (`found`, judged as a write,
    and against what the amended memory ended, `ended`). An amend corrects one memory and closes
    no other: the memories the old text contradicted stay contradicted when the new text says the
    same, and another current one that the judge would have the new text supersede or revise ("I
    live in Austin and work at Dell", for an amend to "I live in Houston") stays current, marked
    revised, with its facts; and the conversation turns the change reaches are marked, as a write
    marks them. Of what the old memory ended, what the new text still changes stays ended as the
    old memory ended it (`Assessment.kept`: "We moved to Seattle" amended to "We moved to
    Denver"), and the rest is current again ("We visited Seattle": succession.withdraw_changes)."""
    target = request.supersedes
    if found.duplicate_of not in (None, target):
        # two current memories saying the same, neither marked: the old one is to go instead
        raise InvalidInput(f"memory {found.duplicate_of} already says this and is current; nothing was "
                           f"written. If memory {target} no longer holds, retire it (memory_retire)")
    changed = tuple(dict.fromkeys(old for old in (*found.superseded, *(o for o, _ in found.revised)) if old != target))
    views = services.store.get_many(changed)
    now = now_us()
    # (what the old memory ended whole was no candidate before, and is marked no more now)
    marked = tuple(old for old in changed if old not in ended or succession.holds_at(views.get(old), now))
    turns = tuple(t for t in dict.fromkeys(found.turns + _turns_changed(services, request, plan, item, user)[0])
                  if t != target)
    return updates.Assessment(conflicts=tuple(c for c in found.conflicts if c != target),
                              revised=tuple((old, frozenset()) for old in marked), turns=turns,
                              kept=frozenset(old for old in changed if old in ended))


def _restated(services: Services, request: WriteRequest, plan: _Plan, found: updates.Assessment,
              user: str | None) -> updates.Assessment:
    """`found`, with the memory the new one corrects by naming only the right time revised
    (worlddb.memory.turn_updates.memory_restated), or the one it corrects by naming only the right
    name superseded or revised as a statement of that slot's new value would (`memory_renamed`,
    updates.renamed), where the built-in judge decided nothing else."""
    if not isinstance(services.judge, BuiltinJudge) or found.superseded or found.revised or found.conflicts:
        return found
    worlds, speaker = scope_anchors(services.store, request.scopes), slot_readings.speaker_of(request.metadata)
    old = turn_updates.memory_restated(services, worlds, request.text, plan.facts, speaker, user, plan.starts)
    if old is not None:
        return replace(found, revised=(old,))
    fixed = turn_updates.memory_renamed(services, worlds, request.text, plan.facts, speaker, user, plan.starts,
                                        plan.named) if plan.named else None
    if fixed is None:
        return found
    change = updates.renamed(services, plan.starts, *fixed, user)
    return replace(found, superseded=change.superseded, revised=change.revised, keep=change.keep)


def _placed(services: Services, plan: _Plan, item: text_index.Prepared, arrived: text_index.Prepared | None,
            access: Access | None) -> tuple[_Plan, text_index.Prepared, updates.Assessment]:
    """The plan, index and verdict of a single write: judged at the time its text states, if that
    time places it (`_unplaced`), else (or when its text states none) as of when it arrived, with
    `arrived`, its index as of then."""
    verdict = _within_grant(services, _judge(services, plan, item), access)
    if plan.stated is None or arrived is None or not _unplaced(services, plan, verdict):
        return plan, item, verdict
    plan = replace(plan, starts=plan.stated[1], stated=None)
    return plan, arrived, _within_grant(services, _judge(services, plan, arrived), access)


#: how long after a memory begins it may be stored and still begin only when it was written (a
#: write without valid_from begins when it arrived, and may wait its turn to commit)
WRITTEN_WITHIN = 3600 * US


def _unplaced(services: Services, plan: _Plan, verdict: updates.Assessment) -> bool:
    """Whether the time a text states does not place its memory before a memory that began after
    it and that the judge has it change (`revised`: that one came first), end it (`followed`) or
    conflict with it. Time does not say which came first when that one began within the period
    the text names ("I live in Hamburg" of the 15th of last month, and "I moved to Berlin last
    month"), or began when it was written, which says only that it held then ("I live in Lisbon"
    written yesterday, and "I moved to Porto last week" today). The order of writing does: the
    later write is the change."""
    until = plan.stated[0] if plan.stated else plan.starts
    changed = {old for old, _ in verdict.revised}
    for old in [*changed, *(old for old, _ in verdict.followed), *verdict.conflicts]:
        view = services.store.get(old)
        if view is None or view.valid_from <= plan.starts:
            continue
        if old in changed or view.valid_from < until or 0 <= view.t_ingested - view.valid_from <= WRITTEN_WITHIN:
            return True
    return False


def _judged_alone(request: WriteRequest) -> bool:
    """Whether a single write of `request` is judged against the current memories (`_judge`) as a
    memory_write is: not an amend, which names what it replaces."""
    return (request.tool == "memory_write" or request.judged) and request.supersedes is None


class _Unwritten(Exception):
    """Raised inside a write's transaction to roll it back: it found every memory it was to write
    stored already (`_repeated`), so it writes nothing, not even its transaction's row."""


def _repeated(services: Services, plan: _Plan, since: int | None) -> updates.Assessment:
    """Inside the write transaction: a duplicate of a memory in the same words (updates.repeated).
    For a single write judged before the lock, one committed after node `since` (by another
    server, between the judge's reads and the write lock); else (`since` None: an item of a batch,
    which nothing judged) any stored one, an earlier item's included. An amend names what it
    replaces, and repeats nothing."""
    request = plan.request
    if request.supersedes is not None:
        return updates.NOTHING
    return updates.Assessment(duplicate_of=updates.repeated(services, request.text, request.scopes, plan.starts,
                                                            *plan.voice, plan.states, since=since))


def _within_grant(services: Services, found: updates.Assessment, access: Access | None) -> updates.Assessment:
    """`found`, short of closing what the caller may not close. Superseding a memory ends it in
    every scope it is in, which only a caller granted all of them may do (as an amend or a
    retire); for any other the write is a change that leaves it current, marked: it is revised
    instead. And a revision closes facts drawn from the memory that the change is about, so of
    such a memory it closes none."""
    granted = closes_for(services, access)
    if granted is None or not (found.superseded or found.revised):
        return found
    kept = tuple(old for old in found.superseded if granted(old))
    marked = tuple((old, changed if granted(old) else frozenset()) for old, changed in found.revised)
    marked += tuple((old, frozenset()) for old in found.superseded if old not in kept)
    return replace(found, superseded=kept, revised=marked)


def closes_for(services: Services, access: Access | None) -> Callable[[str], bool] | None:
    """Whether `access` may close a node, by its anchor: it is granted every scope the node is in
    (as an amend or a retire needs). None for a caller that may close anything."""
    if access is None or access.sees_all:
        return None
    return lambda anchor: all(access.allows(key) for key in scope_keys_of(services.store, anchor))


def _turns_changed(services: Services, request: WriteRequest, plan: _Plan, item,
                   user: str | None) -> tuple[tuple[str, ...], tuple[tuple[str, frozenset[str]], ...]]:
    """The conversation turns a memory write changes, and the one dated after it that changes it
    (worlddb.memory.turn_updates.turns_changed)."""
    reading = slot_readings.claim_reading(request.text, plan.facts, user, slot_readings.speaker_of(request.metadata))
    if not reading.claims:
        return (), ()
    new = Statement("", request.text, plan.starts, reading, similarity=1.0)
    return turn_updates.turns_changed(services, scope_anchors(services.store, request.scopes), new, item.vector)


def _duplicate(services: Services, plan: _Plan, verdict: updates.Assessment) -> WriteResult | None:
    """The result of a write that repeats a current memory: that memory, and nothing written."""
    if verdict.duplicate_of is None:
        return None
    view = services.store.require(verdict.duplicate_of)
    return WriteResult(id=view.anchor, scopes=plan.request.scopes.keys, valid_from=to_iso(view.valid_from),
                       entities=[], facts=[], superseded=[], conflicts=[], duplicate_of=view.anchor)


def _text_of(request: WriteRequest) -> Node:
    """The memory as far as its index texts see it (text_index.index_text): kind, content and
    metadata, which `_plan`'s node has too."""
    return Node("Memory", content=request.text, meta=request.metadata)


def _plan(services: Services, request: WriteRequest, starts: int) -> _Plan:
    user = next((sid for kind, sid in request.scopes if kind == "user"), None)
    speaker = _speaker(request.metadata)
    candidates, fact_cands, extractor, unsure = _extraction(services, request, starts, user, speaker)
    begins, period = _stated_start(request, fact_cands, starts)
    memory = Node(
        "Memory",
        content=request.text,
        meta=request.metadata,
        provenance={"scopes": request.scopes.keys, "tool": request.tool, "extractor": extractor,
                    **({"supersedes": request.supersedes} if request.supersedes else {})},
        created_at=now_us(),
    )
    said_by = slot_readings.speaker_of(request.metadata)
    reading = slot_readings.claim_reading(request.text, fact_cands, user, said_by)
    return _Plan(request, memory, begins, candidates, fact_cands, speaker,
                 claims_index.keys(reading, request.text), unsure,
                 slot_readings.text_parts(request.text, user, said_by), (user, said_by), period,
                 states=updates.holds_on(request.text, reading))


def _stated_start(request: WriteRequest, facts: list[FactCandidate],
                  arrived: int) -> tuple[int, tuple[int, int] | None]:
    """When a memory begins, and the end of the period its text names and `arrived` when that is
    what begins it: the time its text states for what it says (worlddb.extract.stated: "I moved to
    Berlin last month", the 1st of last month, where its fact begins) when the caller gave no
    valid_from, else `arrived` (the request's valid_from, or now)."""
    period = stated_period(request.text, facts, to_datetime(arrived)) if request.from_text else None
    if period is None:
        return arrived, None
    return from_datetime(period[0]), (from_datetime(period[1]), arrived)


def _speaker(metadata: dict) -> EntityCandidate | None:
    """Who the metadata says spoke the text - its `speaker`, else its `role` unless that is
    a generic one such as "user" - as a person candidate, so that a plain write is tied to
    its speaker as an ingested turn is (its first person, and a refers_to edge with role
    "speaker"). The index text names the speaker or role alike (text_index.speaker_of)."""
    name = text_index.speaker_named("Memory", metadata)
    if name is None or name.strip().casefold() in GENERIC_ROLES or len(name) > MAX_SPEAKER:
        return None
    return EntityCandidate(name=name.strip(), type="person")


def _speakers(plan: _Plan) -> list[EntityCandidate]:
    return [plan.speaker] if plan.speaker is not None else []


def _not_the_user(services: Services, world: str, user: str, others: Mapping[str, str]) -> tuple[str, ...]:
    """The entities the user's own name never resolves to: others of that name the scope knows
    (slot_readings.namesakes) and the ones this write names (`others`)."""
    return tuple(sorted(slot_readings.namesakes(services, [world], user) | set(others.values())))


def _user_entities(services: Services, world: str, user: str, by_name: Mapping[str, str]) -> tuple[str, ...]:
    """The entities someone else of the user's name never resolves to: those of that name that
    are not known to be someone else (slot_readings.namesakes), and the user's as this write found it."""
    found = set(services.resolver.entities_named([world], user)) - slot_readings.namesakes(services, [world], user)
    if user.casefold() in by_name:
        found.add(by_name[user.casefold()])
    return tuple(sorted(found))


def _apply(services: Services, w, plan: _Plan, index, prepared, verdict: updates.Assessment) -> WriteResult:
    request, starts = plan.request, plan.starts
    worlds = [w.scope(kind, sid) for kind, sid in request.scopes]
    anchor = w.add(plan.memory, valid_from=starts, parents=worlds)
    text_index.write_index(w, anchor, index, services.embedder.model_id, services.embedder.dim)
    claims.record(w, worlds, anchor, plan.claims)
    readings.record(w, anchor, plan.reading, *plan.voice)
    for world in worlds:
        topics.join(w, world, anchor, index.vector)
    superseded: list[str] = []
    conflicts: list[ConflictOut] = []
    if request.supersedes:
        # the amended memory's changes of what the new text no longer changes are undone (`_amended`);
        # a correction of a correction corrects what that one corrected
        succession.withdraw_changes(services, w, request.supersedes,
                                    keep=verdict.kept | succession.amended_by(services.store, request.supersedes))
        edge = Edge("supersedes", anchor, request.supersedes)
        w.link(edge)
        superseded.append(request.supersedes)
        succession.close_derived_facts(services, w, edge, starts)
    entities_out: list[EntityOut] = []
    facts_out: list[FactOut] = []
    user = plan.voice[0]
    namesake = user if names_another(request.text or "", user) else None
    kin = kin_of(request.text or "")
    for (kind, sid), world in zip(request.scopes, worlds):
        key = f"{kind}:{sid}"
        by_name: dict[str, str] = {}
        # someone the text names by the user's name as a person of the speaker's ("my coworker
        # Alice" in user alice's scope) is not the user: their own entity, by the name as written
        others: dict[str, str] = {}
        for cand in _speakers(plan) + plan.candidates + known_mentions(services, world, plan.unsure):
            if namesake is not None and cand is not plan.speaker and cand.name.casefold() == namesake.casefold():
                if cand.name in others:
                    continue
                own = _user_entities(services, world, namesake, by_name)
                out = resolve_mention(services.resolver, w, world, key, cand, prepared, exclude=own,
                                      namesake_of=namesake)
                others[cand.name] = out.id
            elif cand.name.casefold() in by_name:
                continue  # the speaker named again in the text: one edge, as the speaker
            else:
                exclude = _not_the_user(services, world, user, others) if cand.name == user else ()
                exclude += _other_people(services, world, cand.name, kin)
                out = resolve_mention(services.resolver, w, world, key, cand, prepared, exclude=exclude)
                by_name[cand.name.casefold()] = out.id
            entities_out.append(out)
            role = "speaker" if cand is plan.speaker else "mention"
            w.link(Edge("refers_to", anchor, out.id, props={"role": role}))
        for fact in plan.facts:
            facts_out.append(_write_fact(services, w, world, key, anchor, fact, by_name, prepared, starts,
                                         superseded, conflicts, entities_out, others, user, namesake is not None))
    if request.supersedes:  # the amended memory's planned change ends the amend (its facts written)
        succession.hand_over_plans(services, w, request.supersedes, anchor, starts)
    revised: list[str] = []
    superseded_by: list[str] = []
    revised_by: list[str] = []
    updates.apply(services, w, anchor, starts, verdict, superseded, conflicts, revised, (superseded_by, revised_by))
    return WriteResult(id=anchor, scopes=request.scopes.keys, valid_from=to_iso(starts),
                       entities=entities_out, facts=facts_out, superseded=superseded, conflicts=conflicts,
                       related=list(verdict.related), revised=revised, superseded_by=superseded_by,
                       revised_by=revised_by)


def _other_people(services: Services, world: str, name: str, kin: Mapping[str, frozenset[str]]) -> tuple[str, ...]:
    """The entities of `world` named `name` that what the text calls them (`kin`, kin_of the
    text) makes someone else: "my coworker Maria" is not the Maria a fact knows as the speaker's
    sister (slots.two_people), whose name alone would be an exact match."""
    said = kin.get(name.casefold())
    if not said:
        return ()
    return tuple(entity for entity in services.resolver.entities_named([world], name)
                 if two_people(said, _known_as(services.store, entity)))


def _known_as(store: Store, entity: str) -> frozenset[str]:
    """What the current has_ facts of the store say `entity` is to someone ("has_sister": sister)."""
    kin = set()
    for view in store.get_many(store.ends(entity, "refers_to", "in", node_type="Fact")).values():
        fact = factlib.as_fact(view)
        if fact is not None and fact.object == entity and fact.relation.startswith("has_") and view.valid_to is None:
            word = kin_word(fact.relation[len("has_"):])
            if word is not None:
                kin.add(word)
    return frozenset(kin)


def known_mentions(services: Services, world: str, unsure: tuple[EntityCandidate, ...]) -> list[EntityCandidate]:
    """The unsure words (Extraction.unsure) that name an entity `world` already has: "Ana got a
    new job" mentions Ana once the scope knows an Ana. Read inside the write, so an entity an
    earlier memory of the same batch created counts. And those that are the first name of a
    person the scope knows by a full name (at most MAX_NAMESAKES of them), as a person: "John
    is a doctor" mentions a John once the scope knows John Smith, though "john" is a common word
    too; the resolver then proposes the two as one, never merging them."""
    scope = services.store.rowid(world)
    out = []
    for candidate in unsure:
        if services.resolver.entities_named([world], candidate.name):
            out.append(candidate)
        elif scope is not None and _first_name_of_someone(services, scope, candidate.name):
            out.append(replace(candidate, type="person"))
    return out


def _first_name_of_someone(services: Services, scope: int, word: str) -> bool:
    first = word.casefold()
    known = services.resolver.index.containing(scope, first, MAX_NAMESAKES)
    return any(c.etype == "person" and c.norm.startswith(first + " ") for c in known or ())


def check_text(text: object) -> str:
    """The text of a memory, or InvalidInput saying what is wrong with it."""
    if not isinstance(text, str):
        raise InvalidInput("text must be a string")
    if is_blank(text):  # whitespace and invisible format characters (zero-width space) alone
        raise InvalidInput("text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text is {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    return text


def resolve_mention(resolver: Resolver, w: Writer, world: str, scope_key: str, candidate: EntityCandidate,
                    prepared: Prepared | None = None, exclude: tuple[str, ...] = (),
                    namesake_of: str | None = None) -> EntityOut:
    """Resolve one mention inside `world` (a scope's anchor), reported as memory_write's
    record: resolution "exact" (an existing entity reused), "new", or "proposed_merge"
    (new, with pending same_as proposals to `proposed_merge_with`); never to an entity of
    `exclude`. `namesake_of`: the mention is someone else of that user's name, which an entity
    it creates records (slot_readings.namesakes)."""
    provenance = {"scope": scope_key, **({"namesake_of": namesake_of} if namesake_of else {})}
    outcome = resolver.resolve(w, world, candidate, prepared=prepared, provenance=provenance, exclude=exclude)
    # an import names the same few entities again and again: the transaction remembers their names
    stored = w.tx.name_and_meta(outcome.entity)
    if stored is None:
        raise NotFound(f"no node has id {outcome.entity}")
    name, meta = stored
    if isinstance(outcome, Resolved) and not outcome.created:
        resolution, others = "exact", []
    elif outcome.proposals:
        options = outcome.options if isinstance(outcome, Ambiguous) else (outcome.match,)
        resolution, others = "proposed_merge", [m.anchor for m in options]
    else:
        resolution, others = "new", []
    return EntityOut(id=outcome.entity, name=name, type=meta.get("entity_type"),
                     resolution=resolution, proposed_merge_with=others,
                     proposals=list(outcome.proposals), scope=scope_key)


def _extraction(services: Services, request: WriteRequest, starts: int, user: str | None,
                speaker: EntityCandidate | None):
    if request.entities is None and request.facts is None:
        # a text that names someone else by the user's name ("my coworker Alice") calls the user
        # "user" in its facts, so the two stay apart however the user's name is written
        namesake = names_another(request.text, user)
        # an assistant's, a system's or a tool's first person is theirs, never the user's
        role = slot_readings.speaker_of(request.metadata)
        said = role.strip() if role is not None and role.strip().casefold() in GENERIC_ROLES - {"user"} else None
        ctx = ExtractionContext(timestamp=to_datetime(starts), user_name=None if namesake else user,
                                speaker=speaker.name if speaker is not None else said)
        found = services.extractor.extract(request.text, ctx)
        # the speaker of a first-person memory is the scope's user: a mention, not news; a role's
        # first person is no one the memory keeps facts of
        entities = [e for e in found.entities if e.name.strip() and (said is None or e.name != said)]
        facts = [f for f in found.facts if said is None or said not in (f.subject, f.object)]
        unsure = tuple(e for e in found.unsure if e.name.strip())[:MAX_ITEMS]
        return _dedupe(entities), facts[:MAX_ITEMS], found.extractor, unsure
    entities = [_entity(item) for item in _items(request.entities, "entities")]
    facts = [_fact(item) for item in _items(request.facts, "facts")]
    return _dedupe(entities), facts, "client", ()


#: the keys of an item of `entities` and of `facts`, as memory_write takes them
ITEM_KEYS = {"entities": ("name", "type", "aliases"), "facts": ("subject", "relation", "object", "text")}


def _items(value, what: str) -> list[dict]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InvalidInput(f"{what} must be a list of objects")
    if len(value) > MAX_ITEMS:
        raise InvalidInput(f"at most {MAX_ITEMS} {what} per write")
    for i, item in enumerate(value):
        check_item_keys(item, what, i)
    return value


def check_item_keys(item: dict, what: str, i: int) -> None:
    """InvalidInput if item `i` of `entities` or `facts` has a key memory_write does not take: a
    misspelt key ("alias") would otherwise be dropped, and the entity written without it."""
    unknown = sorted(map(str, set(item) - set(ITEM_KEYS[what])))
    if unknown:
        raise InvalidInput(f"{what}[{i}] has unknown key(s) {', '.join(unknown)}; "
                           f"an item of {what} has {', '.join(ITEM_KEYS[what])}")


def _name(value, what: str) -> str:
    if not isinstance(value, str) or is_blank(value):
        raise InvalidInput(f"{what} must be non-empty text")
    if len(value) > 512:
        raise InvalidInput(f"{what} is longer than 512 characters")
    if has_control(value.strip()):
        raise InvalidInput(f"{what} holds a control character")
    return value.strip()


def _entity(item: dict) -> EntityCandidate:
    aliases = item.get("aliases") or []
    if not isinstance(aliases, list):
        raise InvalidInput("entity aliases must be a list of names")
    if len(aliases) > MAX_ALIASES:
        raise InvalidInput(f"at most {MAX_ALIASES} aliases per entity")
    etype = item.get("type")
    if etype is not None and not isinstance(etype, str):
        raise InvalidInput("entity type must be text")
    return EntityCandidate(name=_name(item.get("name"), "entity name"), type=etype,
                           aliases=tuple(_name(a, "alias") for a in aliases))


def _fact(item: dict) -> FactCandidate:
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        raise InvalidInput("fact text must be text")
    factlib.normalize_relation(_name(item.get("relation"), "fact relation"))
    return FactCandidate(subject=_name(item.get("subject"), "fact subject"),
                         relation=item["relation"], object=_name(item.get("object"), "fact object"), text=text or "")


def _dedupe(entities: list[EntityCandidate]) -> list[EntityCandidate]:
    seen: dict[str, EntityCandidate] = {}
    for ent in entities:
        seen.setdefault(ent.name.strip().casefold(), ent)
    return list(seen.values())[:MAX_ITEMS]


def _fact_names(fact_cands: list[FactCandidate], entities: list[EntityCandidate]) -> list[EntityCandidate]:
    known = {e.name.casefold() for e in entities}
    return [EntityCandidate(name=f.subject) for f in fact_cands if f.subject.casefold() not in known]


def _write_fact(services: Services, w: Writer, world: str, key: str, memory: str, fact: FactCandidate, by_name: dict,
                prepared, starts: int, superseded: list, conflicts: list, entities_out: list,
                others: Mapping[str, str] | None = None, user: str | None = None,
                namesake: bool = False) -> FactOut:
    """Write one fact of a memory; `by_name` maps case-folded names to entities, and `others`
    the names, as written, of people the text names by the user's name (`namesake`: then the
    extractor called the user "user"). The user's own facts never resolve to such a one."""
    others = others or {}
    mine = user is not None and fact.subject == ("user" if namesake else user)
    name = user if mine else fact.subject
    subject = (by_name.get(name.casefold()) if mine and namesake
               else others.get(fact.subject) or by_name.get(fact.subject.casefold()))
    if subject is None:
        exclude = _not_the_user(services, world, user, others) if mine else ()
        out = resolve_mention(services.resolver, w, world, key, EntityCandidate(name=name), prepared,
                              exclude=exclude)
        entities_out.append(out)
        subject = by_name[name.casefold()] = out.id
    obj = others.get(fact.object) or by_name.get(fact.object.casefold())
    subject_name = services.store.get(subject).name
    valid_from = from_datetime(fact.valid_from) if fact.valid_from else starts
    node = factlib.fact_node(subject=subject, relation=fact.relation, obj=obj or fact.object,
                             object_is_entity=obj is not None, text=fact.text, subject_name=subject_name,
                             object_name=fact.object, provenance={"scope": key, "memory": memory},
                             created_at=services.store.get(memory).created_at)
    relation = node.name
    # only a functional relation's earlier values are replaced, so only then are they read (a
    # read that grows with the subject's facts, on every fact of a write)
    functional = relation in services.functional
    priors = ([p for p in factlib.facts_about(services.store, subject, relation) if p.anchor != node.id]
              if functional else [])
    anchor = w.add(node, valid_from=valid_from, parents=[world])
    for edge in factlib.fact_edges(node):
        w.link(edge)
    w.link(Edge("derived_from", anchor, memory))
    if functional:
        for prior in priors:
            view = services.store.get(prior.anchor)
            if view.valid_to is not None or prior.object == node.meta["object"]:
                continue
            if valid_from > view.valid_from:
                w.link(Edge("supersedes", anchor, prior.anchor))
                superseded.append(prior.anchor)
            else:
                w.link(Edge("contradicts", anchor, prior.anchor))
                conflicts.append(ConflictOut(id=anchor, with_id=prior.anchor))
    return FactOut(id=anchor, subject=subject_name, relation=relation, object=fact.object,
                   text=node.content, valid_from=to_iso(valid_from), sources=[memory])
