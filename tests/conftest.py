"""Shared fixtures: every test gets real SQLite files in its own temporary directory; tests
that prove a backend's semantics also run on a real PostgreSQL (`backend`, `target`).

A module marked `pytestmark = pytest.mark.both_backends` runs each of its tests that takes
a store (`db_path`, and through it `db`, `engine` and the MCP servers of tests/server) once
on SQLite and once on a fresh PostgreSQL database (ids end in [sqlite] / [postgresql]).
WORLDDB_TEST_BACKEND=postgresql runs every other test that takes `db_path` on PostgreSQL
too. A test about SQLite itself (its file, its PRAGMAs, its query plans, the in-process
HNSW indexes kept beside it) is marked `@pytest.mark.sqlite_only("why")`: it runs on SQLite
only, and on a PostgreSQL run it is skipped with that reason printed."""

from __future__ import annotations

import os

import pytest

from tests import pg
from tests.support import check_each_schema_once, open_engine
from worlddb.graph.database import WorldDB

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config):
    config.addinivalue_line("markers", "both_backends: run the module's stores on SQLite and on PostgreSQL")
    config.addinivalue_line("markers", "sqlite_only(reason): the test is about SQLite itself; "
                                       "skipped, with the reason, when its store would be on PostgreSQL")
    check_each_schema_once()


#: the files that take longest, longest first (the fuzzers; the server's files of hundreds of
#: client sessions; the tests that start, kill and race server processes; then those of half a
#: minute or so): `make test` hands whole files to its workers in the order they are collected
#: (`--no-loadscope-reorder`: xdist would otherwise send the files with most tests first, and
#: the one-test files that take a minute last), so these go first and the many short files even
#: out the end
LONGEST_FIRST = ("fuzz/", "tests/server/test_updates.py", "tests/server/test_errors.py", "tests/reliability/",
                 "tests/server/test_messages.py", "tests/cli/", "tests/server/test_grants.py",
                 "tests/server/test_entity_reads.py", "tests/server/test_inspector_browser.py",
                 "tests/extract/test_slots_prefilter.py", "tests/vectors/test_embedder.py",
                 "tests/server/test_tools.py")


def pytest_collection_modifyitems(items):
    """Move the files under LONGEST_FIRST ahead of the rest, in its order, each file's tests in theirs."""
    def rank(item) -> int:
        return next((i for i, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)),
                    len(LONGEST_FIRST))
    items.sort(key=rank)


def _sqlite_only(node) -> str | None:
    """The reason a test is SQLite-only, or None; a sqlite_only mark without one is refused."""
    mark = node.get_closest_marker("sqlite_only")
    if mark is None:
        return None
    reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
    if not reason:
        raise pytest.UsageError(f"{node.nodeid}: sqlite_only needs a reason")
    return reason


def pytest_generate_tests(metafunc):
    if "store_backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_backends"):
        only = _sqlite_only(metafunc.definition)
        metafunc.parametrize("store_backend", BACKENDS[:1] if only else BACKENDS, indirect=True)


@pytest.fixture
def store_backend(request) -> str:
    """The backend `db_path` is on: the module's parameter (both_backends), else
    WORLDDB_TEST_BACKEND, else SQLite. A sqlite_only test is skipped on PostgreSQL."""
    backend = getattr(request, "param", None) or os.environ.get("WORLDDB_TEST_BACKEND", "sqlite")
    reason = _sqlite_only(request.node)
    if backend == "postgresql" and reason:
        pytest.skip(f"SQLite only: {reason}")
    return backend


@pytest.fixture
def db_path(store_backend, tmp_path):
    """A store for the test: a SQLite file, or a fresh PostgreSQL database."""
    if store_backend == "postgresql":
        url = pg.new_database()
        yield url
        pg.drop_database(url)
        return
    yield tmp_path / "memory.db"


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


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """Each backend in turn: "sqlite" or "postgresql"."""
    return request.param


@pytest.fixture
def target(backend, tmp_path):
    """Where a store lives on `backend`: a file in the test's directory, or a fresh
    database on the session's PostgreSQL server (tests/pg.py), dropped afterwards."""
    if backend == "sqlite":
        yield str(tmp_path / "memory.db")
        return
    url = pg.new_database()
    yield url
    pg.drop_database(url)

