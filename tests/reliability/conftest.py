"""Fixtures for the reliability tests; helpers live in .support."""

from __future__ import annotations

import pytest

from .support import server_for


@pytest.fixture
def server(db_path):
    return server_for(db_path)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """(path, server) reused by a module's tests: each test asserts only on what its own
    calls changed (fingerprints before/after, its own scope), so they can share a file."""
    path = tmp_path_factory.mktemp("shared") / "memory.db"
    return path, server_for(path)
