"""What one consolidation pass did (worlddb.consolidator.consolidator.Consolidator.run)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    """What one pass did. Lists hold ids; counts are derived in `summary()`."""

    summaries: list[str] = field(default_factory=list)       # new Summary anchors
    superseded: list[str] = field(default_factory=list)      # older Summary anchors they replaced
    retired: list[str] = field(default_factory=list)         # summaries of worlds left with no content
    placed: int = 0                                          # contains edges added/removed to re-place summaries
    young: int = 0                                           # worlds skipped: content newer than min_age
    inferred: list[str] = field(default_factory=list)        # inferred closure edge ids
    withdrawn: list[str] = field(default_factory=list)       # inferred edges whose premises are gone
    redrawn: list[str] = field(default_factory=list)         # inferred edges linked again with a new interval
    contradictions: list[str] = field(default_factory=list)  # contradicts edge ids
    refused: list[tuple[str, str]] = field(default_factory=list)  # (edge id, why it was not written)
    topics: list[str] = field(default_factory=list)          # new Topic worlds
    topics_retired: list[str] = field(default_factory=list)  # topics left without members
    topic_moves: int = 0                                     # contains edges added/removed by the topic pass
    truncated: bool = False                                  # more inferred edges than max_inferred
    skipped: bool = False                                    # another runner on the store held the pass's lock
    transactions: int = 0
    seconds: float = 0.0

    @property
    def wrote(self) -> bool:
        return self.transactions > 0

    def summary(self) -> dict:
        return {
            "summaries": len(self.summaries), "superseded": len(self.superseded), "retired": len(self.retired),
            "placed": self.placed, "young": self.young, "inferred": len(self.inferred),
            "withdrawn": len(self.withdrawn), "redrawn": len(self.redrawn),
            "contradictions": len(self.contradictions), "topics": len(self.topics),
            "topics_retired": len(self.topics_retired), "topic_moves": self.topic_moves, "refused": len(self.refused),
            "truncated": self.truncated, "skipped": self.skipped, "transactions": self.transactions,
            "seconds": round(self.seconds, 4),
        }
