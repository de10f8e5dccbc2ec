"""bench.copy_store: each way copies the whole store, in alternation, and the report's figures
are those of the rounds it ran."""

from __future__ import annotations

import pytest

from bench.copy_store import run
from tests.support import ALICE, open_engine


def test_each_round_copies_every_row_and_the_report_adds_up(tmp_path):
    source = tmp_path / "memory.db"
    with open_engine(source) as engine:
        for i in range(5):
            engine.write_memory(f"Note {i}: the fern on shelf {i} wants water.", ALICE)
    report = run(source, rounds=2, pg=False)
    assert report["rows"] > 5 * 5 and set(report["seconds"]) == {"copy_file", "sqlite_backup", "verify_copy"}
    assert all(len(times) == 2 and min(times) > 0 for times in report["seconds"].values())
    median = {way: sorted(times)[0] / 2 + sorted(times)[1] / 2 for way, times in report["seconds"].items()}
    assert report["rows_per_second"]["copy_file"] == pytest.approx(report["rows"] / median["copy_file"], rel=0.01)
    assert report["copy_file_vs_sqlite_backup"] == pytest.approx(median["copy_file"] / median["sqlite_backup"],
                                                                 rel=0.05)
