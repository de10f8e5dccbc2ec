"""Update detection at write time: what a new memory means for the current ones it may be about.

For each memory_write (not an amend, which names what it replaces), before the write lock:

1. Candidates: current Memory nodes in the write's scopes that may be about the same thing -
   the nearest ones to each of the new text's sentence vectors and to its whole-text vector
   (the vectors embedded for the write itself, reused: nothing is embedded twice), and the
   best BM25 matches of its text - or, when the judge can find nothing but a repeat
   (`only_repeats`: the built-in one, for a text without slot claims), only matches holding
   all its words, and candidates are not read for slots. The judge reads the CANDIDATES
   nearest; a BM25-only match counts as similarity 0, below every neighbour, so the BM25 search
   runs only when the neighbours in scope do not fill the candidates (it could change nothing
   otherwise). A process whose HNSW indexes are not built yet (nothing has
   read since it opened the file) does not build them for a write: it takes the scopes' most
   recent memories instead of the nearest.
   Claimed candidates: in a large scope the memory a write updates need not be among its
   nearest ("I live in Austin" among thousands of the user's memories about places, plans
   and people), so the judge also reads current memories of the write's scopes that the
   claims index (worlddb.retrieval.claims) says claim something about the subject of one of
   the new text's slot claims, in an attribute of that claim's family. They come after the
   nearest, newest first, up to the first one already among the CANDIDATES nearest and at
   most MAX_CLAIMED, each with its cosine if the vector search met it and 0 otherwise (as a
   BM25-only find). A claim older than one the judge already reads is not added: the newest
   claim of a slot is the one a change is about (an older one still current was judged when
   the newer was written), and a write whose nearest hold it - most writes, in a scope of
   any size - reads nothing more. The read is by the index's key, never a scan of the
   scopes. Every memory_write, write_memories, import and amend records its claims (the slot
   reader's and its facts', as read here; worlddb.memory.claims); memories written before
   the index existed get theirs from a pass after the upgrade (worlddb.memory.claims_backfill),
   and until it reaches them are found by their vectors only.
2. Readings: each text's slot claims and cues (worlddb.extract.slots, no store access), plus
   the facts the extractor or the client gave (a relation named by --functional, or by a
   registered functional handler, holds one value at a time). A candidate's text is read from
   the parts its own write kept (worlddb.memory.readings) when this reader kept them in the
   voice the judge reads it in - the same reading, assembled - else read again; its current
   facts are read for all the candidates at once (`stored_facts_of`).
3. The judge (services.judge: the built-in rules, or a model with the built-in as fallback)
   gives each candidate an outcome: update, conflict, duplicate, related or unrelated. A
   candidate that begins after the new memory is judged as if written second (`_as_later`):
   an update then ends the new memory (`Assessment.followed`), and the memories it replaced,
   back along their supersedes edges, are judged too (`_inside`): history written inside a
   succession takes its place in it.
4. A change the rules cannot read (the built-in judge only): a new memory that states a change
   of its speaker's own (worlddb.extract.unread_change: "We moved release day to Tuesdays") and
   for which the judge decided nothing revises the memory nearest to it in meaning, if that one
   is close enough (CHANGE_SIMILARITY, the cosine of the write's own vector to the stored one),
   older, current, in the same voice, unrelated by every slot the judge sees, states nothing
   the rules can read (of what they can read, they would have read the change) and names none
   of the values the new memory claims (a change replaces the old value: "I moved to Denver"
   changes no "We looked at houses in Denver"). It stays current and none of its facts end: a
   guess hides nothing, and every read names the newer memory on it. Such a write reads the
   nearest memories even when the judge could only find repeats (`only_repeats`).

Then, in the write's transaction (`apply`), each update becomes a supersedes edge from the new
memory (through the supersedes handler, which closes the old one's validity where the new one
begins; nothing is deleted) and each conflict a contradicts edge. An update of a memory that
also says something the new one leaves alone - a claim about the same subject in a slot
outside the changed slots' families ("I live in Austin and work at Dell", then "I moved to
Denver") - is a revision instead: a revises edge, the old memory stays current with its
other claims, and only its facts about the changed slots end. A candidate that stopped being
current meanwhile is left alone. A duplicate writes nothing: the result names the memory that
already says it. Up to `MAX_RELATED` undecided candidates are reported as `related`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from worlddb.core import schema
from worlddb.core.records import Edge, NodeView
from worlddb.core.store import Store, list_params, rowids_sql
from worlddb.core.timeutil import now_us
from worlddb.extract import GENERIC_ROLES, FactCandidate, addressed
from worlddb.extract.judge import BuiltinJudge, Statement, Verdict, comparable, covered
from worlddb.extract.open_slots import REPLACES, is_open
from worlddb.extract.open_slots import is_single as is_single_open
from worlddb.extract.slots import (
    CATALOGUE,
    ME,
    Reading,
    ReadingParts,
    SlotClaim,
    attribute_for_relation,
    names_another,
    normalise_subject,
    read,
    read_parts,
    same_person,
    same_subject,
    same_value,
    voice,
)
from worlddb.extract.unread_change import ANCHORED_SIMILARITY, CHANGE_SIMILARITY, anchors, says_change, states_change
from worlddb.graph import text_index
from worlddb.graph.database import Writer
from worlddb.graph.lexical import lexical
from worlddb.retrieval import claims as claims_index
from worlddb.retrieval.lanes import eligible
from worlddb.vectors import hnsw

from . import readings as kept_readings
from .results import ConflictOut
from .scopes import ScopeSet, scope_anchors
from .services import Services

#: how many neighbours each vector brings, and how many BM25 matches
NEIGHBOURS = 8
#: how many candidates the judge reads, nearest first
CANDIDATES = 2 * NEIGHBOURS
#: how many claimed candidates the judge reads besides the nearest, newest first: the newest
#: claim of a slot is the one a change is about, and one more allows for a revision between
MAX_CLAIMED = 2
#: how many undecided candidates a write reports
MAX_RELATED = 5
#: a candidate below this cosine and not found by BM25 is not worth reading
MIN_SIMILARITY = 0.2
#: the reason of an update that is a change the rules could not read (`unread_change`)
UNREAD_CHANGE = "a change the rules cannot read, of the memory nearest to it or naming what it changes"
#: past this many of a scope's names holding a first name, it names nobody in particular
MAX_NAMESAKES = 5


@dataclass(frozen=True)
class Assessment:
    """What the judge decided for one new memory: ids of current memories."""

    superseded: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    duplicate_of: str | None = None
    related: tuple[str, ...] = ()
    #: updated only in part: memory -> the attributes (with their families) the new one changes
    revised: tuple[tuple[str, frozenset[str]], ...] = ()
    #: conversation turns the new memory changes: marked (revises), never closed - a turn is
    #: what was said (worlddb.memory.turn_updates)
    turns: tuple[str, ...] = ()
    #: facts of revised memories, in a changed attribute but of a subject the new memory does not
    #: speak of ("my sister works at Canon", when the user's job changes): they stay current
    keep: frozenset[str] = frozenset()
    #: memories that begin after the new one and change what it says (history written after what
    #: followed it): memory -> None if it ends the new one whole, else the attributes it changes
    followed: tuple[tuple[str, frozenset[str] | None], ...] = ()


NOTHING = Assessment()
#: the reading of a candidate the judge needs none of (UpdateJudge.only_repeats)
UNREAD = Reading()


def assess(services: Services, text: str, scopes: ScopeSet, starts: int, vector: np.ndarray, units: np.ndarray,
           facts: Iterable[FactCandidate], user: str | None, speaker: str | None = None) -> Assessment:
    """Judge the current memories of `scopes` against a memory about to be written (outside the
    write lock: it reads, and a model judge may take a while). `speaker`: who the new memory's
    metadata says said it (`speaker_of`); each candidate is read in its own speaker's voice."""
    store = services.store
    worlds = scope_anchors(store, scopes)
    if not worlds:
        return NOTHING
    # where someone else of the user's name is known ("my coworker Alice" for the user alice), the
    # name alone in a text ("Alice is vegan") may be theirs: only "I" and the user's own facts are the user
    reading = _reading(text, facts, user, speaker=speaker, namesake=bool(namesakes(services, worlds, user)))
    ambiguous = _ambiguous_first_names(services, worlds, reading)
    new = Statement("", text, starts, _unnamed(reading, ambiguous), similarity=1.0)
    # a change the built-in rules cannot read still needs the nearest memories (`unread_change`)
    own, wider = says_change(text), states_change(text)
    unread = isinstance(services.judge, BuiltinJudge) and (own or wider)
    repeats = bool(getattr(services.judge, "only_repeats", lambda _: False)(new)) and not unread
    found = _candidates(services, worlds, text, vector, units, every=repeats,
                        wanted=() if repeats else claims_index.keys(new.reading, text))
    if not found:
        return NOTHING
    views = store.get_many(found)
    olds = [views[a] for a in found if a in views and views[a].type == "Memory" and holds_ever(views[a])]
    if not olds:
        return NOTHING
    # a candidate matters only through the attributes the new memory names: read just those; an
    # ended replacement names the value it leaves, in whatever slot holds it ("switched from
    # Spanish to Italian" of "I'm learning Spanish"), so its candidates are read whole
    whole = any(c.attribute == REPLACES and c.ended for c in new.reading.claims)
    wanted = None if whole else comparable({c.attribute for c in new.reading.claims})
    kept = {} if repeats else kept_readings.load(store, {v.anchor: (user, speaker_of(v.meta)) for v in olds})
    facts = stored_facts_of(store, [v.anchor for v in olds]) if not repeats and (whole or wanted) else {}
    candidates = [Statement(v.anchor, v.content or "", v.valid_from,
                            UNREAD if repeats else _unnamed(_view_reading(services, v, user, wanted, kept, facts),
                                                            ambiguous),
                            similarity=found[v.anchor]) for v in olds]
    verdicts = services.judge.judge(new, candidates)
    if not repeats:
        verdicts = [_as_later(services, new, c) if c.valid_from > starts and v.outcome != "duplicate" else v
                    for c, v in zip(candidates, verdicts)]
        for view, statement, verdict in _inside(services, new, candidates, verdicts, user, wanted, kept, ambiguous):
            olds.append(view)
            candidates.append(statement)
            verdicts.append(verdict)
    # the same words in another speaker's voice say something else ("I live in Austin" from Tom
    # and from Priya): no repeat, so the new memory is written (and reported as related)
    mine = voice(speaker, user)
    verdicts = [Verdict("related", "the same words from another speaker")
                if v.outcome == "duplicate" and voice(speaker_of(o.meta), user) != mine else v
                for v, o in zip(verdicts, olds)]
    # nor do they repeat a memory that ends (a planned change ends it) by the time the new one
    # begins: they say it holds on from then ("I work at Google" again, from the day a retired
    # plan would have ended it); nor a planned one, not begun yet, that they begin before
    now = now_us()
    verdicts = [Verdict("related", "the same words at another time")
                if v.outcome == "duplicate" and (o.valid_to is not None and o.valid_to <= starts
                                                 or o.valid_from > now and starts < o.valid_from) else v
                for v, o in zip(verdicts, olds)]
    if unread:
        candidates = with_cosines(store, candidates, vector)
        verdicts = unread_change(starts, candidates, verdicts, [voice(speaker_of(o.meta), user) == mine for o in olds],
                                 _ruled_out(services, reading, olds, user, kept, anchors(text)), own,
                                 anchors(text) if wider else frozenset())
    return _assessment(services, scopes, candidates, verdicts, new, user, kept)


def _as_later(services: Services, new: Statement, later: Statement) -> Verdict:
    """The verdict on a candidate that begins after the new memory (history written after what
    followed it), judged as if it had been written after the new one, so that its own words
    decide: "This week yoga is on Tuesday" stays an exception to "I have yoga every Monday", and
    "I sold my Civic" ends "I drive a Civic". An update means the candidate ends the new memory
    (`Assessment.followed`)."""
    verdict = services.judge.judge(replace(later, similarity=1.0), [replace(new, similarity=later.similarity)])[0]
    if verdict.outcome == "update":
        # one person by two names ("Ana Lima" then, "Ana" later, maybe another Ana): time does not say
        if not any(same_subject(a.subject, b.subject) for a in later.reading.claims for b in new.reading.claims):
            return Verdict("conflict", f"{verdict.reason}, a person named otherwise, stated for an earlier time")
        return Verdict("update", f"{verdict.reason}; it begins later and ends the new memory")
    if verdict.outcome == "duplicate":
        return Verdict("related", "the same statement, from a later time")
    return verdict


def _inside(services: Services, new: Statement, candidates: list[Statement], verdicts: list[Verdict],
            user: str | None, wanted: frozenset[str] | None, kept: Mapping[str, ReadingParts],
            ambiguous: frozenset[str]) -> list[tuple[NodeView, Statement, Verdict]]:
    """History written inside a succession: the memories, no longer current, that the current
    memories ending the new one (history written after what followed it) replaced, back along
    their supersedes edges, each judged against the new memory: one that begins after it and
    changes it is an earlier end of it (`_as_later`), one that held when it began is changed by
    it (the judge's verdict; a supersession closes it where the new one begins). "I live in
    Austin" two years ago, then "I live in Boston" last month, then "I live in Denver" a year
    ago: Denver ends Austin and Boston ends Denver. Only updates come back: a memory that no
    longer holds is no conflict or relation of the new one."""
    store, starts = services.store, new.valid_from
    seen = {c.id for c in candidates}
    todo = [c.id for c, v in zip(candidates, verdicts) if v.outcome == "update" and c.valid_from > starts]
    found: list[tuple[NodeView, Statement, Verdict]] = []
    while todo:
        edges = [e.dst for e in store.edges(src=todo.pop(), type="supersedes") if e.dst not in seen]
        for view in store.get_many(edges).values():
            seen.add(view.anchor)
            if view.type != "Memory" or not holds_ever(view) or view.valid_to is None or view.valid_to <= starts:
                continue
            old = Statement(view.anchor, view.content or "", view.valid_from,
                            _unnamed(_view_reading(services, view, user, wanted, kept), ambiguous), similarity=1.0)
            if view.valid_from > starts:
                verdict = _as_later(services, new, old)
            else:
                verdict = services.judge.judge(new, [old])[0]
            if verdict.outcome == "update":
                found.append((view, old, verdict))
                if view.valid_from > starts:
                    todo.append(view.anchor)
    return found


def with_cosines(store: Store, candidates: list[Statement], vector: np.ndarray) -> list[Statement]:
    """The candidates with the cosine of their stored whole-text vector to `vector` where the
    search gave none (a process whose indexes are not loaded takes the scopes' most recent
    memories, at similarity 0; a BM25-only find)."""
    missing = {store.rowid(c.id): c.id for c in candidates if c.similarity <= 0.0}
    missing.pop(None, None)
    if not missing:
        return candidates
    blobs = store.vectors(list(missing), hnsw.EFFECTIVE)
    query = vector / (np.linalg.norm(vector) or 1.0)
    found = {missing[r]: float(np.frombuffer(b, dtype=np.float32) @ query) for r, b in blobs.items()}
    return [replace(c, similarity=found.get(c.id, c.similarity)) for c in candidates]


def _ruled_out(services: Services, reading: Reading, olds: list, user: str | None,
               kept: Mapping[str, ReadingParts], named: frozenset[str] = frozenset()
               ) -> Callable[[Statement, bool], bool]:
    """Whether a candidate cannot be what an unread change is about (`unread_change`): it
    names a value the new memory claims; or it states something the rules can read, in its own
    speaker's voice - which rules out the nearest in meaning (unless all it states is a thing's
    time, `_THING_TIMES`), and one sharing an anchor with the
    new memory (`anchored`) only where the new memory states something of the same subject too,
    in a slot the rules know: the judge then read both about that subject and found no change
    ("Sarah prefers tea", then "Sarah prefers aisle seats now"; "I work at Hulu", then "I quit
    Hulu and got YouTube TV"; not "I'm in the audit team at Deloitte", then "Not at Deloitte
    anymore. I joined a small fintech", whose joining is a relation of the extractor's). Nor is
    one whose only anchors shared with the new memory's (`named`) name someone whose own slot
    the new memory states, where it states nothing of theirs: the change is news of them
    ("Carla moved to Berlin", Carla's home, of "My best friend is Carla Mendes"; not "Anouk sold
    her share of the practice" of "My cousin Anouk works as a vet")."""
    views = {o.anchor: o for o in olds}
    return _ruling(reading, lambda old: _view_reading(services, views[old.id], user, None, kept).claims, named)


def ruled_out_by(reading: Reading, named: frozenset[str] = frozenset()) -> Callable[[Statement, bool], bool]:
    """`_ruled_out` for candidates whose readings are in hand (their `Statement.reading`: a
    conversation's turns, worlddb.memory.turn_updates)."""
    return _ruling(reading, lambda old: old.reading.claims, named)


#: the slots of a thing's time: read only under the thing's own name
_THING_TIMES = frozenset({"when", "due"})


def _ruling(reading: Reading, claims_of: Callable[[Statement], Iterable[SlotClaim]],
            named: frozenset[str] = frozenset()) -> Callable[[Statement, bool], bool]:
    values = [c.value for c in reading.claims if c.value and c.positive and not c.ended]
    # (a fact the extractor drew in a relation the rules have no slot for - "I joined a fintech":
    # member_of - is nothing the judge could compare with what the old memory states)
    subjects = {c.subject for c in reading.claims if c.attribute in CATALOGUE or is_open(c.attribute)}
    spoken_of = {w for c in reading.claims if c.named and (c.attribute in CATALOGUE or is_open(c.attribute))
                 for w in c.subject.split()}
    # "my other sister": the words of a subject the text says is another one
    others = {w for subject in subjects if "other" in subject.split() for w in subject.split()}

    def check(old: Statement, anchored: bool) -> bool:
        if any(re.search(r"\b" + re.escape(value) + r"\b", old.text, re.I) for value in values):
            return True
        theirs = tuple(claims_of(old))
        if not anchored:
            # (a thing's time is read only where a text names the thing as the rules do, so a change
            # naming it otherwise - "my therapist moved our sessions to Fridays" of "Therapy is on
            # Thursdays" - is not one they would have read)
            return any(c.attribute not in _THING_TIMES for c in theirs)
        # news of someone, by name, whose own slot the rules read in the new memory, where the old
        # one states nothing of theirs: about them, not about what the old memory says ("Carla
        # moved to Berlin", Carla's home, of "My best friend is Carla Mendes")
        shared = named & anchors(old.text)
        if shared and shared <= spoken_of and not any(w in spoken_of for c in theirs for w in c.subject.split()):
            return True
        if shared and shared <= others:
            return True  # "My other sister moved to Berlin" is not about "My sister Jen lives in Paris"
        return any(same_subject(c.subject, subject) for c in theirs for subject in subjects)

    return check


def nearest(services: Services, worlds: list[str], text: str, vector: np.ndarray,
            units: np.ndarray) -> dict[str, float]:
    """The current texts of `worlds` nearest to a text about to be written (by its whole-text and
    sentence vectors, and BM25 where they find few), anchor -> similarity: the candidates an
    unread change is judged against (a conversation's turns: worlddb.memory.turn_updates)."""
    return _candidates(services, worlds, text, vector, units, every=False, wanted=())


def unread_change(starts: int, candidates: list[Statement], verdicts: list[Verdict], same_voice: list[bool],
                  ruled_out: Callable[[Statement, bool], bool], own: bool, named: frozenset[str]
                  ) -> list[Verdict]:
    """For a new memory that says a change (extract.unread_change) where the judge decided
    nothing, the candidate it changes, if any, becomes an update that the write records as a
    revision (`Assessment.revised` with no attribute: it stays current and no fact of it ends).
    Only an older candidate in the same voice, unrelated by every slot the judge sees,
    qualifies: the nearest in meaning, if the change is the speaker's own (`own`: says_change)
    and the cosine at least CHANGE_SIMILARITY; else the nearest of those sharing an anchor with
    it (`named`: its anchors where it states a change in the wider words, else none), if at
    least ANCHORED_SIMILARITY. Either is dropped if `ruled_out`: it names a value the new memory
    claims (what a change replaces is the old value: "I moved to Denver" changes no "We looked
    at houses in Denver"), or states something the rules can read that they would have read a
    change of (`_ruled_out`)."""
    if not candidates or any(v.outcome in ("update", "conflict", "duplicate") for v in verdicts):
        return verdicts

    def open_to(k: int) -> bool:
        return candidates[k].valid_from < starts and verdicts[k].outcome == "unrelated" and same_voice[k]

    def revise(k: int) -> list[Verdict]:
        return [*verdicts[:k], Verdict("update", UNREAD_CHANGE), *verdicts[k + 1:]]

    nearest = max(range(len(candidates)), key=lambda k: candidates[k].similarity)
    if own and candidates[nearest].similarity >= CHANGE_SIMILARITY and open_to(nearest) \
            and not ruled_out(candidates[nearest], False):
        return revise(nearest)
    sharing = [k for k, old in enumerate(candidates)
               if old.similarity >= ANCHORED_SIMILARITY and open_to(k) and named & anchors(old.text)] if named else []
    if sharing:
        best = max(sharing, key=lambda k: candidates[k].similarity)
        if not ruled_out(candidates[best], True):
            return revise(best)
    return verdicts


def apply(services: Services, w: Writer, anchor: str, starts: int, assessment: Assessment,
          superseded: list[str], conflicts: list, revised: list[str],
          followed: tuple[list[str], list[str]] | None = None) -> None:
    """Write the decided edges from the new memory `anchor`, inside its write transaction. A
    memory still holds when the new one begins if it is not retired and its validity ends later
    or never: one that a planned change ends next year is current now, and a change written
    today ends it today. `followed` collects the memories that end the new one (superseded by,
    revised by): history written after what followed it (`_follow`)."""
    store = services.store
    superseded_by, revised_by = followed or ([], [])
    _follow(services, w, anchor, starts, assessment.followed, superseded_by, revised_by)
    for old, changed in assessment.revised:
        view = store.get(old)
        if not holds_from(view, starts) or view.valid_from > starts:
            continue  # replaced or retired meanwhile, or newer than this one: nothing to revise
        w.link(Edge("revises", anchor, old))
        revised.append(old)
        close_derived_facts(services, w, old, starts, only=changed, keep=assessment.keep)
    later: list[str] = []
    for old in assessment.superseded:
        view = store.get(old)
        if not holds_from(view, starts):
            continue  # replaced before this one begins, or retired, meanwhile: nothing left to close
        if view.valid_from > starts:
            later.append(old)
            continue
        w.link(Edge("supersedes", anchor, old))
        superseded.append(old)
        close_derived_facts(services, w, old, starts)
        hand_over_plans(services, w, old, anchor, starts, ended=revised_by)
    # a plan that ends what this one (or the memory it amends) replaces ends this one instead, and
    # the plans after it follow it: a succession, no conflict
    handed = _successors(store, anchor)
    for old in later:
        if old not in handed:
            w.link(Edge("contradicts", anchor, old))
            conflicts.append(ConflictOut(id=anchor, with_id=old))
    for old in assessment.conflicts:
        view = store.get(old)
        if holds_at(view, starts) and old not in handed:
            w.link(Edge("contradicts", anchor, old))
            conflicts.append(ConflictOut(id=anchor, with_id=old))
    for old in assessment.turns:
        view = store.get(old)
        if not holds_at(view, starts) or view.valid_from > starts:
            continue  # retired meanwhile, or said after this one begins
        if w.link(Edge("revises", anchor, old)) and old not in revised:
            revised.append(old)


def _follow(services: Services, w: Writer, anchor: str, starts: int,
            followed: tuple[tuple[str, frozenset[str] | None], ...], superseded_by: list[str],
            revised_by: list[str]) -> None:
    """The earliest of the memories that begin after the new one and change what it says
    (`Assessment.followed`) ends it, as if the two had been written in time order: a supersedes
    edge from it (the new memory's facts end where it begins), or a revises edge where the new
    memory also says what it leaves alone (only the changed attributes' facts end). "I live in
    Boston" from last month, then "I live in Austin" from two years ago: Austin held until
    Boston began."""
    store = services.store
    views = [store.get(old) for old, _ in followed]
    ordered = sorted(((v, changed) for v, (_, changed) in zip(views, followed)
                      if v is not None and holds_ever(v) and v.valid_from > starts),
                     key=lambda item: (item[0].valid_from, item[0].anchor))
    if not ordered:
        return
    view, changed = ordered[0]
    if changed is None:
        w.link(Edge("supersedes", view.anchor, anchor))
        close_derived_facts(services, w, anchor, view.valid_from)
        superseded_by.append(view.anchor)
    else:
        w.link(Edge("revises", view.anchor, anchor))
        close_derived_facts(services, w, anchor, view.valid_from, only=changed)
        revised_by.append(view.anchor)


def hand_over_plans(services: Services, w: Writer, old: str, new: str, starts: int,
                    ended: Iterable[str] = ()) -> None:
    """Let the planned changes of `old` end `new`, which replaces `old` from `starts`: each memory
    that supersedes `old` from a later time, and holds at some time, supersedes `new` too, and
    `new`'s facts end where that plan begins. "I work at Google" from March, then "I work at
    Figma" from January: Figma holds from January until March, whichever was written first, as
    it does when the old memory is amended instead. A plan in `ended` already revises `new`
    (`_follow`: the new memory also says what the plan leaves alone) and ends nothing more."""
    store = services.store
    plans = [v for v in store.get_many(e.src for e in store.edges(dst=old, type="supersedes")).values()
             if v.anchor != new and v.valid_from > starts and holds_ever(v) and v.anchor not in ended]
    for plan in sorted(plans, key=lambda v: (v.valid_from, v.anchor)):
        w.link(Edge("supersedes", plan.anchor, new))
        close_derived_facts(services, w, new, plan.valid_from)


def _successors(store: Store, anchor: str) -> set[str]:
    """Every memory that supersedes `anchor`, directly or through the ones that do."""
    seen: set[str] = set()
    todo = [anchor]
    while todo:
        for edge in store.edges(dst=todo.pop(), type="supersedes"):
            if edge.src not in seen:
                seen.add(edge.src)
                todo.append(edge.src)
    return seen


def holds_ever(view: NodeView | None) -> bool:
    """Whether a stored memory (or turn) holds at some time: not retired, and its validity not
    empty (a plan retired before it began, or amended at its own start, ends in the future but
    holds never)."""
    return view is not None and view.retired_at is None and (view.valid_to is None or view.valid_to > view.valid_from)


def holds_at(view: NodeView | None, at: int) -> bool:
    """Whether a stored memory (or turn) is current, now and at `at`: it holds at some time
    (`holds_ever`), and is not closed by then, whichever is later (a planned change may end it
    later; one closed in the past, replaced or retired meanwhile, is not current whatever `at`
    says)."""
    return holds_ever(view) and (view.valid_to is None or view.valid_to > max(at, now_us()))


def holds_from(view: NodeView | None, at: int) -> bool:
    """Whether a stored memory holds at some time (`holds_ever`) and still at `at` or after it,
    whether or not it is current: a memory a later one replaced, that held when history written
    late begins, is changed by that history (`_inside`). For a time still to come, `holds_at`."""
    return holds_ever(view) and (view.valid_to is None or view.valid_to > at)


def close_derived_facts(services: Services, w: Writer, old_memory: str, at: int,
                        only: frozenset[str] | None = None, keep: frozenset[str] = frozenset()) -> None:
    """A replaced memory's facts end where its replacement begins; a revised memory's, only
    those whose relation is about one of the attributes in `only`, and none in `keep`."""
    for edge in services.store.edges(dst=old_memory, type="derived_from"):
        if edge.src in keep:
            continue
        view = services.store.get(edge.src)
        if view is None or (view.valid_to is not None and view.valid_to <= at):
            continue
        if only is not None and attribute_for_relation(view.meta.get("relation", "")) not in only:
            continue
        w.close(edge.src, max(at, view.valid_from), "source revised" if only is not None else "source superseded")


# ---------------------------------------------------------------------------- candidates
def _candidates(services: Services, worlds: list[str], text: str, vector: np.ndarray,
                units: np.ndarray, every: bool = False, wanted: Iterable[claims_index.Key] = ()) -> dict[str, float]:
    """Anchor -> best cosine to the new text (0 for a BM25-only find), nearest first, then the
    memories the claims index gives for the keys `wanted`. `every`: the BM25 matches must hold
    every word of the text (the judge needs no others)."""
    store, now = services.store, now_us()
    best: dict[int, float] = {}
    for index, queries in ((services.units, units), (services.whole, vector.reshape(1, -1))):
        if index.source == "empty":
            for (rowid,) in store.conn.execute(_RECENT.format(worlds=rowids_sql(len(worlds))),
                                               (*list_params(worlds), now, RECENT)):
                best.setdefault(rowid, 0.0)
            continue
        for query in queries:
            for rowid, similarity in index.search(query, NEIGHBOURS * 4):
                if similarity >= MIN_SIMILARITY and similarity > best.get(rowid, -1.0):
                    best[rowid] = similarity
    allowed = eligible(store, worlds, list(best), now)
    # A BM25-only find ranks below every vector neighbour (its similarity is 0), so once the
    # neighbours fill the candidates the search cannot change them: it is skipped (a full
    # BM25 search of a text with many words is most of a write's judging).
    if sum(1 for r in allowed if best[r] > 0.0) < CANDIDATES:
        found = [rowid for rowid, _ in lexical(store, text, worlds, NEIGHBOURS, open_only_at=now, every=every)
                 if rowid not in best]
        for rowid in found:
            best[rowid] = 0.0
        allowed |= eligible(store, worlds, found, now)
    ranked = sorted((r for r in best if r in allowed), key=lambda r: -best[r])[:CANDIDATES]
    nearest = set(ranked)
    for rowid in claims_index.claiming(store, worlds, wanted, limit=MAX_CLAIMED, now=now, types=("Memory",)):
        if rowid in nearest:
            break  # the judge already reads a claim of the slot newer than the rest (module docstring)
        ranked.append(rowid)
    anchors = store.anchors_for_rowids(ranked)
    return {anchors[r]: best.get(r, 0.0) for r in ranked if r in anchors}


#: which reading of a text's claims this code records (`claim_keys`): raise it whenever a
#: change to the slot reader (worlddb.extract.slots) or to `claim_keys` changes what some text
#: claims. A store whose rows another reader recorded has its memories read again, in the
#: background, by this one (worlddb.memory.claims_backfill.mark_stale). A test holds the
#: number to the keys it reads from a fixed set of texts (tests/memory/test_claims_reader.py).
#: Reader 2: a pronoun's person is named before it, and "my sister got a job at" is hers.
#: Reader 3: a wish, a plan or a condition ("I might move to Denver") claims nothing.
#: Reader 4: a named speaker's first person is keyed under the speaker's name; "is set to",
#: "<kind> line:" and a number as no provider.
#: Reader 5: "I quit Dell", "laid off from", "started at Stripe" are read as the job they end or begin.
#: Reader 6: a value stops at an "and" that begins a new clause; "you", "It", a gerund claim nothing;
#: a hope is irrealis; "I left Dell", "I'm now at Stripe", "New number:", "the thermostat is set to".
#: Readers 7-9: contractions, purposes, "cancelled X and joined Y", roles and titles, openers.
#: Reader 10: conversation turns' claims are recorded too (worlddb.memory.turn_updates).
#: Reader 11: "quit X and started at Y" names Y; "a while ago", "five years ago" end a value.
#: Reader 12: a turn's rows are recorded under its attributes prefixed (claims.TURN).
#: Reader 13: an assistant's turn claims what it restates of the user ("you live in Austin").
#: Reader 14: a change said for a time still to come claims nothing yet; a name quit is no activity,
#: and no job when something else is got instead; "got a job at", counts of a kind, goals as
#: headings, fees "set to", degrees and programs, carriers, insurers by kind, where mail goes.
#: Reader 15: a title read now ("I'm reading Dune") or finished ("Finished Dune") is the book being read.
#: Reader 16: medications taken or stopped ("I take 20 mg of lisinopril", "took me off warfarin").
#: Reader 17: "I got divorced (in May)", "X and I got divorced" end the partner; "Our cat Luna died" the pet;
#: a banker or a broker is an occupation ("I work as a banker at Citi"); "I got laid off" ends the
#: job; "reach me at 555-0199" is a phone number; "My brother Sam ..." is keyed under "brother" too;
#: "on a keto diet", "stopped being vegan" are diets.
#: Reader 18: "I've been at Stripe since January" is an employer; "I separated from my husband",
#: "My wife and I split up" end the partner; "I'm learning Spanish" is an activity, and "I gave up
#: on Spanish" ends it; ages ("Lily just turned 8"); a meeting moved to a bare hour ("to 10"); "My
#: coworker Raj prefers Python" is Raj's preference; "moved to Portland for a new job at Nike" is
#: the mover's job, not Portland's; a job applied for, offered or turned down is none held; "Please
#: use alice@new.io from now on" is the speaker's email; "no marathon this year", "I pulled out of the
#: Boston marathon" end the goal ("Boston marathon" whole, not "Boston"); "I moved all my accounts to
#: Ally Bank" is the bank; "I'm asleep by 9:30", "I fall asleep around 10" are bedtimes; "I love
#: hiking", "I collect vinyl records" are pastimes (activity); a project's parts ("The frontend is
#: written in React", "We moved CI to Buildkite") and URLs are open slots; "We deploy on Tuesdays".
#: Reader 19: a clause may leave its subject out ("Switched to Neovim", "Sold the Civic and bought a
#: Tesla": the speaker's, not "Sold"'s); an open slot is read from a clause's head when a detail
#: follows its value ("The API is hosted on Heroku, two standard dynos"); "The frontend is a Vue 2
#: app", "Our unit tests run on Jest", "Staging is at <URL>" (the staging URL), "We moved the API from
#: our old host onto Fly.io"; a pet's value keeps its name ("beagle Biscuit"), and "we lost Biscuit"
#: ends it where the text speaks of pets; "I broke up with my girlfriend Amy" only ends Amy; "QA lead";
#: "switched me over to escitalopram"; "Traded the old car in for a Mazda"; "I'm done with my old
#: bank"; "I'm not doing the league anymore"; "I'm in Leeds, renting ..."; "What I actually react to
#: is codeine"; a tool's name in lower case as a part's value ("switched the monorepo over to pnpm");
#: an open slot's statement after a short label ("Quick context: the API is hosted on Heroku"); "We
#: run CI on Travis".
#: Reader 20: "He's a nurse now" is a role; "still drives his old Volvo" holds the Volvo; "bought
#: himself a Honda Jazz" is a car; "Dad sold the Volvo and bought ..." is Dad's; a clause may open with
#: the time it is dated from ("As of Friday the site lives on Cloudflare Pages", "Since May ...").
#: Reader 21: "..., which makes three cats", "bringing us to two dogs" are counts; "First week at
#: Monzo done" opening a sentence of a text that speaks of work is the employer.
#: Reader 22: a verb in the past that opens a text ("Called Mum. She ...") is no pronoun's person;
#: "quit the clinic", "left the company" end a job (not a pastime), and "left the office" nothing.
#: Reader 23: a season or a month after a verb of an arranged future ("we're moving to Montreal in
#: the spring", "I'm starting at Kestrel in January") is a change still to come.
#: Reader 24: "Got a new phone number: ..." opening a note is the speaker's phone.
#: Reader 25: a clause opened by a full name is about that full name ("Alex Morgan is a customer who
#: works at Globex": alex morgan, not alex), and so is a pronoun whose antecedent is one.
#: Reader 26: "the 14th of March" is the whole date; a company one moves to ("moved to Umbrella Corp")
#: is an employer, never a home; supplements are taken as medicines are ("I take vitamin D").
#: Reader 27: a named person's thing is theirs ("Jen's flight": jen's flight, not flight), so it is
#: neither the speaker's nor another person's of that name.
#: Reader 28: a medicine started is taken ("I started metformin 500mg").
#: Reader 29: a medicine's dose is a slot of its own, one per medicine ("lisinopril 10mg").
#: Reader 30: a named person's birthday or anniversary is read as one's own is ("Sam's birthday is ...").
#: Reader 31: a title ending in "practitioner" or a specialist's suffix ("pediatrician", "radiologist") is a
#: role; "a teacher at Lincoln" is a teacher at Lincoln, not a role of "teacher at Lincoln".
#: Reader 32: a date or a time is no place ("The project deadline moved to April 2" is no home); a note
#: that opens with the weight reached is the speaker's weight ("Down to 78 kg now!"); "my dog turned 5" is
#: the dog's age.
#: Reader 33: a sum that opens a sentence is a thing's amount with no "my" ("Rent went up to $2,350"); a
#: medicine of someone's raised or lowered to a dose is their dose ("My doctor bumped my Lexapro to 30mg").
#: Reader 34: what one earns is one's salary ("Got a raise, I make $110k now").
#: Reader 35: a student's year names the school ("I'm a junior at UCLA"), which "graduated from" ends; an
#: account opened in a text that speaks of banking is at one's bank ("opened a checking account at Ally").
#: Reader 36: what one makes doing something is no salary ("I make $20 an hour babysitting").
#: Reader 37: "I'm Sam, ..." is the speaker's name, as "My name is Sam" is.
#: Reader 38: a car named by its model alone ("I drive a Civic"); "my Honda Civic is ..." holds no "is".
#: Reader 39: a name beside the role it holds ("Marcus, my manager since May", "Dr. Kim is my new GP",
#: "Sam is my boyfriend"); "pushed the launch out to April 14"; a child dropped off or picked up at a
#: school; "Day three at Stripe" where the text speaks of work; a way to work taken on one day is no
#: habit ("took the train to work today"); "a strict vegetarian" keeps a diet; a thing's name whose
#: ending looks plural stays as written ("the Atlas project", not "atla project"); the team one works in
#: ("I'm on the payments team", "I joined the search team"; not a sports team).
CLAIMS_READER = schema.CLAIMS_READER


def claim_keys(text: str, facts: Iterable[FactCandidate], user: str | None,
               speaker: str | None = None) -> frozenset[claims_index.Key]:
    """What the claims index records for a memory about to be written (outside the lock), said
    by `speaker` (`speaker_of` its metadata): a named speaker's first-person claims are keyed
    under the speaker's name, not "me"."""
    return claims_index.keys(claim_reading(text, facts, user, speaker), text)


def claim_reading(text: str, facts: Iterable[FactCandidate], user: str | None,
                  speaker: str | None = None) -> Reading:
    """The slot reading `claim_keys` keys: the text's claims and its facts', in `speaker`'s voice."""
    return _reading(text, facts, user, speaker=speaker)


#: the role whose turns restate what the user said (turn_reading)
ASSISTANT = "assistant"


def turn_reading(text: str, speaker: str, user: str | None) -> Reading:
    """The slot reading of a conversation turn said by `speaker` (its role as given): in the
    speaker's voice, the scope's user's for "user". An assistant's turn is read for what it
    restates of the user, in the user's voice: its plain statements about "you"
    (worlddb.extract.addressed; "Got it - you live in Austin"). A system's or a tool's turn, or
    one of no one, claims nothing (worlddb.memory.turn_updates)."""
    folded = speaker.strip().casefold()
    if folded == ASSISTANT:
        restated = addressed.as_user(text)
        return _reading(restated, (), user, speaker="user") if restated else UNREAD
    if not folded or folded in GENERIC_ROLES - {"user"}:
        return UNREAD
    return _reading(text, (), user, speaker=speaker)


def restates(speaker: str) -> bool:
    """Whether a turn of `speaker` (its role as given) only restates what another said: an
    assistant's, whose claims are what it took the user to have said (`turn_reading`)."""
    return speaker.strip().casefold() == ASSISTANT


def stored_reading(store: Store, view, user: str | None, kept: Mapping[str, ReadingParts] | None = None) -> Reading:
    """A stored memory's reading as the judge reads a candidate: its text and current facts,
    in its speaker's voice; its text's from `kept` (worlddb.memory.readings, loaded here if
    not given) when that holds it."""
    speaker = speaker_of(view.meta)
    if kept is None:
        kept = kept_readings.load(store, {view.anchor: (user, speaker)})
    parts = kept.get(view.anchor)
    found = read(view.content or "", speaker_is=user, speaker=speaker) if parts is None else parts.reading()
    return _with_facts(found, stored_facts(store, view.anchor), user, None, speaker, view.content or "")


def text_parts(text: str, user: str | None, speaker: str | None) -> ReadingParts:
    """A memory's own slot reading in parts, without its facts' claims, in `speaker`'s voice:
    what a write keeps of it (worlddb.memory.readings) and the judge reads of it later."""
    return read_parts(text, speaker_is=user, speaker=speaker)


def _view_reading(services: Services, view, user: str | None, attributes: frozenset[str] | None,
                  kept: Mapping[str, ReadingParts], facts: Mapping[str, list[FactCandidate]] | None = None) -> Reading:
    """A candidate's reading (of `attributes` only, if given), as `_reading` reads its text and
    current facts in its speaker's voice: from its kept reading when `kept` holds it, with its
    facts from `facts` (`stored_facts_of` the candidates) when given."""
    speaker = speaker_of(view.meta)
    parts = kept.get(view.anchor)
    found = read(view.content or "", speaker_is=user, attributes=attributes, speaker=speaker) if parts is None \
        else parts.reading(attributes)
    if attributes is not None and not attributes:
        return _with_facts(found, (), user, attributes, speaker)
    own = facts.get(view.anchor, []) if facts is not None else _stored_facts(services, view.anchor)
    return _with_facts(found, own, user, attributes, speaker, view.content or "")


def user_named(provenance: object) -> str | None:
    """The `user` a stored memory's or turn's claims were read for: the first user scope its
    write named (its provenance), if any."""
    named = provenance.get("scopes") if isinstance(provenance, Mapping) else None
    for key in named if isinstance(named, list) else ():
        if isinstance(key, str) and key.startswith("user:"):
            return key[len("user:"):]
    return None


def speaker_of(metadata: object) -> str | None:
    """Who a memory's metadata says said its text (its `speaker`, else its `role`), if anyone:
    the voice its first person is read in (slots.read's `speaker`)."""
    return text_index.speaker_named("Memory", metadata) if isinstance(metadata, Mapping) else None


#: the latest memories of the scopes, when no index is built to find the nearest
RECENT = 20
_RECENT = ("SELECT DISTINCT n.rowid FROM closure c JOIN nodes n ON n.rowid = c.node WHERE c.world IN {worlds} "
           "AND n.type = 'Memory' AND (n.valid_to IS NULL OR n.valid_to > ?) ORDER BY n.rowid DESC LIMIT ?")


def _stored_facts(services: Services, memory: str) -> list[FactCandidate]:
    return stored_facts(services.store, memory)


def stored_facts(store: Store, memory: str) -> list[FactCandidate]:
    """The current facts derived from a stored memory, as the extractor's candidates."""
    return stored_facts_of(store, [memory]).get(memory, [])


def stored_facts_of(store: Store, memories: Iterable[str]) -> dict[str, list[FactCandidate]]:
    """`stored_facts` of each of `memories` that has any, in three statements for them all."""
    return {memory: [fact for _, fact in found] for memory, found in _facts_of(store, memories).items()}


def _facts_of(store: Store, memories: Iterable[str]) -> dict[str, list[tuple[str, FactCandidate]]]:
    """(fact anchor, the fact as the extractor's candidate) of each current fact derived from
    each of `memories` that has any."""
    derived = store.sources(memories, "derived_from", node_type="Fact")
    facts = store.get_many(f for found in derived.values() for f in found)
    current = {anchor: view for anchor, view in facts.items() if view.valid_to is None}
    named = store.get_many({view.meta.get("subject", "") for view in current.values()}
                           | {view.meta.get("object", "") for view in current.values()
                              if view.meta.get("object_is_entity")})
    out: dict[str, list[tuple[str, FactCandidate]]] = {}
    for memory, found in derived.items():
        for view in (current[f] for f in found if f in current):
            meta = view.meta
            subject = named.get(meta.get("subject", ""))
            obj = meta.get("object", "")
            if meta.get("object_is_entity"):
                target = named.get(obj)
                obj = target.name if target is not None else obj
            out.setdefault(memory, []).append((view.anchor, FactCandidate(
                subject.name if subject is not None else "", meta.get("relation", ""), obj or "", view.content or "")))
    return out


def _reading(text: str, facts: Iterable[FactCandidate], user: str | None,
             attributes: frozenset[str] | None = None, speaker: str | None = None, namesake: bool = False) -> Reading:
    """The slot reading of a text (of `attributes` only, if given) said by `speaker` (None: the
    user, or no one named), with the claims its facts make. `namesake`: someone else of the
    user's name is known, so the user's name in the text is not read as the user."""
    read_as = None if namesake and speaker is None else user
    return _with_facts(read(text, speaker_is=read_as, attributes=attributes, speaker=speaker), facts, user,
                       attributes, speaker, text, exact=namesake)


def namesakes(services: Services, worlds: list[str], user: str | None) -> frozenset[str]:
    """Someone else of the user's name the scopes know: an entity of that name a write created
    for a text that names someone of the speaker's by it ("my coworker Alice" for the user alice;
    worlddb.memory.write records `namesake_of` in its provenance). "Alice prefers tea", written of
    the user, makes no such one."""
    if user is None:
        return frozenset()
    folded = user.strip().casefold()
    views = services.store.get_many(services.resolver.entities_named(worlds, user))
    return frozenset(a for a, v in views.items() if str(v.provenance.get("namesake_of", "")).casefold() == folded)


def _with_facts(reading: Reading, facts: Iterable[FactCandidate], user: str | None,
                attributes: frozenset[str] | None, speaker: str | None, text: str = "", exact: bool = False) -> Reading:
    """`reading` (of `text`, in `speaker`'s voice) with the claims its `facts` make (of
    `attributes` only, if given) that it does not make already; `exact`: only the user's name
    exactly as given names the user (someone else of that name is known: `namesakes`)."""
    extra = []
    others = names_another(text, user)
    for fact in facts:
        claim = _fact_claim(fact, user, speaker, exact, others)
        if claim is None or attributes is not None and claim.attribute not in attributes:
            continue
        if not any(c.key == claim.key and c.value.casefold() == claim.value.casefold() for c in reading.claims):
            extra.append(claim)
    return Reading(reading.claims + tuple(extra), reading.cues) if extra else reading


def _fact_claim(fact: FactCandidate, user: str | None, speaker: str | None, exact: bool = False,
                others: bool = False) -> SlotClaim | None:
    """The slot claim a fact makes, read in `speaker`'s voice; None for one without both ends.
    `exact`: the user is named by their name exactly as given (someone else of that name is
    known); `others`: the text names someone else by the user's name (`slots.names_another`), so no
    name in its facts is the user ("user" is)."""
    if not fact.subject or not fact.object:
        return None
    named = voice(speaker, user)
    subject = fact.subject.strip()
    said = subject.casefold()
    if named is not None and said in {"i", "me", speaker.strip().casefold()}:
        key = named
    elif said in {"user", "i", "me"} or user and not others and (
            subject == user.strip() if exact else said == user.casefold()):
        key = ME
    else:
        key = normalise_subject(subject)
    return SlotClaim(key, attribute_for_relation(fact.relation), fact.object.strip())


def left_alone(services: Services, new: Reading, revised: list[tuple[str, frozenset[str]]],
               user: str | None) -> frozenset[str]:
    """The facts of `revised` memories in a changed attribute whose subject the new memory does
    not speak of: "Ana started at Nikon" ends Ana's job in "I work at Dell and my sister Ana
    works at Canon", not the user's (Assessment.keep)."""
    changed = {old: attrs for old, attrs in revised if attrs}
    if not changed:
        return frozenset()
    views = services.store.get_many(changed)
    keep = set()
    for old, found in _facts_of(services.store, changed).items():
        speaker = speaker_of(views[old].meta) if old in views else None
        others = old in views and names_another(views[old].content or "", user)
        for anchor, fact in found:
            claim = _fact_claim(fact, user, speaker, others=others)
            if claim is not None and claim.attribute in changed[old] and _plainly_other(claim, new.claims):
                keep.add(anchor)
    return frozenset(keep)


def _assessment(services: Services, scopes: ScopeSet, candidates: list[Statement], verdicts: list[Verdict],
                statement_new: Statement, user: str | None, kept: Mapping[str, ReadingParts]) -> Assessment:
    new = statement_new.reading
    superseded, conflicts, related, revised, followed, duplicate = [], [], [], [], [], None
    for statement, verdict in zip(candidates, verdicts):
        if verdict.reason == UNREAD_CHANGE:
            revised.append((statement.id, frozenset()))
        elif verdict.outcome == "update" and statement.valid_from > statement_new.valid_from:
            # history written after what followed it: the later memory ends the new one, whole or in part
            view = services.store.get(statement.id)
            later = _view_reading(services, view, user, None, kept) if view is not None else statement.reading
            followed.append((statement.id, _changed_only_in_part(services, later, statement_new, user, kept)))
        elif verdict.outcome == "update":
            changed = _changed_only_in_part(services, new, statement, user, kept)
            if changed is not None:
                revised.append((statement.id, changed))
            else:
                superseded.append(statement.id)
        elif verdict.outcome == "conflict":
            conflicts.append(statement.id)
        elif verdict.outcome == "duplicate" and duplicate is None and _in_every(services, scopes, statement.id):
            duplicate = statement.id
        elif verdict.outcome in ("related", "duplicate"):
            related.append(statement.id)
    if duplicate is not None:
        return Assessment(duplicate_of=duplicate)
    return Assessment(tuple(superseded), tuple(conflicts), None, tuple(related[:MAX_RELATED]), tuple(revised),
                      keep=left_alone(services, new, revised, user), followed=tuple(followed))


def _changed_only_in_part(services: Services, new: Reading, old: Statement, user: str | None,
                          kept: Mapping[str, ReadingParts]) -> frozenset[str] | None:
    """For a memory the new one updates: None if the update covers it, else the attributes
    (with their families) the new memory changes. It covers it unless the new memory speaks of
    a subject of the old one, and the old one, read in full, claims something about that subject
    or another ("I work at Dell and my sister lives in Paris", then "I started at HP"), in a
    slot (an attribute of the catalogue, a relation the judge holds single-valued, or a
    single-valued open slot) that neither the new memory nor a current one that already
    revises it speaks of for that subject
    (slots of one family count as one; a replacement with no slot of its own, "I switched to
    Neovim", speaks of every open slot, and of any slot holding the value it names as left:
    "I switched from Spanish to Italian"). A fact of another relation ("is_a nurse") restates
    the text in other terms and is no such claim, nor is one whose value is a subject the new
    memory speaks of ("my husband Ravi" says who Ravi is, and "Ravi's new job" is about him),
    nor one about whom a changed slot named ("Bob is my manager at Dell": Bob's job there
    says who the manager was).
    So a memory whose every slot has been changed, one revision at a time, is superseded by the
    last."""
    slots = CATALOGUE.keys() | getattr(services.judge, "single", frozenset())
    changers = list(new.claims)
    for edge in services.store.edges(dst=old.id, type="revises"):
        view = services.store.get(edge.src)
        if view is not None and view.valid_to is None:
            changers.extend(_reading(view.content or "", _stored_facts(services, view.anchor), user,
                                     speaker=speaker_of(view.meta)).claims)
    stored = services.store.get(old.id)
    full = _view_reading(services, stored, user, None, kept) if stored is not None else _reading(
        old.text, _stored_facts(services, old.id), user)
    if not any(_about(n, claim) for claim in full.claims for n in new.claims):
        return None  # no subject of the old memory is the new one's: the judge's update stands
    spoken = {normalise_subject(n.subject) for n in new.claims}
    # whom a changed slot named: "Bob Smith is my manager at Dell", then "Priya is my manager now":
    # Bob's job there says who the manager was, and goes with the change
    changed = covered(n.attribute for n in new.claims)
    named = {normalise_subject(c.value) for c in full.claims
             if c.attribute in changed and any(_about(n, c) for n in new.claims)}
    for claim in full.claims:
        if not _is_slot(claim.attribute, slots):
            continue
        if not any(_about(n, claim) for n in new.claims) and (
                not _plainly_other(claim, new.claims)
                or any(same_subject(normalise_subject(claim.value), s) for s in spoken)
                or any(same_subject(claim.subject, s) for s in named)):
            continue  # maybe the same person by another name, or who a subject is: no second statement
        about = [n for n in changers if _about(n, claim)]
        # a medicine stopped ends its dose too: the slot qualified by a value that ended
        of = CATALOGUE[claim.attribute].of if claim.attribute in CATALOGUE else ""
        if of and any(n.attribute == of and (n.ended or not n.positive) and same_value(n.value, claim.qualifier)
                      for n in about):
            continue
        if claim.attribute not in covered({n.attribute for n in about}) and not any(
                n.attribute == REPLACES and (is_open(claim.attribute) or n.ended and same_value(n.value, claim.value))
                for n in about):
            return changed
    return None


def _is_slot(attribute: str, slots: Iterable[str]) -> bool:
    """A slot a revision keeps: the catalogue's, one the judge holds single-valued, or an open
    slot of one value (worlddb.extract.open_slots: "our wifi password is ...")."""
    return attribute in slots or is_single_open(attribute)


def _ambiguous_first_names(services: Services, worlds: list[str], reading: Reading) -> frozenset[str]:
    """The first names of `reading`'s named subjects that begin the full names of two or more
    people of the scopes (the resolver's names): "Ana" is then neither Ana Souza nor Ana Lima."""
    firsts = {claim.subject.split()[0] for claim in reading.claims if claim.named}
    out = set()
    for world in worlds:
        scope = services.store.rowid(world)
        for first in firsts - out:
            known = services.resolver.index.containing(scope, first, MAX_NAMESAKES)
            full = {c.norm for c in known or () if c.norm.startswith(first + " ") and c.etype in (None, "person")}
            if known is None or len(full) > 1:
                out.add(first)
    return frozenset(out)


def _unnamed(reading: Reading, ambiguous: frozenset[str]) -> Reading:
    """`reading`, its claims about a subject whose first name is `ambiguous` no longer taken
    for names (slots.same_person): such a claim matches only the same words."""
    if not ambiguous or not any(c.named and c.subject.split()[0] in ambiguous for c in reading.claims):
        return reading
    claims = tuple(replace(c, named=False) if c.named and c.subject.split()[0] in ambiguous else c
                   for c in reading.claims)
    return Reading(claims, reading.cues)


def _plainly_other(claim: SlotClaim, claims: Iterable[SlotClaim]) -> bool:
    """Whether `claim` is about none of the subjects of `claims`, not even one that shares a word
    of its name: a fact keyed by the entity's full name ("alice smith") and a text that names
    her by her first ("Alice moved to Munich") may well be one person."""
    words = set(claim.subject.split())
    return not any(_about(n, claim) or words & set(n.subject.split()) for n in claims)


def _about(a: SlotClaim, b: SlotClaim) -> bool:
    """Whether two claims are about one subject ("Ana" and "Ana Souza" included)."""
    return same_subject(a.subject, b.subject) or same_person(a, b)


def _in_every(services: Services, scopes: ScopeSet, anchor: str) -> bool:
    """A duplicate must already be in every scope the write names, or writing nothing loses it."""
    store = services.store
    for kind, sid in scopes:
        world = store.scope_anchor(kind, sid)
        if world is None or anchor not in store.in_worlds([world], [anchor]):
            return False
    return True
