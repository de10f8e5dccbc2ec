"""What the inspector's templates show, computed from the memory API's records: a memory's
validity in words, and the layout of an entity's neighbourhood as a small SVG picture. Pure
functions; the pages (worlddb.server.inspector.pages) fetch, these shape, the templates draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from worlddb.memory.results import EntityDetail, Hit, MemoryDetail, MemoryOut

#: the picture's size in px; the entity sits in the middle, its neighbours on a ring
SIZE = 420
RING = 150
#: neighbours drawn at most
MAX_NEIGHBOURS = 14
LABEL_CHARS = 22


@dataclass(frozen=True)
class Validity:
    """A memory's standing, in words: current, revised in part by ..., superseded by ...,
    retired (or retired as never true), ended; and the memories it conflicts with (which can go with any of those)."""

    state: str
    label: str
    superseded_by: list[str]
    conflicts: list[str]
    reason: str | None = None
    #: current memories that changed part of this one, which stays current (the revises edge)
    revised_by: list[str] = field(default_factory=list)


def validity(memory: MemoryDetail | MemoryOut | Hit, superseded_by: list[str], conflicts: list[str]) -> Validity:
    reason = getattr(memory, "retire_reason", None)
    if superseded_by:
        return Validity("superseded", "superseded", superseded_by, conflicts, reason)
    if memory.retired:
        # retired as never true: its validity ends where it began
        never = memory.valid_to is not None and memory.valid_to == memory.valid_from
        return Validity("retired", "retired, never true" if never else "retired", [], conflicts, reason)
    if memory.valid_to is not None:
        return Validity("ended", f"ended {memory.valid_to[:10]}", [], conflicts, reason)
    revised_by = memory.annotations.get("revised_by", [])
    if revised_by:
        return Validity("revised", "revised in part", [], conflicts, reason, revised_by)
    return Validity("current", "current", [], conflicts, reason)


def of_detail(detail: MemoryDetail) -> Validity:
    return validity(detail, detail.superseded_by, detail.contradicts)


def of_hit(hit: Hit) -> Validity:
    return validity(hit, hit.superseded_by, hit.conflicts)


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    label: str
    title: str
    kind: str  # "self", "same", "pending", "related"
    href: str


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    label: str
    kind: str
    lx: float
    ly: float


@dataclass(frozen=True)
class Picture:
    size: int
    dots: list[Dot]
    lines: list[Line]


def neighbourhood(entity: EntityDetail, href) -> Picture:
    """The entity in the middle; around it the members of its class (solid), the other ends
    of its pending proposals (dashed), and related entities (labelled with the relation).
    `href(entity_id)` gives each dot's link."""
    centre = SIZE / 2
    around: list[tuple[str, str, str, str]] = []  # id, name, kind, edge label
    seen = {entity.id}
    for ref in entity.same_as:
        if ref.id not in seen:
            seen.add(ref.id)
            around.append((ref.id, ref.name, "same", "same as"))
    for p in entity.proposals:
        if p.other_id not in seen:
            seen.add(p.other_id)
            around.append((p.other_id, p.other_name, "pending", f"may be ({p.tier or '?'})"))
    for r in entity.related:
        if r.id not in seen:
            seen.add(r.id)
            # co-mention is the plain line; only a fact's relation gets a label
            label = "" if r.relation == "mentioned with" else r.relation.replace("_", " ")
            around.append((r.id, r.name, "related", label))
    around = around[:MAX_NEIGHBOURS]
    dots = [Dot(centre, centre, _short(entity.name), entity.name, "self", href(entity.id))]
    lines = []
    for i, (other, name, kind, label) in enumerate(around):
        angle = -math.pi / 2 + 2 * math.pi * i / max(len(around), 1)
        x, y = centre + RING * math.cos(angle), centre + RING * math.sin(angle)
        dots.append(Dot(round(x, 1), round(y, 1), _short(name), name, kind, href(other)))
        lines.append(Line(centre, centre, round(x, 1), round(y, 1), _short(label), kind,
                          round(centre + 0.6 * RING * math.cos(angle), 1),
                          round(centre + 0.6 * RING * math.sin(angle), 1) - 4))
    return Picture(SIZE, dots, lines)


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"
