"""`import worlddb` is the Python API: its names are pinned here, so adding or dropping one
is a decision, not an accident."""

from __future__ import annotations

import subprocess
import sys

import worlddb

EXPORTED = [
    "__version__", "open",
    # the engine and its async twin
    "Engine", "AsyncEngine",
    # arguments and results
    "ScopeSet", "Access", "SessionIn", "TurnIn", "IngestResult",
    "AmendResult", "ConflictOut", "EntityOut", "FactOut", "HashCheck", "Hit", "MemoryDetail", "MemoryOut", "Page",
    "PurgeResult", "RecallResult", "RetireAllResult", "RetireResult", "ScopeInfo", "ScopeList", "WriteResult",
    # entities and merge proposals
    "EntityDetail", "EntityRef", "PendingMerge", "ProposalList", "ProposalOut", "RelatedEntity",
    # the error tree
    "WorldDBError", "InvalidInput", "AmbiguousId", "UnknownEdgeType", "NotFound", "Conflict", "ValidityConflict",
    "Refused", "IntegrityError", "SchemaError", "StorageError", "EmbedderError", "ExtractionError", "Forbidden",
    "RateLimited", "ServeError",
    # the extension points
    "EdgeContext", "EdgeHandler", "Registry", "Embedder", "Extractor", "Summarizer", "Tiebreaker", "UpdateJudge",
]


def test_all_lists_exactly_the_public_api():
    assert sorted(worlddb.__all__) == sorted(EXPORTED)


def test_every_exported_name_resolves_to_an_object_of_its_own_name():
    for name in EXPORTED:
        value = getattr(worlddb, name)
        if name not in ("__version__", "open"):
            assert value.__name__ == name, name
            assert value.__module__.startswith("worlddb."), name


def test_errors_share_one_base_and_are_the_engine_s_own():
    for name in ("InvalidInput", "AmbiguousId", "UnknownEdgeType", "NotFound", "Conflict", "ValidityConflict",
                 "Refused", "IntegrityError", "SchemaError", "StorageError", "EmbedderError", "ExtractionError",
                 "ServeError"):
        assert issubclass(getattr(worlddb, name), worlddb.WorldDBError), name


def test_an_unknown_name_is_an_attribute_error():
    try:
        worlddb.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("worlddb.NoSuchThing resolved")


def test_importing_worlddb_loads_neither_the_model_runtime_nor_the_index_library():
    code = ("import sys, worlddb; worlddb.__all__; "
            "print(sorted(m for m in ('onnxruntime', 'hnswlib', 'numpy', 'anthropic', 'mcp') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_open_gives_an_engine_that_works(tmp_path):
    from worlddb.vectors.embedder import HashEmbedder

    with worlddb.open(tmp_path / "m.db", embedder=HashEmbedder(), default_user="alice") as engine:
        assert isinstance(engine, worlddb.Engine)
        me = worlddb.ScopeSet.of(user="alice")
        written = engine.write_memory("I keep bees on the roof.", me)
        assert isinstance(written, worlddb.WriteResult)
        hits = engine.recall("bees", me).results
        assert [h.id for h in hits] == [written.id]


def test_the_package_says_it_is_typed():
    from importlib.resources import files

    assert files("worlddb").joinpath("py.typed").is_file()
