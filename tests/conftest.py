"""Shared fixtures: every test gets real SQLite files in its own temporary directory."""

from __future__ import annotations

import pytest

from tests.support import open_engine
from worlddb.graph.database import WorldDB


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "memory.db"


@pytest.fixture
def db(db_path):
    database = WorldDB.open(db_path)
    yield database
    database.close()


@pytest.fixture
def engine(db_path):
    opened = open_engine(db_path)
    yield opened
    opened.close()
