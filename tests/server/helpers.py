"""Shared assertions for server tests (imported as a plain module from tests/server)."""

from __future__ import annotations

import sqlite3


def dump(path) -> list[str]:
    """Every row of every table, for 'nothing was written' checks."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
