"""The `worlddb` command line.

    worlddb verify [--db PATH]        re-derive every id; exit 1 on any mismatch
    worlddb serve  [...]              serve the MCP tools (stdio by default)
    worlddb consolidate [--db PATH] [--min-age-secs N] [--functional REL ...]
                                      run one consolidation pass now; JSON report

The database path defaults to $WORLDDB_DB, else to a per-user data directory.

A database keeps the embedder it was first written with (`serve --embedder minilm|hash`);
serving it with another is refused in one line (exit 2); `worlddb reembed` re-embeds it with
the default model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from worlddb.core.errors import WorldDBError


def default_db_path() -> str:
    if os.environ.get("WORLDDB_DB"):
        return os.environ["WORLDDB_DB"]
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "worlddb" / "memory.db")


def existing_db(args: argparse.Namespace) -> str | None:
    """The database a maintenance command works on; None (with a message) if there is none:
    those commands never create an empty database by accident."""
    path = args.db or default_db_path()
    if not Path(path).exists():
        print(f"worlddb {args.command}: no database at {path}", file=sys.stderr)
        return None
    return path


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, help="database file (default: $WORLDDB_DB or a per-user data dir)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="worlddb", description="Long-term memory for AI agents.")
    sub = parser.add_subparsers(dest="command", required=True)
    verify = sub.add_parser("verify", help="re-derive every id and world version; exit 1 on mismatch")
    _add_db(verify)
    verify.add_argument("--limit", type=int, default=20, help="mismatches to list (default 20)")
    consolidate = sub.add_parser("consolidate", help="run one consolidation pass now; prints what it did as JSON")
    _add_db(consolidate)
    consolidate.add_argument("--min-age-secs", type=float, default=3600.0,
                             help="summarize worlds whose content is older than this (default 3600)")
    consolidate.add_argument("--functional", nargs="+", action="extend", default=[], metavar="REL",
                             help="relations that hold one value per subject, swept for contradictions")
    reembed = sub.add_parser("reembed", help="recompute every vector with the default embedding model")
    _add_db(reembed)
    serve = sub.add_parser("serve", help="serve the MCP memory tools (stdio by default)")
    _add_db(serve)
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    serve.add_argument("--default-user", default=None,
                       help="scope used when a call names none (default: $WORLDDB_DEFAULT_USER)")
    serve.add_argument("--token", default=None,
                       help="require this bearer token over HTTP (default: $WORLDDB_TOKEN; prefer the variable)")
    serve.add_argument("--functional", nargs="*", default=[], metavar="RELATION",
                       help="relations with one current value per subject (e.g. lives_in)")
    serve.add_argument("--consolidate-every", type=float, default=3600.0, metavar="SECONDS",
                       help="background consolidation interval; 0 turns it off (default 3600)")
    serve.add_argument("--query-model", action="store_true",
                       help="also run the embedding model on queries (default: model-free query vectors)")
    serve.add_argument("--embedder", choices=("minilm", "hash"), default=None,
                       help="minilm (default; $WORLDDB_EMBEDDER) or hash: feature hashing, no model at all - "
                            "much weaker vector search, for constrained installs and load tests")
    return parser


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    # before the server exists: stdout is the protocol channel on stdio, so logs go to stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    from worlddb.server import ServerConfig, serve_http, serve_stdio

    embedder_name = args.embedder or os.environ.get("WORLDDB_EMBEDDER") or "minilm"
    options = {}
    query_model = args.query_model
    if embedder_name == "hash":
        from worlddb.vectors.embedder import HashEmbedder

        # the static query table lives in MiniLM's space; hashed queries are cheap anyway
        options["embedder"], query_model = HashEmbedder(), True
    elif embedder_name != "minilm":
        print(f"worlddb serve: unknown embedder {embedder_name!r} (minilm or hash)", file=sys.stderr)
        return 2
    config = ServerConfig(
        db=args.db or default_db_path(),
        default_user=args.default_user or os.environ.get("WORLDDB_DEFAULT_USER") or None,
        functional=tuple(args.functional),
        query_model=query_model,
        consolidate_every=args.consolidate_every or None,
        engine_options=options,
    )
    if args.transport == "stdio":
        serve_stdio(config)
    else:
        serve_http(config, host=args.host, port=args.port, token=args.token or os.environ.get("WORLDDB_TOKEN"))
    return 0


def cmd_reembed(args: argparse.Namespace) -> int:
    from worlddb.graph.reembed import stored_vectors
    from worlddb.memory.engine import Engine

    path = existing_db(args)
    if path is None:
        return 2
    with Engine.open(path, reembed=True) as engine:
        print(json.dumps({"model": engine.embedder.model_id, "vectors": stored_vectors(engine.store)}))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from worlddb.graph.database import WorldDB

    path = existing_db(args)
    if path is None:
        return 2
    with WorldDB.open(path) as db:
        report = db.verify()
    print(json.dumps(report.summary()))
    for mismatch in report.mismatches[: args.limit]:
        print(f"{mismatch.kind}\t{mismatch.id}\t{mismatch.detail}")
    return 0 if report.ok else 1


def cmd_consolidate(args: argparse.Namespace) -> int:
    """One pass; the summarizer is Anthropic's when ANTHROPIC_API_KEY is set, else extractive."""
    from worlddb.consolidator import Consolidator
    from worlddb.graph.database import WorldDB

    path = existing_db(args)
    if path is None:
        return 2
    with WorldDB.open(path) as db:
        report = Consolidator(db, min_age_secs=args.min_age_secs, functional=args.functional).run()
    print(json.dumps(report.summary()))
    return 0


COMMANDS = {"reembed": cmd_reembed, "serve": cmd_serve, "verify": cmd_verify, "consolidate": cmd_consolidate}


def _engine_error(exc: BaseException) -> WorldDBError | None:
    """The engine error behind `exc`: itself, or one inside an exception group (the
    server's lifespan reports a failed start, e.g. an embedder mismatch, wrapped in one)."""
    if isinstance(exc, WorldDBError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _engine_error(inner)
            if found is not None:
                return found
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (WorldDBError, BaseExceptionGroup) as exc:
        error = _engine_error(exc)
        if error is None:
            raise
        print(f"worlddb {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
