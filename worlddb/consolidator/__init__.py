"""The consolidator: background upkeep that turns an append-only memory into a usable one.

    from worlddb.consolidator import Consolidator, ConsolidatorTask, summary_first

    Consolidator(db, min_age_secs=3600, functional={"lives_in"}).run()   # one pass -> Report
    ConsolidatorTask(path, interval_secs=3600, ...).start()              # on a schedule
    summary_first(db, [topic], within=[scope])                           # read summaries first
    summary_first(db, [topic], within=[scope], depth=1)                  # ... and the details

A pass (consolidator.py; what it did: report.py) infers transitive `causes` / `subtype_of` edges and sweeps functional
relations for contradictions (inference.py), then writes Summary nodes for worlds whose
content is older than `min_age_secs` (summaries.py). Re-running it on an unchanged store
writes nothing. `worlddb consolidate` on the command line runs one pass.
"""

from .consolidator import CLOSURE_TYPES, Consolidator
from .report import Report
from .summaries import (
    SummaryIndexer,
    TextIndexer,
    content_time,
    current_summaries,
    fingerprint,
    summaries_covering,
    summary_first,
)
from .task import ConsolidatorTask

__all__ = [
    "CLOSURE_TYPES", "Consolidator", "ConsolidatorTask", "Report", "SummaryIndexer", "TextIndexer",
    "content_time", "current_summaries", "fingerprint", "summaries_covering", "summary_first",
]
