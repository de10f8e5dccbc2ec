"""Update detection at write time: what a new memory means for the current ones it may be about.

For each memory_write (not an amend, which names what it replaces), before the write lock:

1. Candidates (worlddb.memory.update_candidates): current Memory nodes in the write's scopes that may
   be about the same thing - the nearest by meaning, the best BM25 matches, and the memories
   the claims index says claim the same slot.
2. Readings (worlddb.memory.slot_readings): each text's slot claims and cues, and the claims
   of its facts, in its speaker's voice.
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
   nearest memories even when the judge could only find repeats (`only_repeats`). So does a
   correction that names only the value it says was wrong ("Actually, it's Friday, not
   Thursday": `correction`), which revises the nearest older memory in its voice naming it.

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
from dataclasses import dataclass, field, replace

import numpy as np

from worlddb.core.records import Edge, NodeView
from worlddb.core.store import Store
from worlddb.core.timeutil import now_us
from worlddb.extract import FactCandidate
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
    kin_word,
    names_another,
    normalise_subject,
    same_person,
    same_subject,
    same_value,
    voice,
)
from worlddb.extract.unread_change import (
    ANCHORED_SIMILARITY,
    CHANGE_SIMILARITY,
    anchors,
    corrected,
    died,
    names_value,
    says_change,
    states_change,
)
from worlddb.graph import identity
from worlddb.graph.database import Writer
from worlddb.retrieval import claims as claims_index

from . import readings as kept_readings
from .results import ConflictOut
from .scopes import ScopeSet, scope_anchors
from .services import Services
from .slot_readings import (
    UNREAD,
    fact_claim,
    facts_of,
    namesakes,
    reading_of,
    speaker_of,
    stored_facts,
    stored_facts_of,
    view_reading,
)
from .update_candidates import MAX_CLAIMED, find, with_cosines

#: how many undecided candidates a write reports
MAX_RELATED = 5


#: the reason of an update that is a change the rules could not read (`unread_change`)
UNREAD_CHANGE = "a change the rules cannot read, of the memory nearest to it or naming what it changes"


#: how long before the write a memory's start must be for it to be history (`_held_then`), µs
PAST = 1_000_000
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


@dataclass(frozen=True)
class Naming:
    """How the scopes name the people a new memory speaks of, for reading its candidates: the
    first names that begin the full names of several of them (`_ambiguous_first_names`), and
    the other names an accepted identity gives someone the new memory names, each to the name it
    uses (`_identities`): "Bob Smith lives in Austin" is about Robert Smith once the two are one."""

    ambiguous: frozenset[str] = frozenset()
    same: Mapping[str, str] = field(default_factory=dict)

    def of(self, reading: Reading) -> Reading:
        """A candidate's reading as the judge compares it with the new memory's."""
        return _renamed(_unnamed(reading, self.ambiguous), self.same)


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
    reading = reading_of(text, facts, user, speaker=speaker, namesake=bool(namesakes(services, worlds, user)))
    if isinstance(services.judge, BuiltinJudge):
        reading = _with_pets_lost(reading, text, voice(speaker, user) or ME)
    naming = Naming(_ambiguous_first_names(services, worlds, reading), _identities(services, worlds, reading))
    new = Statement("", text, starts, _unnamed(reading, naming.ambiguous), similarity=1.0)
    # a change the built-in rules cannot read still needs the nearest memories (`unread_change`)
    own, wider, wrong = says_change(text), states_change(text), corrected(text)
    unread = isinstance(services.judge, BuiltinJudge) and bool(own or wider or wrong)
    repeats = bool(getattr(services.judge, "only_repeats", lambda _: False)(new)) and not unread
    wanted_keys = frozenset() if repeats else claims_index.keys(new.reading, text)
    # the claims of the other names an accepted identity gives someone the new memory names
    wanted_keys |= {(other, attribute) for subject, attribute in wanted_keys
                    for other, named in naming.same.items() if named == subject}
    found = find(services, worlds, text, vector, units, every=repeats, wanted=wanted_keys)
    views = store.get_many(found)
    olds = [views[a] for a in found if a in views and views[a].type == "Memory" and holds_ever(views[a])]
    # (history written late: what held when it begins, though nothing current is about it)
    held = [] if repeats else _held_then(services, worlds, starts, wanted_keys, {v.anchor for v in olds})
    if not olds and not held:
        return NOTHING
    # a candidate matters only through the attributes the new memory names: read just those; an
    # ended replacement names the value it leaves, in whatever slot holds it ("switched from
    # Spanish to Italian" of "I'm learning Spanish"), so its candidates are read whole
    whole = any(c.attribute == REPLACES and c.ended for c in new.reading.claims)
    wanted = None if whole else comparable({c.attribute for c in new.reading.claims})
    kept = {} if repeats else kept_readings.load(store, {v.anchor: (user, speaker_of(v.meta)) for v in olds})
    facts = stored_facts_of(store, [v.anchor for v in olds]) if not repeats and (whole or wanted) else {}
    candidates = [Statement(v.anchor, v.content or "", v.valid_from,
                            UNREAD if repeats else naming.of(view_reading(services, v, user, wanted, kept, facts)),
                            similarity=found[v.anchor]) for v in olds]
    verdicts = services.judge.judge(new, candidates)
    if not repeats:
        verdicts = [_as_later(services, new, c) if c.valid_from > starts and v.outcome != "duplicate" else v
                    for c, v in zip(candidates, verdicts)]
        for view, statement, verdict in _inside(services, new, candidates, verdicts, user, wanted, kept, naming,
                                                held):
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
        same_voice = [voice(speaker_of(o.meta), user) == mine for o in olds]
        verdicts = correction(starts, candidates, verdicts, same_voice, wrong)
        if own or wider:
            verdicts = unread_change(starts, candidates, verdicts, same_voice,
                                     _ruled_out(services, reading, olds, user, kept, anchors(text)), own,
                                     anchors(text) if wider else frozenset())
    return _assessment(services, scopes, candidates, verdicts, new, user, kept, naming)


def _held_then(services: Services, worlds: list[str], starts: int, keys: Iterable[claims_index.Key],
               seen: set[str]) -> list[NodeView]:
    """The memories of `worlds` that claim one of `keys` and held when a memory stated for an
    earlier time (`starts`, in the past) begins, but hold no longer: "I live in Austin" two years
    ago, replaced by a "Boston" since retired, is what "I live in Denver" from a year ago ends."""
    if starts >= now_us() - PAST or not keys:
        return []  # a memory stated for now: what held then still holds
    store = services.store
    rows = claims_index.claiming(store, worlds, keys, limit=2 * MAX_CLAIMED, now=starts, types=("Memory",))
    anchors = store.anchors_for_rowids(rows)
    views = store.get_many(a for a in anchors.values() if a not in seen)
    return [v for v in views.values() if v.valid_to is not None and v.valid_from <= starts < v.valid_to]


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
            naming: Naming, held: Iterable[NodeView] = ()) -> list[tuple[NodeView, Statement, Verdict]]:
    """History written inside a succession: the memories, no longer current, that the current
    memories ending the new one (history written after what followed it) replaced, back along
    their supersedes edges, each judged against the new memory: one that begins after it and
    changes it is an earlier end of it (`_as_later`), one that held when it began is changed by
    it (the judge's verdict; a supersession closes it where the new one begins). "I live in
    Austin" two years ago, then "I live in Boston" last month, then "I live in Denver" a year
    ago: Denver ends Austin and Boston ends Denver. So are the memories `held` (`_held_then`)
    when the new one begins, whatever ended them. Only updates come back: a memory that no
    longer holds is no conflict or relation of the new one."""
    store, starts = services.store, new.valid_from
    seen = {c.id for c in candidates}
    todo = [c.id for c, v in zip(candidates, verdicts) if v.outcome == "update" and c.valid_from > starts]
    found: list[tuple[NodeView, Statement, Verdict]] = []
    first = [view for view in held if view.anchor not in seen]
    while todo or first:
        if first:
            views, first = first, []
        else:
            edges = [e.dst for e in store.edges(src=todo.pop(), type="supersedes") if e.dst not in seen]
            views = list(store.get_many(edges).values())
        for view in views:
            seen.add(view.anchor)
            if view.type != "Memory" or not holds_ever(view) or view.valid_to is None or view.valid_to <= starts:
                continue
            old = Statement(view.anchor, view.content or "", view.valid_from,
                            naming.of(view_reading(services, view, user, wanted, kept)), similarity=1.0)
            if view.valid_from > starts:
                verdict = _as_later(services, new, old)
            else:
                verdict = services.judge.judge(new, [old])[0]
            if verdict.outcome == "update":
                found.append((view, old, verdict))
                if view.valid_from > starts:
                    todo.append(view.anchor)
    return found


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
    return _ruling(reading, lambda old: view_reading(services, views[old.id], user, None, kept).claims, named)


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
        # someone else who shares a name with the one the change is about ("Robert Smith moved to
        # Denver" of "Alice Smith lives in Austin")
        sharing = [c for c in theirs if c.named and set(c.subject.split()) & shared]
        if shared and shared <= {w for subject in subjects for w in subject.split()} and sharing and not any(
                _about(c, n) for c in sharing for n in reading.claims):
            return True
        if shared and shared <= others:
            return True  # "My other sister moved to Berlin" is not about "My sister Jen lives in Paris"
        return any(same_subject(c.subject, subject) for c in theirs for subject in subjects)

    return check


def correction(starts: int, candidates: list[Statement], verdicts: list[Verdict], same_voice: list[bool],
               wrong: frozenset[str]) -> list[Verdict]:
    """For a new memory or turn that corrects a value said before without naming what it was
    about ("Actually, it's Tuesday not Monday": extract.unread_change.corrected gives the
    `wrong` values) where the judge decided nothing, the older candidate in the same voice that
    names a wrong value, the nearest in meaning of those, becomes an update recorded as a
    revision, as a change the rules cannot read is (`unread_change`): it stays current, and
    every read names the correction on it."""
    if not wrong or any(v.outcome in ("update", "conflict", "duplicate") for v in verdicts):
        return verdicts
    naming = [k for k, old in enumerate(candidates)
              if old.valid_from < starts and same_voice[k] and verdicts[k].outcome in ("unrelated", "related")
              and any(names_value(old.text, value) for value in wrong)]
    if not naming:
        return verdicts
    best = max(naming, key=lambda k: candidates[k].similarity)
    return [*verdicts[:best], Verdict("update", UNREAD_CHANGE), *verdicts[best + 1:]]


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
    Boston began. Where the earliest changes it in part, each later one that changes another
    part revises it too, until one ends it whole ("I live in Austin and work at Acme", written
    after "I moved to Boston" and "I work at Globex now": its home ends at Boston, its job at
    Globex). A conversation turn among them (worlddb.memory.turn_updates.turns_changed)
    never ends a memory: the earliest turn said before that memory marks it (a revises edge)."""
    store = services.store
    views = [store.get(old) for old, _ in followed]
    ordered = sorted(((v, changed) for v, (_, changed) in zip(views, followed)
                      if v is not None and holds_ever(v) and v.valid_from > starts),
                     key=lambda item: (item[0].valid_from, item[0].anchor))
    memories = [(v, changed) for v, changed in ordered if v.type != "Turn"]
    turn = next(((v, changed) for v, changed in ordered if v.type == "Turn"
                 and (not memories or v.valid_from < memories[0][0].valid_from)), None)
    done: set[str] = set()
    for view, changed in memories:
        if changed is None:
            w.link(Edge("supersedes", view.anchor, anchor))
            close_derived_facts(services, w, anchor, view.valid_from)
            superseded_by.append(view.anchor)
            break
        if changed - done:  # each later change of another part ends that part where it begins
            w.link(Edge("revises", view.anchor, anchor))
            close_derived_facts(services, w, anchor, view.valid_from, only=changed - done)
            revised_by.append(view.anchor)
            done |= changed
    if turn is not None:
        view, changed = turn
        w.link(Edge("revises", view.anchor, anchor))
        close_derived_facts(services, w, anchor, view.valid_from, only=changed or frozenset())
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


def left_alone(services: Services, new: Reading, revised: list[tuple[str, frozenset[str]]],
               user: str | None) -> frozenset[str]:
    """The facts of `revised` memories in a changed attribute whose subject the new memory does
    not speak of: "Ana started at Nikon" ends Ana's job in "I work at Dell and my sister Ana
    works at Canon", not the user's (Assessment.keep)."""
    changed = {old: attrs for old, attrs in revised if attrs}
    if not changed:
        return frozenset()
    views = services.store.get_many(changed)
    spoken = {normalise_subject(n.subject) for n in new.claims}
    keep = set()
    for old, found in facts_of(services.store, changed).items():
        speaker = speaker_of(views[old].meta) if old in views else None
        others = old in views and names_another(views[old].content or "", user)
        claims = [(anchor, fact_claim(fact, user, speaker, others=others)) for anchor, fact in found]
        # whom the memory says "my sister" is ("my sister Maria"), where the change speaks of "my sister"
        known = {normalise_subject(c.value) for _, c in claims if c is not None and any(
            c.attribute.startswith("has_") and kin_word(c.attribute[len("has_"):]) == s for s in spoken)}
        for anchor, claim in claims:
            if claim is not None and claim.attribute in changed[old] and _plainly_other(claim, new.claims) \
                    and not any(same_subject(claim.subject, k) for k in known):
                keep.add(anchor)
    return frozenset(keep)


def _assessment(services: Services, scopes: ScopeSet, candidates: list[Statement], verdicts: list[Verdict],
                statement_new: Statement, user: str | None, kept: Mapping[str, ReadingParts],
                naming: Naming) -> Assessment:
    new = statement_new.reading
    superseded, conflicts, related, revised, followed, duplicate = [], [], [], [], [], None
    for statement, verdict in zip(candidates, verdicts):
        if verdict.reason == UNREAD_CHANGE:
            revised.append((statement.id, frozenset()))
        elif verdict.outcome == "update" and statement.valid_from > statement_new.valid_from:
            # history written after what followed it: the later memory ends the new one, whole or in part
            view = services.store.get(statement.id)
            later = view_reading(services, view, user, None, kept) if view is not None else statement.reading
            followed.append((statement.id, _changed_only_in_part(services, later, statement_new, user, kept,
                                                                 naming)))
        elif verdict.outcome == "update":
            changed = _changed_only_in_part(services, new, statement, user, kept, naming, statement_new.valid_from)
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
                          kept: Mapping[str, ReadingParts], naming: Naming | None = None,
                          starts: int | None = None) -> frozenset[str] | None:
    """For a memory the new one updates: None if the update covers it, else the attributes
    (with their families) the new memory changes. It covers it unless the new memory speaks of
    a subject of the old one, and the old one, read in full, claims something about that subject
    or another ("I work at Dell and my sister lives in Paris", then "I started at HP"), in a
    slot (an attribute of the catalogue, a relation the judge holds single-valued, or a
    single-valued open slot) that neither the new memory nor a current one that already
    revises it (and began by `starts`, when the new one begins) speaks of for that subject
    (slots of one family count as one; a replacement with no slot of its own, "I switched to
    Neovim", speaks of every open slot, and of any slot holding the value it names as left:
    "I switched from Spanish to Italian"). A fact that restates a slot in other terms ("is_a
    nurse") is no such claim, but one of a relation no slot is about is (where one is from, what
    one likes or joined: `_fact_of_its_own`); nor is one about whom a changed slot named
    ("Bob is my manager at Dell": Bob's job there says who the manager was). But one of any
    relation that says who the subject of the change is to another ("my sister Maria", "my
    husband Ravi"), which the new memory does not say again, is: "Maria moved to Portland"
    leaves her still the speaker's sister (`_introduces`).
    So a memory whose every slot has been changed, one revision at a time, is superseded by the
    last."""
    slots = CATALOGUE.keys() | getattr(services.judge, "single", frozenset())
    changers = list(new.claims)
    for edge in services.store.edges(dst=old.id, type="revises"):
        view = services.store.get(edge.src)
        if view is not None and view.valid_to is None and (starts is None or view.valid_from <= starts):
            changers.extend(reading_of(view.content or "", stored_facts(services.store, view.anchor), user,
                                     speaker=speaker_of(view.meta)).claims)
    stored = services.store.get(old.id)
    full = view_reading(services, stored, user, None, kept) if stored is not None else reading_of(
        old.text, stored_facts(services.store, old.id), user)
    full = _renamed(full, naming.same) if naming is not None else full
    spoken = {normalise_subject(n.subject) for n in new.claims}
    changed = covered(n.attribute for n in new.claims)
    if not any(_about(n, claim) for claim in full.claims for n in new.claims):
        # no subject of the old memory is the new one's, but maybe one the old one says who it is
        # ("My sister Maria lives in Seattle", then "My sister moved to Portland"): else the update stands
        return changed if any(_introduces(c, spoken, new.claims, changers) for c in full.claims) else None
    # whom a changed slot named: "Bob Smith is my manager at Dell", then "Priya is my manager now":
    # Bob's job there says who the manager was, and goes with the change
    named = {normalise_subject(c.value) for c in full.claims
             if c.attribute in changed and any(_about(n, c) for n in new.claims)}
    for claim in full.claims:
        if _introduces(claim, spoken, new.claims, changers):
            return changed
        if not _is_slot(claim.attribute, slots) and not _fact_of_its_own(claim):
            continue
        if not any(_about(n, claim) for n in new.claims) and (
                not _plainly_other(claim, new.claims)
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
        # one of several values ended ("Rex passed away") leaves the others of the slot ("a cat named Tom")
        ending = [n for n in about if n.attribute == claim.attribute]
        if claim.attribute in CATALOGUE and not CATALOGUE[claim.attribute].single and ending and all(
                (n.ended or not n.positive) and n.value and not same_value(n.value, claim.value) for n in ending):
            return changed
    return None


def _introduces(claim: SlotClaim, spoken: set[str], claims: Iterable[SlotClaim],
                changers: Iterable[SlotClaim]) -> bool:
    """Whether `claim`, of a memory a change updates, says who a subject the change speaks of
    (`spoken`: Maria, or "my sister") is to someone else ("my sister Maria": the speaker has a
    sister, Maria) and neither the change (`claims`) nor a memory that revises the old one
    (`changers`) says it again."""
    # "my sister Maria" (has_sister Maria) says who Maria is, and who "my sister" is
    kin = kin_word(claim.attribute[len("has_"):]) if claim.attribute.startswith("has_") else None
    if any(_about(n, claim) for n in claims) or not any(
            same_subject(normalise_subject(claim.value), s) or kin is not None and s == kin for s in spoken):
        return False
    return not any(c.attribute == claim.attribute and _about(c, claim) and same_value(c.value, claim.value)
                   for c in changers)


#: the relations of facts that say what a slot says in other terms ("I'm a nurse": is_a nurse, the role)
_RESTATING = frozenset({"is_a", "was_a", "works_as", "worked_as"})


def _fact_of_its_own(claim: SlotClaim) -> bool:
    """Whether `claim` is a fact's that says something no slot of the change is about: where
    one is from, what one likes or joined ("I like jazz and I work at Dell", then "I now work at
    Google": the jazz is left alone), not one that restates a slot in other terms (`_RESTATING`)."""
    attribute = claim.attribute
    return not (attribute in CATALOGUE or is_open(attribute) or attribute == REPLACES or attribute in _RESTATING)


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


def _with_pets_lost(reading: Reading, text: str, speaker: str) -> Reading:
    """`reading`, with an ended pet of the speaker's for each name `text` says died where it
    says nothing of pets ("Rex passed away": extract.unread_change.died): the judge then ends
    the memory of a pet of that name ("I have a dog named Rex"), and no memory that names no
    such pet. (Only the judge reads it: it is no claim the store records.)"""
    if any(c.attribute == "pet" for c in reading.claims):
        return reading
    gone = died(text)
    if not gone:
        return reading
    return Reading(reading.claims + tuple(SlotClaim(speaker, "pet", name, positive=False, ended=True) for name in gone),
                   reading.cues)


def _identities(services: Services, worlds: list[str], reading: Reading) -> dict[str, str]:
    """Each other name (and alias) of the people a new memory names, where an accepted same_as
    proposal joins them (worlddb.graph.identity) -> the name the new memory uses: a change said
    of Robert Smith is about what was said of Bob Smith. Only the named subjects are looked up."""
    store, out = services.store, {}
    for subject in dict.fromkeys(c.subject for c in reading.claims if c.named):
        for members in identity.classes_of(store, services.resolver.entities_named(worlds, subject)):
            if len(members) < 2:
                continue
            for view in store.get_many(members).values():
                aliases = view.meta.get("aliases")
                for name in (view.name or "", *(a for a in aliases or () if isinstance(a, str))):
                    key = normalise_subject(name)
                    if key and key != subject:
                        out.setdefault(key, subject)
    return out


def _renamed(reading: Reading, same: Mapping[str, str]) -> Reading:
    """`reading`, its claims about another name of someone the new memory names (`_identities`)
    made about the name the new memory uses."""
    if not same or not any(c.subject in same for c in reading.claims):
        return reading
    return Reading(tuple(replace(c, subject=same[c.subject]) if c.subject in same else c for c in reading.claims),
                   reading.cues)


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
