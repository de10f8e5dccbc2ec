"""Conversation turns that change what was said or remembered before: marked, never closed.

A turn is a record of what someone said, and what was said stays said: a later "I moved to
Denver" does not make "I live in Austin" unsaid, so no turn's validity is ever closed by
another. But a reader who finds the Austin turn should learn that a later one changed it. So
each session written (worlddb.memory.ingest: memory_write with messages, and
ingest_conversation) is read for slot claims, and each change becomes a mark:

1. Readings (`read`, no store access, with the model's part of the write): each turn's slot
   claims (worlddb.extract.slots) in its speaker's voice - a named speaker's "I" is that
   person, the role "user" is the scope's user, an assistant's turn claims what it restates of
   the user in the second person ("Got it - you live in Austin"; its questions, offers and advice
   claim nothing), and a system's or a tool's turn claims nothing (slot_readings.turn_reading). An
   assistant's restatement is recorded, so a later change marks it as it marks the user's own
   words, but it is not judged: it repeats what the user said and changes nothing itself.
2. Judging (`assess`, reads the store, before the write lock): a turn that claims a slot is
   judged (services.judge) against what was said or remembered before it about the same slot
   of the same subject: the newest MAX_CLAIMED current turns and as many current memories of
   the scopes the claims index gives (worlddb.retrieval.claims) that nothing later has changed
   in that slot yet (a memory changed in another slot still states this one), and the turns of
   the same call before it, nearest first. A turn or memory an earlier turn of the call changed
   is left out as well, but only for that turn's slots: the call marks what it would have had
   each turn been a call of its own. Only the claims that can
   change something count: a value of a slot that holds one at a time, an ended or negated
   value, a replacement of an open slot's value. A new value of a slot of many values ("I love
   playing pro ball", an "instead" somewhere in the turn) ends no earlier one: conversation is
   full of activities. "Before" is valid time; of two turns at the same time, the one said
   first (stored, or earlier in the call) is taken as one microsecond earlier, so the judge
   reads them as a change and not as two statements for one moment. A turn or memory dated
   after the new turn (a session written out of order, or a message whose own time is later)
   cannot be changed by it; it is judged the other way, as if written second (`_following`):
   the earliest of the newest MAX_CLAIMED such turns and as many memories that changes the new
   turn marks it, as it would have had the two been written in time order.
3. Marks (`apply`, inside the write's transaction): each update becomes a revises edge from
   the later turn to the earlier turn or memory (handlers.revises), as for a memory changed
   only in part: the earlier one stays current, and every read names the later one on it
   (`revised_by`; memory_write's result lists it under `revised`, or, where a stored one marks
   a turn of the call, the stored one under `revised_by`); a marked memory's facts
   about the changed slots end where the turn begins. A turn is no curated statement, so it
   marks a memory and never supersedes one. One that stopped being current meanwhile is left
   alone. The judge's other outcomes mark nothing: in a conversation the same thing said
   again, or in other words, is no news, and two values for one moment are left to the reader.
4. A change the rules cannot read (`_unread`, with the built-in judge): a person's short turn
   that says a change ("Heads up, staging DB moved to db-staging-02", "We moved deploys over to
   Fly.io last week") and changed nothing by step 2 revises the earlier turn or memory it is
   about, found and chosen as a memory write's unread change is (worlddb.memory.updates,
   `unread_change`: the nearest in meaning in the same voice, or the nearest sharing an anchor;
   stating nothing the rules read; naming no value it claims). Only a short turn (at most
   unread_change.SHORT_WORDS words): a long one touches many things. A short turn that corrects
   a value naming only the wrong one ("Actually, it's Tuesday not Monday") revises the earlier
   turn or memory in its voice that names it (updates.correction). Of LoCoMo dev's 2,760
   turns, four short ones say a change in these words ("Sure thing! Bye for now!"), and none of
   them finds a turn to revise.
5. A correction that names only the right time (`_restated`, with the built-in judge): a person's
   turn that owns a mistake and says only a time ("Oh wait sorry, it's Tuesday the 15th":
   unread_change.restated), reading nothing else, revises the turn of the same session that said
   a thing's time just before it ("My dentist appointment is Monday Dec 14 at 2pm"): the nearest
   of the RESTATED_TURNS turns before it said in its voice (of the call, or the session's stored
   last ones when the call continues a session), at most RESTATED_WITHIN earlier, with no
   question asked between, if it names no time the correction names. Anything else between (a
   statement of that person's about something else, another person's turn) marks nothing.
   A correction written as a memory of its own (`memory_restated`, from worlddb.memory.write, with
   the built-in judge, where it decided nothing else) revises a memory by the same rule, the
   memories its scopes got last taken as the turns before it (see there).
A memory_write marks turns the same way (`turns_changed`, from worlddb.memory.write): the
turns it changes, judged on its whole reading, get a revises edge from it and stay current; a
change of its the rules cannot read marks the turn it is about as it marks a memory
(worlddb.memory.updates, step 4).
Every turn's claims are recorded in the claims index in the same transaction
(worlddb.memory.claims), so later turns and memories, and recall's slot step (for slots of one
value), find them by key in a scope of any size.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from worlddb.core.records import Edge
from worlddb.core.timeutil import now_us
from worlddb.extract import GENERIC_ROLES
from worlddb.extract.judge import THING_TIMES, BuiltinJudge, Statement, comparable, covered
from worlddb.extract.open_slots import REPLACES
from worlddb.extract.slots import Reading, SlotClaim, voice
from worlddb.extract.unread_change import (
    anchors,
    corrected,
    names_value,
    renamed,
    restated,
    says_change,
    short,
    states_change,
)
from worlddb.graph.database import Writer
from worlddb.retrieval import claims as claims_index
from worlddb.vectors import hnsw

from . import name_kinds, revisions, slot_readings, succession, update_candidates, updates
from .services import Services
from .slot_readings import as_written, said_as, stored_readings

#: stored turns, and as many stored memories, the judge reads per claiming turn, newest first
#: (as for a memory: the newest claim of a slot is the one a change is about, and one more
#: allows for a revision between)
MAX_CLAIMED = update_candidates.MAX_CLAIMED
#: earlier turns of the same call the judge reads per claiming turn, nearest first
MAX_IN_CALL = 4
#: the roles whose turns say nothing of anyone's own (an assistant's restates the user's)
NO_ONE = GENERIC_ROLES - {"user"}
#: how far back in its session, in turns and in time (microseconds), a correction that names only
#: the right time looks for the time it corrects (`_restated`)
RESTATED_TURNS = MAX_IN_CALL
RESTATED_WITHIN = 30 * 60 * 1_000_000
#: how far, in valid time, a memory that corrects the time just said may begin after the memory
#: it corrects (`memory_restated`): a client may date each memory by its day, and a correction
#: said minutes later may fall on the next
RESTATED_DATED = 24 * 60 * 60 * 1_000_000
#: how many of a scope's newest contains edges are read per memory looked for (`_written_last`)
RESTATED_SCAN = 16


@dataclass(frozen=True)
class Readings:
    """Each turn's slot reading and its claims index keys, in turn order."""

    readings: tuple[Reading, ...] = ()
    keys: tuple[frozenset[claims_index.Key], ...] = ()
    #: the turns that restate another's words (an assistant's): marked by later ones, never judged
    restating: frozenset[int] = frozenset()
    #: the user the turns were read for (each in its speaker's voice, `slot_readings.turn_reading`)
    user: str | None = None
    #: each turn's speaker (its role as given)
    speakers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Change:
    """Turn `new` (its index in the call) changes an earlier turn or memory: a stored one
    (`old`, its id) or a turn of the same call (`old_index`). For a stored memory, `changed`
    are the attributes (with their families) the turn changes, whose facts of the memory end
    at `at`, the turn's time - but those in `keep`, of a subject the turn does not speak of."""

    new: int
    old: str | None = None
    old_index: int | None = None
    changed: frozenset[str] = frozenset()
    at: int = 0
    keep: frozenset[str] = frozenset()
    #: the other way round: the stored turn or memory `old` is dated after turn `new` and
    #: changes it (a session written out of order), so `old` marks `new`
    later: bool = False


@dataclass(frozen=True)
class Marked:
    """What a call's marks were: the earlier turns and memories its turns changed, each once in
    the order first marked, and the stored turns and memories, dated after them, that change
    its turns (`Change.later`), in the order they begin."""

    revised: list[str]
    revised_by: list[str]


def read(texts: Sequence[str], speakers: Sequence[str], user: str | None) -> Readings:
    """The slot readings of a call's turns (`speakers`: each turn's role as given)."""
    readings = tuple(slot_readings.turn_reading(text, speaker, user) for text, speaker in zip(texts, speakers))
    return Readings(readings, tuple(claims_index.keys(r, text) for r, text in zip(readings, texts)),
                    frozenset(i for i, speaker in enumerate(speakers) if slot_readings.restates(speaker)), user,
                    tuple(speakers))


def assess(services: Services, worlds: list[str], found: Readings, times: Sequence[int],
           texts: Sequence[str], vectors: Sequence[np.ndarray], units: Sequence[np.ndarray] = (),
           preceding: Callable[[int], Sequence] | None = None) -> list[Change]:
    """The changes the judge finds among a call's turns and the stored turns and memories of
    `worlds` (none for scopes not made yet; see the module docstring); `times` are the turns'
    valid-from, `vectors` their whole-text vectors, `units` their sentence vectors (for the
    changes the rules cannot read, `_unread`). `preceding(n)`: the session's last `n` stored
    turns, oldest first, where the call continues one (`_restated`)."""
    changes = _claimed(services, worlds, found, times, texts, vectors)
    # (a scope made by this call holds nothing yet, but the call's own earlier turns may be changed)
    if units and isinstance(services.judge, BuiltinJudge):
        changes += _unread(services, worlds, found, times, texts, vectors, units, changes)
        changes += _restated(services, found, times, texts, preceding, changes)
    return changes


def _claimed(services: Services, worlds: list[str], found: Readings, times: Sequence[int],
             texts: Sequence[str], vectors: Sequence[np.ndarray]) -> list[Change]:
    """The changes of slots the rules read (steps 2 and 3 of the module docstring)."""
    if not any(found.keys):
        return []
    store, now = services.store, now_us()
    changes: list[Change] = []
    # each turn or memory a turn of this call marked, with the keys of the turns that marked it
    marked_here: dict[int | str, frozenset[claims_index.Key]] = {}
    for i, keys in enumerate(found.keys):
        if not keys or i in found.restating:
            continue
        new = Statement("", texts[i], times[i], _changing(found.readings[i]), similarity=1.0)
        if not new.reading.claims:
            continue  # only new values of slots of many values: nothing it can end
        earlier = [j for j in range(i - 1, -1, -1)
                   if found.keys[j] and not _changed_here(marked_here, j, keys) and times[j] <= times[i]
                   and _shares(keys, found.keys[j])][:MAX_IN_CALL]
        before, after = _stored(store, worlds, keys, times[i], now)
        stored = [(view, vector) for view, vector in before if not _changed_here(marked_here, view.anchor, keys)]
        changes += _following(services, after, i, texts[i], times[i], found.readings[i], vectors[i])
        if not earlier and not stored:
            continue
        changed = covered({c.attribute for c in new.reading.claims})
        targets = [Change(new=i, old_index=j) for j in earlier] + [
            Change(new=i, old=view.anchor, changed=changed if view.type == "Memory" else frozenset(), at=times[i])
            for view, _ in stored]
        candidates = [Statement(f"#{j}", texts[j], _before(times[j], times[i]), found.readings[j],
                                similarity=_cosine(vectors[i], vectors[j])) for j in earlier]
        theirs = stored_readings(store, [view for view, _ in stored])
        candidates += [Statement(view.anchor, view.content or "", _before(view.valid_from, times[i]),
                                 reading, similarity=_cosine(vectors[i], stored_vector))
                       for (view, stored_vector), reading in zip(stored, theirs)]
        verdicts = services.judge.judge(new, candidates)
        for target, verdict in zip(targets, verdicts):
            if verdict.outcome == "update":
                if target.changed and target.old is not None:
                    target = replace(target, keep=revisions.left_alone(services, new.reading,
                                                                    [(target.old, target.changed)], found.user))
                changes.append(target)
                old = target.old if target.old is not None else target.old_index
                marked_here[old] = marked_here.get(old, frozenset()) | keys
    return changes


def _changed_here(marked_here: Mapping[int | str, frozenset], old: int | str, keys: frozenset) -> bool:
    """Whether a turn of this call already changed `old` (a turn of the call by its index, or a
    stored one by its anchor) in one of the slots of `keys`: as `_changed` leaves out a stored one
    a later turn changed in these slots, for a turn of a later call. One changed only in another
    slot still states these ("I live in Portland and work at Providence" after "We moved to
    Seattle" still says where its speaker works): the call's turns mark what two calls would."""
    return old in marked_here and _shares(keys, marked_here[old])


def _following(services: Services, stored: list[tuple], i: int, text: str, at: int, reading: Reading,
               vector: np.ndarray) -> list[Change]:
    """The stored turn or memory dated after turn `i` (said at `at`) that changes it, if any,
    with the attributes it changes: of those claiming one of its keys and dated after it
    (`stored`, as `_stored` gives them), the earliest whose change the judge reads when it is
    taken as written second, the turn before it (step 2 of the module docstring)."""
    later = sorted(stored, key=lambda item: item[0].valid_from)
    if not later:
        return []
    turn = Statement("", text, at, reading, similarity=1.0)
    for (view, stored_vector), theirs in zip(later, stored_readings(services.store, [v for v, _ in later])):
        changing = _changing(theirs)
        if not changing.claims:
            continue
        new = Statement(view.anchor, view.content or "", view.valid_from, changing, similarity=1.0)
        verdict = services.judge.judge(new, [replace(turn, similarity=_cosine(vector, stored_vector))])[0]
        if verdict.outcome == "update":
            changed = covered({c.attribute for c in changing.claims})
            return [Change(new=i, old=view.anchor, changed=changed, at=view.valid_from, later=True)]
    return []


def _unread(services: Services, worlds: list[str], found: Readings, times: Sequence[int], texts: Sequence[str],
            vectors: Sequence[np.ndarray], units: Sequence[np.ndarray], claimed: Sequence[Change]) -> list[Change]:
    """Changes the rules cannot read, as a memory write finds them (worlddb.memory.updates,
    `unread_change`): a person's short turn (unread_change.short: a long one touches many
    things) that says a change of their own, or one in the wider words that names what it
    changes (worlddb.extract.unread_change), and that changed nothing the rules read, revises
    the earlier turn or memory in the same voice it is about - among the current ones of the
    scopes nearest to it (update_candidates.nearest) and the call's earlier turns - if one is: the
    nearest in meaning, or the nearest sharing an anchor with it, above the same similarities,
    stating nothing the rules read, and naming no value it claims."""
    store = services.store
    done = {change.new for change in claimed}
    changes: list[Change] = []
    for i, text in enumerate(texts):
        mine = found.speakers[i] if i < len(found.speakers) else ""
        if i in done or i in found.restating or not mine.strip() or mine.strip().casefold() in NO_ONE:
            continue
        # (a turn of a conversation touches many things; a short one says one, as a memory does)
        own, wider, wrong = says_change(text), states_change(text), corrected(text)
        if not (own or wider or wrong) or not short(text):
            continue
        voice_of = voice(mine, found.user)
        near = update_candidates.nearest(services, worlds, text, vectors[i], units[i]) if worlds else {}
        views = store.get_many(near)
        stored = [views[a] for a in near if a in views and views[a].type in ("Turn", "Memory")
                  and succession.holds_at(views[a], times[i]) and views[a].valid_from < times[i]]
        earlier = [j for j in range(i) if times[j] <= times[i]]
        olds = update_candidates.with_cosines(store, [
            Statement(view.anchor, view.content or "", view.valid_from, reading, similarity=near[view.anchor])
            for view, reading in zip(stored, stored_readings(store, stored))], vectors[i])
        olds += [Statement(f"#{j}", texts[j], _before(times[j], times[i]), found.readings[j],
                           similarity=_cosine(vectors[i], vectors[j])) for j in earlier]
        if not olds:
            continue
        same_voice = [voice(said_as(view), found.user) == voice_of for view in stored]
        same_voice += [j not in found.restating and voice(found.speakers[j], found.user) == voice_of for j in earlier]
        new = Statement("", text, times[i], found.readings[i], similarity=1.0)
        verdicts = updates.correction(times[i], olds, services.judge.judge(new, olds), same_voice, wrong, text)
        if own or wider:
            verdicts = updates.unread_change(times[i], olds, verdicts, same_voice,
                                             updates.ruled_out_by(found.readings[i], text), own,
                                             anchors(text) if wider else frozenset())
        for old, verdict in zip(olds, verdicts):
            # (only the step's own: a change the rules read was the claims' to mark, or not)
            if verdict.outcome == "update" and verdict.reason == updates.UNREAD_CHANGE:
                changes.append(Change(new=i, old_index=int(old.id[1:])) if old.id.startswith("#")
                               else Change(new=i, old=old.id, at=times[i]))
    return changes


class _Said(NamedTuple):
    """A turn before a correction in its session: one of the call's (`ref` its index) or a stored
    one (`ref` its anchor)."""

    ref: int | str
    text: str
    at: int
    speaker: str
    reading: Reading


def _restated(services: Services, found: Readings, times: Sequence[int], texts: Sequence[str],
              preceding: Callable[[int], Sequence] | None, claimed: Sequence[Change]) -> list[Change]:
    """Step 5 (with the built-in judge): a person's turn that corrects the time just said, naming
    only the right one ("Oh wait sorry, it's Tuesday the 15th": unread_change.restated) and
    reading nothing else, revises the turn that said the time ("My dentist appointment is Monday
    Dec 14 at 2pm"). That is the nearest of the RESTATED_TURNS turns before it in its session
    (the call's, then the session's stored ones) said in its voice, at most RESTATED_WITHIN
    before it, with no question between (a reply answers the question); and only if it states a
    thing's time (judge.THING_TIMES) and names no time the correction names."""
    done = {change.new for change in claimed}
    fixes = {i: value for i, text in enumerate(texts)
             if i not in done and not found.readings[i].claims and (value := restated(text))}
    if not fixes:
        return []
    stored = list(preceding(RESTATED_TURNS)) if preceding is not None else []
    said = [_Said(view.anchor, view.content or "", view.valid_from, view.meta.get("speaker") or "", reading)
            for view, reading in zip(stored, stored_readings(services.store, stored))]
    said += [_Said(j, texts[j], times[j], found.speakers[j], found.readings[j]) for j in range(len(texts))]
    changes = []
    for i, value in fixes.items():
        old = _time_said(said[:len(stored) + i][-RESTATED_TURNS:], found.speakers[i], times[i], found.user, value)
        if old is not None:
            changes.append(Change(new=i, old_index=old.ref) if isinstance(old.ref, int)
                           else Change(new=i, old=old.ref, at=times[i]))
    return changes


def memory_restated(services: Services, worlds: list[str], text: str, facts: Sequence, speaker: str | None,
                    user: str | None, starts: int) -> tuple[str, frozenset[str]] | None:
    """The memory a memory about to be written (`text`, with its `facts`, said by `speaker`,
    valid from `starts`) corrects by naming only the right time ("Actually, it's Tuesday" after
    "Dentist appointment is Monday Dec 14 at 2pm"), with the attributes of the time it states;
    None if it corrects none. It is step 5's rule (`_time_said`), the memories the scopes got
    last (`_written_last`) being the turns before it, each at the time it was written: a client
    that writes one memory per message writes each as it is said, where the valid-from it gives
    may be only a day. So the memory corrected is the last of the scopes in the correction's
    voice, with none between but an assistant's that asks nothing, written at most
    RESTATED_WITHIN before it, and valid from at most RESTATED_DATED before it (not after): a
    conversation written as memories long after it was held is written in one go, and there
    only the valid-from tells what was said just before."""
    value = restated(text)
    if value is None or not worlds or slot_readings.claim_reading(text, facts, user, speaker).claims:
        return None
    stored = _written_last(services.store, worlds)
    said = [_Said(view.anchor, view.content or "", view.t_ingested, slot_readings.speaker_of(view.meta) or "user",
                  theirs) for view, theirs in zip(stored, stored_readings(services.store, stored))]
    old = _time_said(said, speaker or "user", now_us(), user, value)
    if old is None:
        return None
    view = stored[[s.ref for s in said].index(old.ref)]
    if not 0 <= starts - view.valid_from <= RESTATED_DATED or not succession.holds_from(view, starts):
        return None
    return old.ref, frozenset(c.attribute for c in old.reading.claims if c.attribute in THING_TIMES)


def memory_renamed(services: Services, worlds: list[str], text: str, facts: Sequence, speaker: str | None,
                   user: str | None, starts: int, kind: str) -> tuple[str, SlotClaim] | None:
    """The memory a memory about to be written corrects by naming only the right value, a name of
    `kind` (name_kinds: "Nope, Denver now." after "I live in Austin"), with the claim the
    correction makes (the slot's, the name its value); None if it corrects none. The memories
    looked at are `memory_restated`'s: those the scopes got last, at most RESTATED_WITHIN before
    it, each valid from at most RESTATED_DATED before it, back to the first said in another voice
    or an assistant's question. Their claims of a slot whose
    values are of `kind` (name_kinds.SLOTS: a home for a place) must be of one slot of one
    subject; the nearest memory claiming it is corrected, unless it names the name already. Two
    such slots ("My sister lives in Chicago", then "I live in Austin"), or none, correct nothing."""
    name = renamed(text)
    if name is None or not worlds or slot_readings.claim_reading(text, facts, user, speaker).claims:
        return None
    stored = _written_last(services.store, worlds)
    found: list[tuple[object, SlotClaim]] = []
    now = now_us()
    for view, theirs in reversed(list(zip(stored, stored_readings(services.store, stored)))):
        said = slot_readings.speaker_of(view.meta) or "user"
        if view.t_ingested < now - RESTATED_WITHIN or not 0 <= starts - view.valid_from <= RESTATED_DATED:
            break
        if said.strip().casefold() in NO_ONE:
            if "?" in (view.content or ""):
                break
            continue
        if voice(said, user) != voice(speaker or "user", user):
            break
        if succession.holds_from(view, starts):
            found += [(view, c) for c in theirs.claims if c.attribute in name_kinds.SLOTS[kind]
                      and c.positive and not c.ended and c.value]
    if len({(c.subject, c.attribute) for _, c in found}) != 1 or names_value(found[0][0].content or "", name):
        return None
    return found[0][0].anchor, replace(found[0][1], value=name)


def _written_last(store, worlds: Sequence[str]) -> list:
    """The memories each of `worlds` got last (at most RESTATED_TURNS, oldest first; of those
    retired or erased, none), where every world names the same ones; else none (a memory of
    several scopes corrects what all of them hold). A world's `contains` edges are read newest
    first, a bounded number of them (a memory brings its facts and entities into a scope too)."""
    found = set()
    for world in worlds:
        rows = store.conn.execute(
            "SELECT d.anchor FROM edges e JOIN nodes d ON d.rowid = e.dst WHERE e.src = (SELECT rowid FROM nodes "
            "WHERE anchor = ?) AND e.type = 'contains' AND e.seq_removed IS NULL ORDER BY e.rowid DESC LIMIT ?",
            (world, RESTATED_TURNS * RESTATED_SCAN)).fetchall()
        views = store.get_many(row[0] for row in rows)
        found.add(tuple(a for (a,) in rows if a in views and views[a].type == "Memory" and not views[a].erased
                        and views[a].retired_at is None)[:RESTATED_TURNS])
    if len(found) != 1:
        return []
    views = store.get_many(anchors := found.pop())
    return [views[a] for a in reversed(anchors)]


def _time_said(before: Sequence[_Said], speaker: str, at: int, user: str | None, value: str) -> _Said | None:
    """Of the turns `before` a correction by `speaker` at `at` (oldest first) that names only
    the right time `value`, the nearest in its voice, if it states a thing's time, names no
    `value`, and nothing stands between: an earlier one, another person's turn, or a question."""
    if not speaker.strip() or speaker.strip().casefold() in NO_ONE:
        return None
    for turn in reversed(before):
        if turn.at < at - RESTATED_WITHIN:
            return None
        if not turn.speaker.strip() or turn.speaker.strip().casefold() in NO_ONE:
            if "?" in turn.text:
                return None
            continue
        if voice(turn.speaker, user) != voice(speaker, user):
            return None
        stated = any(c.attribute in THING_TIMES and c.positive and not c.ended and c.value
                     for c in turn.reading.claims)
        return turn if stated and not names_value(turn.text, value) else None
    return None


def apply(services: Services, w: Writer, anchors: Sequence[str], changes: Sequence[Change],
          granted: Callable[[str], bool] | None = None) -> Marked:
    """Write the changes' revises edges (inside the write's transaction), `anchors` being the
    call's turns in order. A turn this write did not create (the same conversation ingested
    again) was judged when it was, and a stored turn that is one of this call's is judged as
    such. `granted`: whether the caller may close what a stored memory says (it is granted every
    scope the memory is in; by default it is): of one it may not, the mark is written and no
    fact is closed."""
    marked, marked_by = [], []
    starts: dict[str, int] = {}  # of the stored ones that mark the call's turns
    ours = set(anchors)
    for change in changes:
        new = anchors[change.new]
        if not w.is_new(new):
            continue
        if change.old_index is not None:
            old = anchors[change.old_index]
        else:
            view = services.store.get(change.old)
            holds = succession.holds_ever(view) if change.later else succession.holds_at(view, change.at)
            if not holds or view.erased or change.old in ours:
                continue  # retired or erased meanwhile (nothing to mark), or one of this call's turns
            old = change.old
        if change.later:
            if w.link(Edge("revises", old, new)) and old not in marked_by:
                marked_by.append(old)
                starts[old] = view.valid_from
        elif old != new and w.link(edge := Edge("revises", new, old)):
            if old not in marked:
                marked.append(old)
            # (each turn that changes a slot of the memory ends that slot's facts, the second of
            # one call as well: "We moved to Seattle", then "I work at Swedish now")
            if change.changed and (granted is None or change.old_index is not None or granted(old)):
                succession.close_derived_facts(services, w, edge, change.at, only=change.changed, keep=change.keep)
    # in the order they begin, as every read names what changed a turn (worlddb.memory.marks)
    return Marked(marked, sorted(marked_by, key=lambda a: (starts[a], a)))


def turns_changed(services: Services, worlds: list[str], new: Statement,
                  vector: np.ndarray) -> tuple[tuple[str, ...], tuple[tuple[str, frozenset[str]], ...]]:
    """The current turns of `worlds` a memory about to be written (`new`, its reading in its
    speaker's voice) changes, judged as a turn's changes are (the module docstring), before the
    write lock; the write marks them (updates.apply). And the turn dated after it that changes
    it, if one does (a memory stated for an earlier time than a conversation), with the
    attributes it changes: it marks the new memory (updates.Assessment.followed), as it would
    have had the memory been written first."""
    keys = claims_index.keys(new.reading, new.text)
    if not keys or not worlds:
        return (), ()
    stored, after = _stored(services.store, worlds, keys, new.valid_from, now_us(), types=("Turn",))
    following = _following(services, after, 0, new.text, new.valid_from, new.reading, vector)
    followed = tuple((c.old, c.changed) for c in following if c.old is not None)
    if not stored:
        return (), followed
    theirs = stored_readings(services.store, [view for view, _ in stored])
    candidates = [Statement(view.anchor, view.content or "", _before(view.valid_from, new.valid_from),
                            reading, similarity=_cosine(vector, stored_vector))
                  for (view, stored_vector), reading in zip(stored, theirs)]
    verdicts = services.judge.judge(new, candidates)
    return tuple(c.id for c, verdict in zip(candidates, verdicts) if verdict.outcome == "update"), followed


def _stored(store, worlds: list[str], keys: frozenset, at: int, now: int,
            types: tuple[str, ...] = ("Turn", "Memory")) -> tuple[list[tuple], list[tuple]]:
    """The newest MAX_CLAIMED current turns, and as many memories (of `types`), of `worlds`
    claiming one of `keys`, with their whole-text vectors (None where none is stored): those
    said no later than `at`, and those said later (one read of the index for both). One a later
    turn or memory already changed in one of these slots is left out: that later one is what a
    change is about (as a superseded memory is no candidate of a memory write). One changed only
    in another slot still states these ("I live in Austin and work at Dell" after "I moved to
    Denver" still says where its speaker works)."""
    if not worlds:
        return [], []
    rowids = sorted({r for kind in types
                     for r in claims_index.claiming(store, worlds, keys, limit=MAX_CLAIMED, now=now, types=(kind,))},
                    reverse=True)
    if not rowids:
        return [], []
    anchors = store.anchors_for_rowids(rowids)
    views = store.get_many([anchors[r] for r in rowids if r in anchors])
    blobs = store.vectors(rowids, hnsw.CONTENT)
    before, after = [], []
    for rowid in rowids:
        view = views.get(anchors.get(rowid, ""))
        if view is None or view.type not in types or _changed(store, view.anchor, keys):
            continue
        blob = blobs.get(rowid)
        (after if view.valid_from > at else before).append(
            (view, np.frombuffer(blob, dtype=np.float32) if blob is not None else None))
    return before, after


def _changing(reading: Reading) -> Reading:
    """The claims of a turn's reading that can change an earlier turn (the module docstring)."""
    kept = tuple(c for c in reading.claims
                 if c.ended or not c.positive or c.attribute == REPLACES or claims_index.single_valued(c.attribute))
    return reading if len(kept) == len(reading.claims) else Reading(kept, reading.cues)


def _changed(store, anchor: str, keys: frozenset) -> bool:
    """Whether a current turn or memory that marks the stored turn or memory `anchor` as changed
    claims one of the slots of `keys` (a slot of one subject, an attribute of one family)."""
    for edge in store.edges(dst=anchor, type="revises"):
        view = store.get(edge.src)
        if view is None or view.valid_to is not None:
            continue
        if _shares(keys, claims_index.keys(as_written(store, view), view.content or "")):
            return True
    return False


def _before(then: int, at: int) -> int:
    """A turn said before one at time `at`, as the judge reads it: one microsecond earlier
    when both are at the same time."""
    return then if then < at else at - 1


def _shares(a: frozenset, b: frozenset) -> bool:
    """Whether two turns' keys name a slot of one subject (an attribute of one family)."""
    return any(sa == sb and (aa == ab or ab in comparable({aa})) for sa, aa in a for sb, ab in b)


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 0.0
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(np.dot(a, b) / norm) if norm else 0.0
