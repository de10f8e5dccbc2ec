"""Validity and succession of memories: whether one holds, where history written late takes its
place, and what a replacement ends (for worlddb.memory.updates and the writes that amend).

- Holding: `holds_ever` (not retired, not an empty validity), `holds_at` (current now and at a
  time), `holds_from` (still held at a time, current or not); `changed_by`, the changes that
  revised a current memory and hold at a time (its words said again then are no repeat).
- History written after what followed it: a candidate that begins after the new memory is
  judged as if written second (`as_later`); the memories the ones ending the new memory
  replaced, back along their supersedes edges, and those the claims index says held when it
  begins (`held_then`) are judged too (`inside`). The earliest memory that changes the new
  one ends it, whole or one part at a time (`follow`).
- What a replacement takes over and ends: the planned changes of the memory it replaces end it
  too (`hand_over_plans`); the replaced memory's facts end where it begins, a revised one's
  only in the changed attributes (`close_derived_facts`), each in the name of the edge that
  says so. What a memory retired or amended away ended is current again, unless something
  else ended it too (`withdraw_changes`).

The writing functions take the write's `Writer` and run inside its transaction; the rest read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from worlddb.core.records import Edge, NodeView
from worlddb.core.store import Store
from worlddb.core.timeutil import now_us
from worlddb.extract.judge import Statement, Verdict
from worlddb.extract.slots import ReadingParts, attribute_for_relation, same_subject
from worlddb.graph.database import Writer
from worlddb.retrieval import claims as claims_index

from .naming import Naming
from .services import Services
from .slot_readings import view_reading
from .update_candidates import MAX_CLAIMED

#: how long before the write a memory's start must be for it to be history (`held_then`), µs
PAST = 1_000_000


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
    late begins, is changed by that history (`inside`). For a time still to come, `holds_at`."""
    return holds_ever(view) and (view.valid_to is None or view.valid_to > at)


def close_derived_facts(services: Services, w: Writer, by: Edge, at: int,
                        only: frozenset[str] | None = None, keep: frozenset[str] = frozenset()) -> None:
    """A replaced memory's facts end where its replacement begins; a revised memory's, only
    those whose relation is about one of the attributes in `only`, and none in `keep`. `by`:
    the supersedes or revises edge just linked to the old memory (its dst), in whose name they
    end: removing it (`withdraw_changes`) withdraws these closures. A fact some other change
    ended earlier is closed in its name too, so that it stays closed if that one is withdrawn."""
    for edge in services.store.edges(dst=by.dst, type="derived_from"):
        if edge.src in keep:
            continue
        view = services.store.get(edge.src)
        if view is None or view.retired_at is not None:
            continue
        if only is not None and attribute_for_relation(view.meta.get("relation", "")) not in only:
            continue
        w.close(edge.src, max(at, view.valid_from), "source revised" if only is not None else "source superseded",
                cause=by)


#: the edges by which a memory ends others, whole (supersedes) or in part (revises)
ENDING = ("supersedes", "revises")


def changed_by(store: Store, anchor: str, at: int) -> tuple[str, ...]:
    """The memories that changed a current memory in part and hold at `at` (live revises edges to
    it from ones begun by then), oldest first: its words said again at `at` say again what those
    changes ended ("We use pnpm", after "We switched from pnpm to bun" revised it), so they are no
    repeat of it. Its words written with a time before the change are still one."""
    changers = store.get_many(e.src for e in store.edges(dst=anchor, type="revises"))
    held = [v for v in changers.values()
            if holds_ever(v) and v.valid_from <= at and (v.valid_to is None or v.valid_to > at)]
    return tuple(v.anchor for v in sorted(held, key=lambda v: v.valid_from))


def amended_by(store: Store, anchor: str) -> frozenset[str]:
    """The memory `anchor` was written to correct (memory_amend: its provenance names it), if any."""
    view = store.get(anchor)
    amended = view.provenance.get("supersedes") if view is not None else None
    return frozenset({amended}) if isinstance(amended, str) else frozenset()


def ended_by(store: Store, anchor: str) -> frozenset[str]:
    """The memories `anchor` ends, whole or in part (its live supersedes and revises edges), as a
    change its text says: not the memory it was written to correct (`amended_by`)."""
    return frozenset(e.dst for e in store.edges(src=anchor) if e.type in ENDING) - amended_by(store, anchor)


def withdraw_changes(services: Services, w: Writer, anchor: str, keep: frozenset[str] = frozenset()) -> None:
    """A memory retired or amended away ends nothing any more: its supersedes and revises edges
    are removed, and their handlers withdraw the closures made in their names (of the memories
    it superseded, and of the facts it ended of those it superseded or revised), so each of
    those ends where something else that ended it says, or holds on. A memory that supersedes
    it and holds takes its place, as if it had never been: "I live in Austin", then "I moved
    to Denver", then "I moved to Chicago"; Denver retired, Austin held until Chicago began. Its
    changes of the memories in `keep` stand (an amend's new text still changes them)."""
    store = services.store
    superseded = []
    for edge in store.edges(src=anchor):
        if edge.type in ENDING and edge.dst not in keep:
            w.unlink(edge.edge)
            if edge.type == "supersedes":
                superseded.append(edge.dst)
    takers = [v for v in store.get_many(e.src for e in store.edges(dst=anchor, type="supersedes")).values()
              if holds_ever(v)]
    for taker in sorted(takers, key=lambda v: (v.valid_from, v.anchor)):
        for view in store.get_many(superseded).values():
            # (strictly later: no supersedes cycle can close)
            if holds_from(view, taker.valid_from) and taker.valid_from > view.valid_from:
                edge = Edge("supersedes", taker.anchor, view.anchor)
                w.link(edge)
                close_derived_facts(services, w, edge, taker.valid_from)


def held_then(services: Services, worlds: list[str], starts: int, keys: Iterable[claims_index.Key],
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


def as_later(services: Services, new: Statement, later: Statement) -> Verdict:
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


def inside(services: Services, new: Statement, candidates: list[Statement], verdicts: list[Verdict],
            user: str | None, wanted: frozenset[str] | None, kept: Mapping[str, ReadingParts],
            naming: Naming, held: Iterable[NodeView] = ()) -> list[tuple[NodeView, Statement, Verdict]]:
    """History written inside a succession: the memories, no longer current, that the current
    memories ending the new one (history written after what followed it) replaced, back along
    their supersedes edges, each judged against the new memory: one that begins after it and
    changes it is an earlier end of it (`as_later`), one that held when it began is changed by
    it (the judge's verdict; a supersession closes it where the new one begins). "I live in
    Austin" two years ago, then "I live in Boston" last month, then "I live in Denver" a year
    ago: Denver ends Austin and Boston ends Denver. So are the memories `held` (`held_then`)
    when the new one begins, whatever ended them. Only updates come back, and a memory that
    held then in the same words, which the new one repeats (a replay of history: "I live in
    Austin" sent again with its own time, after "I moved to Denver" ended it): a memory that no
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
                verdict = as_later(services, new, old)
            else:
                verdict = services.judge.judge(new, [old])[0]
            if verdict.outcome == "update" or verdict.outcome == "duplicate" and view.valid_from <= starts:
                found.append((view, old, verdict))
                if view.valid_from > starts:
                    todo.append(view.anchor)
    return found


def follow(services: Services, w: Writer, anchor: str, starts: int,
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
    first = len(revised_by)
    for view, changed in memories:
        if changed is None:
            edge = Edge("supersedes", view.anchor, anchor)
            w.link(edge)
            close_derived_facts(services, w, edge, view.valid_from)
            superseded_by.append(view.anchor)
            break
        if changed - done:  # each later change of another part ends that part where it begins
            edge = Edge("revises", view.anchor, anchor)
            w.link(edge)
            close_derived_facts(services, w, edge, view.valid_from, only=changed - done)
            revised_by.append(view.anchor)
            done |= changed
    if turn is not None:
        view, changed = turn
        edge = Edge("revises", view.anchor, anchor)
        w.link(edge)
        close_derived_facts(services, w, edge, view.valid_from, only=changed or frozenset())
        # said before every memory here: listed first, as every read lists what ended a memory
        # in the order they begin (worlddb.memory.marks)
        revised_by.insert(first, view.anchor)


def hand_over_plans(services: Services, w: Writer, old: str, new: str, starts: int,
                    ended: Iterable[str] = ()) -> None:
    """Let the planned changes of `old` end `new`, which replaces `old` from `starts`: each memory
    that supersedes `old` from a later time, and holds at some time, supersedes `new` too, and
    `new`'s facts end where that plan begins. "I work at Google" from March, then "I work at
    Figma" from January: Figma holds from January until March, whichever was written first, as
    it does when the old memory is amended instead. A plan in `ended` already revises `new`
    (`follow`: the new memory also says what the plan leaves alone) and ends nothing more."""
    store = services.store
    plans = [v for v in store.get_many(e.src for e in store.edges(dst=old, type="supersedes")).values()
             if v.anchor != new and v.valid_from > starts and holds_ever(v) and v.anchor not in ended]
    for plan in sorted(plans, key=lambda v: (v.valid_from, v.anchor)):
        edge = Edge("supersedes", plan.anchor, new)
        w.link(edge)
        close_derived_facts(services, w, edge, plan.valid_from)


def successors(store: Store, anchor: str) -> set[str]:
    """Every memory that supersedes `anchor`, directly or through the ones that do."""
    seen: set[str] = set()
    todo = [anchor]
    while todo:
        for edge in store.edges(dst=todo.pop(), type="supersedes"):
            if edge.src not in seen:
                seen.add(edge.src)
                todo.append(edge.src)
    return seen
