"""Update detection at write time: what a new memory means for the current ones it may be about.

For each memory_write (not an amend, which names what it replaces), before the write lock:

1. Candidates (worlddb.memory.update_candidates): current Memory nodes in the write's scopes that may
   be about the same thing - the nearest by meaning, the best BM25 matches, and the memories
   the claims index says claim the same slot.
2. Readings (worlddb.memory.slot_readings): each text's slot claims and cues, and the claims
   of its facts, in its speaker's voice, with the people named as the scopes name them
   (worlddb.memory.naming).
3. The judge (services.judge: the built-in rules, or a model with the built-in as fallback)
   gives each candidate an outcome: update, conflict, duplicate, related or unrelated. A
   candidate that begins after the new memory is judged as if written second: an update then
   ends the new memory (`Assessment.followed`), and the memories it replaced, back along their
   supersedes edges, are judged too: history written inside a succession takes its place in it
   (worlddb.memory.succession).
4. A change the rules cannot read (the built-in judge only): a new memory that states a change
   of its speaker's own (worlddb.extract.unread_change: "We moved release day to Tuesdays") and
   for which the judge decided nothing revises the memory nearest to it in meaning, if that one
   is close enough (CHANGE_SIMILARITY, the cosine of the write's own vector to the stored one),
   older, current, in the same voice, unrelated by every slot the judge sees, states nothing
   the rules can read (of what they can read, they would have read the change) and names none
   of the values the new memory claims (a change replaces the old value: "I moved to Denver"
   changes no "We looked at houses in Denver"), nor is news of another person where the new
   one is the speaker's own, or the reverse (worlddb.extract.whose: "Kenji quit his job at
   Google" changes no "I work at Google"). It stays current and none of its facts end: a
   guess hides nothing, and every read names the newer memory on it. The conversation turns
   among the nearest, said before the new memory, are candidates by the same rules, in their
   speakers' voices (an assistant's in the user's, as it restates them): a turn it changes is
   marked (`Assessment.turns`), never closed ("My salary was raised to 180k" of the turn "My
   salary is 168k"). Such a write reads the
   nearest memories even when the judge could only find repeats (`only_repeats`). So does a
   correction that names only the value it says was wrong ("Actually, it's Friday, not
   Thursday": `correction`), which revises the nearest older memory in its voice naming it.
   One that names only the right time ("Actually, it's Tuesday") is judged by what was written
   just before it, not by meaning (worlddb.memory.turn_updates.memory_restated, from
   worlddb.memory.write).
   A thing called off by a word of its name that the judge does not read as the thing's ("Cancel
   the dentist", "The dentist is off", of "I have a dentist appointment on Friday") is an update
   of the one older memory in its voice that gives a thing so named a time (`cancelled`), as a
   cancellation under the thing's own name is; where two are so named, nothing is. So is a thing
   given another time by its name, where the judge read no time of it in both ("We moved the
   Tokyo trip to May", of "I'm going to Tokyo in April": `rescheduled`): the plan with the old
   time ends, and a cancellation later ends the plan that holds, the last.

Then, in the write's transaction (`apply`), each update becomes a supersedes edge from the new
memory (through the supersedes handler, which closes the old one's validity where the new one
begins; nothing is deleted) and each conflict a contradicts edge. An update of a memory that
also says something the new one leaves alone - a claim about the same subject in a slot
outside the changed slots' families ("I live in Austin and work at Dell", then "I moved to
Denver"), what it says of another ("my girlfriend Sam is a nurse", then "Sam and I broke up"),
another's news that no slot reads - is a revision instead (worlddb.memory.revisions): a revises
edge, the old memory stays current with its other claims, and only its facts about the changed
slots end. A
candidate that stopped being current meanwhile is left alone. A duplicate writes nothing: the
result names the memory that already says it; so does one whose very words, in the same voice and
scopes, another server committed after the judge read the store (`repeated`, checked inside the
transaction), and an item of a batch in the words of a stored memory or of an earlier item. The
same words that say something happened (they state no slot, and their first verb is in the simple
past: `holds_on`) repeat a memory only when they begin within RESEND_WITHIN of it (`is_repeat`): a
resend, not the same thing happening again ("I went running." on two days). Nor do the words of a
memory a current one changed in part since (`changed_by`): said again, they say again what that
change ended, so they are written, and the change is revised by them ("We use pnpm", after "We
switched from pnpm to bun" revised it, marks the switch); said with a time before the change, they
still repeat it. Up to `MAX_RELATED` undecided candidates are reported as `related`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from worlddb.core.records import Edge
from worlddb.core.timeutil import US, now_us
from worlddb.extract import FactCandidate
from worlddb.extract.judge import (
    THING_TIMES,
    BuiltinJudge,
    Statement,
    Verdict,
    called_off,
    comparable,
    several_fit,
    things_reached,
)
from worlddb.extract.lexicon import tag
from worlddb.extract.open_slots import REPLACES, is_open
from worlddb.extract.slots import (
    CATALOGUE,
    ME,
    Reading,
    ReadingParts,
    SlotClaim,
    kin_word,
    same_subject,
    voice,
)
from worlddb.extract.unread_change import (
    ANCHORED_SIMILARITY,
    CHANGE_SIMILARITY,
    anchors,
    corrected,
    ends,
    names_thing,
    names_value,
    off,
    rescheduled,
    says_change,
    scheduled,
    states_change,
)
from worlddb.extract.whose import apart
from worlddb.graph.database import Writer
from worlddb.graph.lexical import lexical
from worlddb.retrieval import claims as claims_index

from . import readings as kept_readings
from .naming import Naming, ambiguous_first_names, identities, unnamed, with_pets_lost
from .results import ConflictOut
from .revisions import changed_only_in_part, left_alone, one_subject
from .scopes import ScopeSet, scope_anchors
from .services import Services
from .slot_readings import (
    UNREAD,
    namesakes,
    reading_of,
    said_as,
    speaker_of,
    stored_facts_of,
    stored_readings,
    view_reading,
)
from .succession import (
    as_later,
    changed_by,
    close_derived_facts,
    follow,
    hand_over_plans,
    held_then,
    holds_at,
    holds_ever,
    holds_from,
    inside,
    successors,
)
from .update_candidates import NEIGHBOURS, find, with_cosines

#: how many undecided candidates a write reports
MAX_RELATED = 5


#: the reason of an update that is a change the rules could not read (`unread_change`)
UNREAD_CHANGE = "a change the rules cannot read, of the memory nearest to it or naming what it changes"
#: the reason of an update that calls off a thing the memory gives a time (`cancelled`)
CALLED_OFF = "a thing called off, named by a word of its name"
#: the reason of an update that gives a thing the memory gives a time another time (`moved_on`)
RESCHEDULED = "a thing given another time, named by its name"


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
    #: for an amend: what the amended memory ended that the new text still changes, whose ending stands
    kept: frozenset[str] = frozenset()


NOTHING = Assessment()


def assess(services: Services, text: str, scopes: ScopeSet, starts: int, vector: np.ndarray, units: np.ndarray,
           facts: Iterable[FactCandidate], user: str | None, speaker: str | None = None,
           also: Iterable[str] = ()) -> Assessment:
    """Judge the current memories of `scopes` against a memory about to be written (outside the
    write lock: it reads, and a model judge may take a while). `speaker`: who the new memory's
    metadata says said it (`speaker_of`); each candidate is read in its own speaker's voice.
    `also`: memories judged too, current or not (what the memory an amend replaces ended)."""
    store = services.store
    worlds = scope_anchors(store, scopes)
    if not worlds:
        return NOTHING
    # where someone else of the user's name is known ("my coworker Alice" for the user alice), the
    # name alone in a text ("Alice is vegan") may be theirs: only "I" and the user's own facts are the user
    # a memory written for a time still to come is read as of then: "We're moving to Seattle on
    # January 15", written with valid_from January 15, is the move (the old home ends then)
    reading = reading_of(text, facts, user, speaker=speaker, namesake=bool(namesakes(services, worlds, user)),
                         planned=starts > now_us())
    if isinstance(services.judge, BuiltinJudge):
        reading = with_pets_lost(reading, text, voice(speaker, user) or ME)
    naming = Naming(ambiguous_first_names(services, worlds, reading), identities(services, worlds, reading))
    new = Statement("", text, starts, unnamed(reading, naming.ambiguous), similarity=1.0)
    # a change the built-in rules cannot read still needs the nearest memories (`unread_change`)
    own, wider, wrong = says_change(text), states_change(text), corrected(text)
    dropped = called_off(new.reading) | off(text)
    moved = rescheduled(text)
    unread = isinstance(services.judge, BuiltinJudge) and bool(own or wider or wrong or dropped or moved)
    repeats = bool(getattr(services.judge, "only_repeats", lambda _: False)(new)) and not unread
    wanted_keys = frozenset() if repeats else claims_index.keys(new.reading, text)
    # the claims of the other names an accepted identity gives someone the new memory names
    wanted_keys |= {(other, attribute) for subject, attribute in wanted_keys
                    for other, named in naming.same.items() if named == subject}
    found = find(services, worlds, text, vector, units, every=repeats, wanted=wanted_keys)
    extra = [Statement(anchor, "", 0, UNREAD, similarity=0.0) for anchor in also if anchor not in found]
    found.update((s.id, s.similarity) for s in with_cosines(store, extra, vector))
    views = store.get_many(found)
    olds = [views[a] for a in found if a in views and views[a].type == "Memory" and holds_ever(views[a])]
    # (the turns said before it, which an unread change may be about as well: `_unread_turns`)
    said = [(views[a], found[a]) for a in found if a in views and views[a].type == "Turn"
            and holds_at(views[a], starts) and views[a].valid_from < starts] if unread else []
    # (history written late: what held when it begins, though nothing current is about it)
    held = [] if repeats else held_then(services, worlds, starts, wanted_keys, {v.anchor for v in olds})
    if not olds and not held and not said:
        return NOTHING
    # a candidate matters only through the attributes the new memory names: read just those; an
    # ended replacement names the value it leaves, in whatever slot holds it ("switched from
    # Spanish to Italian" of "I'm learning Spanish"), so its candidates are read whole
    whole = any(c.attribute == REPLACES and c.ended for c in new.reading.claims)
    # (a thing called off, or given another time, by another name is read for its time: `cancelled`, `moved_on`)
    named = {c.attribute for c in new.reading.claims} | ({"status"} if dropped else set()) | (
        set(THING_TIMES) if moved else set())
    wanted = None if whole else comparable(named)
    kept = {} if repeats else kept_readings.load(store, {v.anchor: (user, speaker_of(v.meta)) for v in olds})
    facts = stored_facts_of(store, [v.anchor for v in olds]) if not repeats and (whole or wanted) else {}
    candidates = [Statement(v.anchor, v.content or "", v.valid_from,
                            UNREAD if repeats else naming.of(view_reading(services, v, user, wanted, kept, facts)),
                            similarity=found[v.anchor]) for v in olds]
    verdicts = services.judge.judge(new, candidates)
    if not repeats:
        verdicts = [as_later(services, new, c) if c.valid_from > starts and v.outcome != "duplicate" else v
                    for c, v in zip(candidates, verdicts)]
        for view, statement, verdict in inside(services, new, candidates, verdicts, user, wanted, kept, naming,
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
    # plan would have ended it); nor a planned one, not begun yet, that they begin before; and words
    # that say something happened repeat a memory only when resent (`is_repeat`): "I went running." said on
    # two days is two runs
    now, states = now_us(), holds_on(text, new.reading)
    verdicts = [Verdict("related", "the same words at another time")
                if v.outcome == "duplicate" and (o.valid_to is not None and o.valid_to <= starts
                                                 or o.valid_from > now and starts < o.valid_from
                                                 or not is_repeat(o.valid_from, starts, states)) else v
                for v, o in zip(verdicts, olds)]
    turns: tuple[str, ...] = ()
    if unread:
        candidates, verdicts, turns = _unread(services, new, reading, olds, said, candidates, verdicts, vector,
                                              user, speaker, kept, naming, dropped, moved)
    return replace(_assessment(services, scopes, candidates, verdicts, new, user, kept, naming), turns=turns)


def _unread(services: Services, new: Statement, reading: Reading, olds: list, said: list[tuple],
            candidates: list[Statement], verdicts: list[Verdict], vector: np.ndarray, user: str | None,
            speaker: str | None, kept: Mapping[str, ReadingParts], naming: Naming, dropped: frozenset[str],
            moved: frozenset[tuple[str, str]] = frozenset()) -> tuple[list[Statement], list[Verdict], tuple[str, ...]]:
    """Step 4 of the module docstring: the memories `olds` (as `candidates`, judged `verdicts`) with
    a correction or a change the rules cannot read decided, and the turns it changes. The turns
    said before the new memory among its nearest (`said`) are candidates as the memories are,
    judged and chosen by the same rules (a conversation's turn is changed by a memory as by a
    turn: worlddb.memory.turn_updates); one it changes is marked, never closed. A thing called
    off (`dropped`), or given another time (`moved`), ends only a memory (`cancelled`,
    `moved_on`). `said`: each turn's view with its similarity as found."""
    store, text, starts = services.store, new.text, new.valid_from
    own, wider, wrong = says_change(text), states_change(text), corrected(text)
    turns = [view for view, _ in said]
    heard = with_cosines(store, [Statement(t.anchor, t.content or "", t.valid_from, theirs, similarity=near)
                                 for (t, near), theirs in zip(said, stored_readings(store, turns))], vector)
    memories = with_cosines(store, candidates, vector)
    mine = voice(speaker, user)
    own_voice = [voice(speaker_of(o.meta), user) == mine for o in olds]
    verdicts = cancelled(starts, memories, verdicts, own_voice, dropped)
    verdicts = moved_on(starts, memories, verdicts, own_voice, moved, text)
    every = memories + heard
    same_voice = own_voice + [voice(said_as(t), user) == mine for t in turns]
    verdicts = correction(starts, every, verdicts + services.judge.judge(new, heard), same_voice, wrong, text)
    if own or wider:
        verdicts = unread_change(starts, every, verdicts, same_voice,
                                 _ruled_out(services, reading, olds, user, kept, text, naming.ambiguous), own,
                                 anchors(text) if wider else frozenset())
    changed = tuple(t.id for t, v in zip(heard, verdicts[len(candidates):]) if v.reason == UNREAD_CHANGE)
    return every[:len(candidates)], verdicts[:len(candidates)], changed


def _ruled_out(services: Services, reading: Reading, olds: list, user: str | None,
               kept: Mapping[str, ReadingParts], text: str,
               ambiguous: frozenset[str] = frozenset()) -> Callable[[Statement, bool], bool]:
    """Whether a candidate cannot be what an unread change is about (`unread_change`): it
    names a value the new memory claims; or it states something the rules can read, in its own
    speaker's voice - which rules out the nearest in meaning (unless all it states is a thing's
    time, worlddb.extract.judge.THING_TIMES), and one sharing an anchor with the
    new memory (`anchored`) only where the new memory states something of the same subject too,
    in a slot the rules know: the judge then read both about that subject and found no change
    ("Sarah prefers tea", then "Sarah prefers aisle seats now"; "I work at Hulu", then "I quit
    Hulu and got YouTube TV"; not "I'm in the audit team at Deloitte", then "Not at Deloitte
    anymore. I joined a small fintech", whose joining is a relation of the extractor's). Nor is
    one whose only anchors shared with the new memory's (those of its `text`) name someone whose own slot
    the new memory states, where it states nothing of theirs: the change is news of them
    ("Carla moved to Berlin", Carla's home, of "My best friend is Carla Mendes"; not "Anouk sold
    her share of the practice" of "My cousin Anouk works as a vet"). Nor is news of another person
    the speaker's own, or the reverse (worlddb.extract.whose.apart: "Kenji quit his job at Google"
    of "I work at Google", "Kenji's haircut got moved to Saturday" of "I have a haircut on
    Friday"); the names the rules read as people's in either text are people's there. Nor is one
    about someone whose full name begins with a first name the new memory names alone, where
    that first name begins several (`ambiguous`, worlddb.memory.naming: "Sam moved to Vancouver"
    of "Sam Lee lives in Seattle", where Sam Patel is known too) Nor is one that gives a time
    only to things other than the one the new memory calls off: the rules read both names ("The
    vet appointment is cancelled" of "I have a dentist appointment on Friday")."""
    views = {o.anchor: o for o in olds}
    # (a turn's whole reading is in hand: `assess` read it for the judge)
    return _ruling(reading, lambda old: view_reading(services, views[old.id], user, None, kept).claims
                   if old.id in views else old.reading.claims, text, ambiguous)


def ruled_out_by(reading: Reading, text: str) -> Callable[[Statement, bool], bool]:
    """`_ruled_out` for candidates whose readings are in hand (their `Statement.reading`: a
    conversation's turns, worlddb.memory.turn_updates)."""
    return _ruling(reading, lambda old: old.reading.claims, text)


def _ruling(reading: Reading, claims_of: Callable[[Statement], Iterable[SlotClaim]],
            text: str, ambiguous: frozenset[str] = frozenset()) -> Callable[[Statement, bool], bool]:
    named = anchors(text)
    people = _people(reading.claims)
    dropped = called_off(reading) | off(text)
    values = [c.value for c in reading.claims if c.value and c.positive and not c.ended]
    # (a fact the extractor drew in a relation the rules have no slot for - "I joined a fintech":
    # member_of - is nothing the judge could compare with what the old memory states)
    subjects = {c.subject for c in reading.claims if c.attribute in CATALOGUE or is_open(c.attribute)}
    spoken_of = {w for c in reading.claims if c.named and (c.attribute in CATALOGUE or is_open(c.attribute))
                 for w in c.subject.split()}
    # "my other sister": the words of a subject the text says is another one
    others = {w for subject in subjects if "other" in subject.split() for w in subject.split()}
    # whose relative or thing a subject is ("Chris's sister": chris sister; "Jen's flight"), not who it is
    possessors = {re.sub(r"'s$", "", words[0]) for c in reading.claims
                  if not c.named and len(words := c.subject.split()) > 1
                  and (words[0].endswith("'s") or kin_word(words[1]) == words[1])
                  and (c.attribute in CATALOGUE or is_open(c.attribute))}

    ending = ends(text)

    def check(old: Statement, anchored: bool) -> bool:
        if any(re.search(r"\b" + re.escape(value) + r"\b", old.text, re.I) for value in values):
            return True
        if ending and ends(old.text) and not named & anchors(old.text):
            return True  # "I cancelled Spotify" is no change of "I cancelled Netflix": each ends a thing of its own
        theirs = tuple(claims_of(old))
        if apart(text, old.text, people, _people(theirs)):
            return True  # news of someone else, of what the speaker said of their own, or the reverse
        # a thing called off that names no thing the old memory gives a time: the rules read both
        # things, and they are two ("The vet appointment is cancelled" of "I have a dentist appointment")
        times = {c.subject for c in theirs if c.attribute in THING_TIMES and c.positive and not c.ended}
        if dropped and times and not any(same_subject(name, thing) or names_thing(name, thing)
                                         for name in dropped for thing in times):
            return True
        if not anchored:
            # (a thing's time is read only where a text names the thing as the rules do, so a change
            # naming it otherwise - "my therapist moved our sessions to Fridays" of "Therapy is on
            # Thursdays" - is not one they would have read)
            return any(c.attribute not in THING_TIMES for c in theirs)
        # news of someone, by name, whose own slot the rules read in the new memory, where the old
        # one states nothing of theirs: about them, not about what the old memory says ("Carla
        # moved to Berlin", Carla's home, of "My best friend is Carla Mendes")
        shared = named & anchors(old.text)
        if shared and shared <= spoken_of and not any(w in spoken_of for c in theirs for w in c.subject.split()):
            return True
        # someone else who shares a name with the one the change is about ("Robert Smith moved to
        # Denver" of "Alice Smith lives in Austin"), or may be ("Sam moved to Vancouver" of "Sam Lee
        # lives in Seattle", where "sam" begins several known names)
        sharing = [c for c in theirs if c.named and set(c.subject.split()) & shared]
        if shared and shared <= {w for subject in subjects for w in subject.split()} and sharing and not any(
                one_subject(c, n, ambiguous) for c in sharing for n in reading.claims):
            return True
        if shared and shared <= others:
            return True  # "My other sister moved to Berlin" is not about "My sister Jen lives in Paris"
        if shared and shared <= possessors and not shared & subjects:
            return True  # "Chris's sister is getting divorced" is news of hers, not of "I'm married to Chris"
        return any(same_subject(c.subject, subject) for c in theirs for subject in subjects)

    return check


def _people(claims: Iterable[SlotClaim]) -> frozenset[str]:
    """The first names of the people claims name ("priya" of "Priya Natarajan works at Initech")."""
    return frozenset(c.subject.split()[0] for c in claims if c.named and c.subject)


def cancelled(starts: int, candidates: list[Statement], verdicts: list[Verdict], same_voice: list[bool],
              names: frozenset[str]) -> list[Verdict]:
    """For a new memory that calls a thing off by a name the judge does not read as the thing's
    ("Cancel the dentist", "The dentist is off": judge.called_off and unread_change.off give
    `names`) where the judge decided nothing, the one older candidate in the same voice that gives
    a time to a thing so named (unread_change.names_thing: "dentist appointment"; its time's claim,
    or unread_change.scheduled: "I have a dentist appointment on Friday") becomes an update, as a
    cancellation under the thing's own name is. Where two candidates, or two things of one, are so
    named, neither is: which one is not said (judge.things_reached and judge.several_fit, as the
    judge rules of a name that reaches a thing by a word of its own)."""
    if not names or any(v.outcome in ("update", "conflict", "duplicate") for v in verdicts):
        return verdicts
    reached = things_reached(names, ((k, _things(old)) for k, old in enumerate(candidates)
                                     if old.valid_from < starts and same_voice[k]
                                     and verdicts[k].outcome in ("unrelated", "related")), names_thing)
    if len(reached) != 1 or several_fit(reached):
        return verdicts
    (k,) = reached
    return [*verdicts[:k], Verdict("update", CALLED_OFF), *verdicts[k + 1:]]


def moved_on(starts: int, candidates: list[Statement], verdicts: list[Verdict], same_voice: list[bool],
             moved: frozenset[tuple[str, str]], text: str) -> list[Verdict]:
    """For a new memory that gives a thing another time by its name ("We moved the Tokyo trip to
    May": unread_change.rescheduled gives each thing `moved` with its new time) where the judge
    decided nothing, the one older candidate in the same voice that gives a thing so named a time
    (`_things`: "I'm going to Tokyo in April", "I'm planning a trip to Lisbon in October"), and
    names no time it is moved to, becomes an update: the plan with the old time ends, as one the
    judge reads the time of in both ends. Where two candidates are so named, neither is; nor is
    one that is news of another person than the new memory is (worlddb.extract.whose.apart)."""
    if not moved or any(v.outcome in ("update", "conflict", "duplicate") for v in verdicts):
        return verdicts
    named = {k for k, old in enumerate(candidates)
             if old.valid_from < starts and same_voice[k] and verdicts[k].outcome in ("unrelated", "related")
             and any(names_thing(name, thing) for name, _ in moved for thing in _things(old))
             and not any(names_value(old.text, when) for _, when in moved) and not apart(text, old.text)}
    if len(named) != 1:
        return verdicts
    k = named.pop()
    return [*verdicts[:k], Verdict("update", RESCHEDULED), *verdicts[k + 1:]]


def _things(old: Statement) -> frozenset[str]:
    """The things `old` gives a time: its claims of a thing's time, and those it names by an event's noun."""
    return scheduled(old.text) | {c.subject for c in old.reading.claims
                                  if c.attribute in THING_TIMES and c.positive and not c.ended and c.value}


def correction(starts: int, candidates: list[Statement], verdicts: list[Verdict], same_voice: list[bool],
               wrong: frozenset[str], text: str = "") -> list[Verdict]:
    """For a new memory or turn that corrects a value said before without naming what it was
    about ("Actually, it's Tuesday not Monday": extract.unread_change.corrected gives the
    `wrong` values) where the judge decided nothing, the older candidate in the same voice that
    names a wrong value, the nearest in meaning of those, becomes an update recorded as a
    revision, as a change the rules cannot read is (`unread_change`): it stays current, and
    every read names the correction on it. A candidate that is news of another person than the
    correction `text` is (worlddb.extract.whose.apart) is not what it corrects."""
    if not wrong or any(v.outcome in ("update", "conflict", "duplicate") for v in verdicts):
        return verdicts
    naming = [k for k, old in enumerate(candidates)
              if old.valid_from < starts and same_voice[k] and verdicts[k].outcome in ("unrelated", "related")
              and any(names_value(old.text, value) for value in wrong) and not apart(text, old.text)]
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
    revised by): history written after what followed it (`follow`)."""
    store = services.store
    superseded_by, revised_by = followed or ([], [])
    follow(services, w, anchor, starts, assessment.followed, superseded_by, revised_by)
    for old, changed in assessment.revised:
        view = store.get(old)
        if not holds_from(view, starts) or view.valid_from > starts:
            continue  # replaced or retired meanwhile, or newer than this one: nothing to revise
        edge = Edge("revises", anchor, old)
        w.link(edge)
        revised.append(old)
        close_derived_facts(services, w, edge, starts, only=changed, keep=assessment.keep)
    later: list[str] = []
    for old in assessment.superseded:
        view = store.get(old)
        if not holds_from(view, starts):
            continue  # replaced before this one begins, or retired, meanwhile: nothing left to close
        if view.valid_from > starts:
            later.append(old)
            continue
        edge = Edge("supersedes", anchor, old)
        w.link(edge)
        superseded.append(old)
        close_derived_facts(services, w, edge, starts)
        hand_over_plans(services, w, old, anchor, starts, ended=revised_by)
    # a plan that ends what this one (or the memory it amends) replaces ends this one instead, and
    # the plans after it follow it: a succession, no conflict
    handed = successors(store, anchor)
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


def _assessment(services: Services, scopes: ScopeSet, candidates: list[Statement], verdicts: list[Verdict],
                statement_new: Statement, user: str | None, kept: Mapping[str, ReadingParts],
                naming: Naming) -> Assessment:
    new = statement_new.reading
    superseded, conflicts, related, revised, followed, duplicate = [], [], [], [], [], None
    undone: list[str] = []  # the changes of memories the new one says again in their words
    for statement, verdict in zip(candidates, verdicts):
        if verdict.reason == UNREAD_CHANGE:
            revised.append((statement.id, frozenset()))
        elif verdict.outcome == "update" and statement.valid_from > statement_new.valid_from:
            # history written after what followed it: the later memory ends the new one, whole or in part
            view = services.store.get(statement.id)
            later = view_reading(services, view, user, None, kept) if view is not None else statement.reading
            followed.append((statement.id, changed_only_in_part(services, later, statement_new, user, kept,
                                                                 naming)))
        elif verdict.outcome == "update":
            changed = changed_only_in_part(services, new, statement, user, kept, naming, statement_new.valid_from)
            if changed is not None:
                revised.append((statement.id, changed))
            else:
                superseded.append(statement.id)
        elif verdict.outcome == "conflict":
            conflicts.append(statement.id)
        elif verdict.outcome == "duplicate" and (changers := changed_by(services.store, statement.id,
                                                                       statement_new.valid_from)):
            undone.extend(changers)
            related.append(statement.id)
        elif verdict.outcome == "duplicate" and duplicate is None and _in_every(services, scopes, statement.id):
            duplicate = statement.id
        elif verdict.outcome in ("related", "duplicate"):
            related.append(statement.id)
    if duplicate is not None:
        return Assessment(duplicate_of=duplicate)
    decided = {*superseded, *(old for old, _ in revised), *(old for old, _ in followed)}
    undone = [change for change in dict.fromkeys(undone) if change not in decided]
    # (a change only of the write's scopes: one in another scope is not the caller's to see or mark)
    seen = services.store.in_worlds(scope_anchors(services.store, scopes), undone) if undone else set()
    revised.extend((change, frozenset()) for change in undone if change in seen)
    return Assessment(tuple(superseded), tuple(conflicts), None, tuple(related[:MAX_RELATED]), tuple(revised),
                      keep=left_alone(services, new, revised, user), followed=tuple(followed))


def renamed(services: Services, starts: int, old: str, claim: SlotClaim, user: str | None) -> Assessment:
    """What a correction that names only the right value means for the memory `old` it corrects
    (worlddb.memory.turn_updates.memory_renamed gives it and the `claim` the correction makes): an
    update, as a memory stating that claim would be ("Actually I live in Denver"): `old` is
    superseded, or revised where it says something the claim leaves alone
    (revisions.changed_only_in_part)."""
    view = services.store.get(old)
    new = Reading((claim,), frozenset({"correction"}))
    statement = Statement(old, view.content or "", view.valid_from, view_reading(services, view, user, None, {}))
    changed = changed_only_in_part(services, new, statement, user, {}, None, starts)
    if changed is None:
        return Assessment(superseded=(old,))
    return Assessment(revised=((old, changed),), keep=left_alone(services, new, [(old, changed)], user))


def newest_node(store) -> int:
    """The rowid of the newest node of the store (0 if none): read before a write is judged, so
    that `repeated` can look at what was committed after it."""
    return store.conn.execute("SELECT max(rowid) FROM nodes").fetchone()[0] or 0


#: how far apart in valid time the same words, stating no slot, may begin and still be one memory
#: sent twice (a retry after a timeout; a loop that saves what it heard each turn, with valid_from
#: now on each call) rather than something that happened again
RESEND_WITHIN = 3600 * US
#: where `holds_on` looks for a text's first verb: its first words, so a clause further on ("We use
#: the tool we bought last year") does not say when its statement happened
_FIRST_WORDS = 5
_WORDS = re.compile(r"[A-Za-z][A-Za-z']*")


def holds_on(text: str, reading: Reading) -> bool:
    """Whether a text says what holds on until something changes it, so that the same words said
    again later repeat it: it states a slot the rules read (the catalogue's, or an open one: "I live
    in Austin"), or does not say something happened - its first verb, among its first words, is not
    in the simple past ("User prefers dark mode", "We use pnpm"; "I went running." and "We had dinner
    at Nopa." happened, and can happen again)."""
    if any(c.attribute in CATALOGUE or is_open(c.attribute) for c in reading.claims):
        return True
    for word in _WORDS.findall(text)[:_FIRST_WORDS]:
        kind = tag(word)
        if kind is not None and (kind.startswith("VB") or kind == "MD"):
            return kind != "VBD"
    return True


def is_repeat(stored_from: int, starts: int, states: bool) -> bool:
    """Whether the same words, in the same voice and scopes, beginning at `starts` repeat a stored
    memory that began at `stored_from`: always where what they say holds on (`states`, `holds_on`:
    "I live in Austin" again a month on still says where the speaker lives), else only as a resend,
    within RESEND_WITHIN of it ("I went running." said on two days is two runs)."""
    return states or abs(starts - stored_from) <= RESEND_WITHIN


def repeated(services: Services, text: str, scopes: ScopeSet, starts: int, user: str | None,
             speaker: str | None, states: bool, since: int | None = None) -> str | None:
    """The first stored memory that says exactly `text` in the new memory's voice, is in every scope of
    `scopes`, holds when it begins (current, or history that held then: a replay) and repeats it
    (`is_repeat`, as `assess` takes a duplicate), or None. Read inside the write transaction, under
    the write lock. `since` (`newest_node`, read before a single write was judged): only the few
    nodes written after it, in rowid order - another server may have committed the same memory
    between the judge's reads and the lock, and nodes commit under the lock, in rowid order; never
    the judge again. Without it (the items of a batch, which nothing judged), the memories of the
    scopes holding every word of `text` (an FTS lookup), earlier items of the same batch included."""
    store = services.store
    if since is not None:
        anchors = [a for (a,) in store.conn.execute(
            "SELECT anchor FROM nodes WHERE rowid > ? AND type = 'Memory' ORDER BY rowid", (since,))]
    else:
        worlds = scope_anchors(store, scopes)
        hits = lexical(store, text, worlds, NEIGHBOURS, open_only_at=starts, every=True) if worlds else []
        found = store.anchors_for_rowids([rowid for rowid, _ in hits])
        anchors = [found[rowid] for rowid, _ in hits if rowid in found]
    views = store.get_many(anchors)
    mine, now = voice(speaker, user), now_us()
    for anchor in anchors:
        view = views.get(anchor)
        if (view is not None and view.type == "Memory" and view.content == text and holds_from(view, starts)
                and view.valid_from <= max(starts, now) and is_repeat(view.valid_from, starts, states)
                and voice(speaker_of(view.meta), user) == mine and _in_every(services, scopes, anchor)
                and not changed_by(store, anchor, starts)):
            return anchor
    return None


def _in_every(services: Services, scopes: ScopeSet, anchor: str) -> bool:
    """A duplicate must already be in every scope the write names, or writing nothing loses it."""
    store = services.store
    for kind, sid in scopes:
        world = store.scope_anchor(kind, sid)
        if world is None or anchor not in store.in_worlds([world], [anchor]):
            return False
    return True
