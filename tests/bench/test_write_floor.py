"""bench.write_floor measures the SQLite floor under a bulk load by replaying the load's
statements; the measurement means something only if the replay rebuilds what the load wrote."""

from __future__ import annotations

from bench import write_floor


def test_replaying_a_recorded_load_rebuilds_every_row(tmp_path):
    report, log, empty = write_floor.record(300, tmp_path)
    assert report["tables"]["nodes"] == 301 and report["tables"]["edges"] == 300 + 750
    for batched in (False, True):
        cpu, _, counts = write_floor.replay(log, empty, tmp_path, batched=batched)
        assert counts == report["tables"]
        assert cpu > 0


def test_a_replay_that_misses_a_statement_is_caught(tmp_path):
    report, log, empty = write_floor.record(100, tmp_path)
    dropped = [entry for entry in log if not entry[1].lstrip().startswith("INSERT INTO fts")]
    assert len(dropped) < len(log)
    _, _, counts = write_floor.replay(dropped, empty, tmp_path, batched=False)
    assert counts != report["tables"]


def test_integer_keyed_edge_rows_are_smaller_than_hex_text_ones(tmp_path):
    layouts = write_floor.edge_layouts(2_000, tmp_path, repeats=1)
    assert layouts["integer_keys"]["mib_on_disk"] < layouts["hex_text"]["mib_on_disk"]
