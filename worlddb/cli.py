"""The `worlddb` command line.

    worlddb verify [--db PATH]        re-derive every id; exit 1 on any mismatch
    worlddb serve  [...]              serve the MCP tools (stdio by default)
    worlddb consolidate [--db PATH] [--min-age-secs N] [--functional REL ...]
                                      run one consolidation pass now; JSON report
    worlddb identity pending|accept|reject|show|export [...]
                                      see and decide same_as merge proposals, look up and
                                      export an entity's identity
    worlddb ui [--db PATH] [--port N] [--no-browser]
                                      the memory inspector alone, opened in the browser
    worlddb auth add-token NAME --scope KEY [...] [--admin]
                                      a bearer token for HTTP callers, granted those scopes
    worlddb auth list | revoke NAME   the principals with tokens; revoke one
    worlddb import FILE [--format jsonl|official-memory|mem0] [--scope KEY] [--judge]
                                      load memories from a file in batched transactions
    worlddb export [--db PATH] [--scope KEY ...] [--out FILE]
                                      what scopes remember now, as lines `worlddb import` reads
    worlddb copy DEST [--db PATH] [--no-verify]
                                      copy the whole store into a new SQLite file or an empty
                                      PostgreSQL database (a backup, or a move between backends)
    worlddb backfill-claims [--db PATH] [--batch N]
                                      index the claims of memories written before the claims
                                      index (a served store does it in the background)

The database path defaults to $WORLDDB_DB, else to a per-user data directory.

A database keeps the embedder it was first written with (`serve --embedder minilm|hash`);
serving it with another is refused in one line (exit 2), over stdio and over HTTP alike, as is
an HTTP port that cannot be bound (a ServeError); `worlddb reembed` re-embeds it with
the default model, its texts in the current form (a store embedded with the date in every
text keeps that form until it is re-embedded: worlddb.graph.text_index).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path

from worlddb.core import backends
from worlddb.core.errors import InvalidInput, NotFound, WorldDBError, engine_error


def default_db_path() -> str:
    if os.environ.get("WORLDDB_DB"):
        return os.environ["WORLDDB_DB"]
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "worlddb" / "memory.db")


def existing_db(args: argparse.Namespace) -> str | None:
    """The database a maintenance command works on; None (with a message) if there is none:
    those commands never create an empty database by accident."""
    path = args.db or default_db_path()
    backend = backends.for_target(path)
    if not backend.exists(path):
        print(f"worlddb {args.command}: no database at {backend.display(path)}", file=sys.stderr)
        return None
    return path


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None,
                        help="database file or postgresql:// URL (default: $WORLDDB_DB or a per-user data dir)")


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
    backfill = sub.add_parser("backfill-claims", help="index the claims of memories written before the claims "
                              "index, in batches; prints what it did as JSON")
    _add_db(backfill)
    backfill.add_argument("--batch", type=int, default=None, help="memories per transaction (default 200)")
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
    _add_identity(sub)
    ui = sub.add_parser("ui", help="serve the memory inspector alone and open it in the browser")
    _add_db(ui)
    ui.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    ui.add_argument("--port", type=int, default=8766, help="port (default 8766; 0: any free one)")
    ui.add_argument("--token", default=None,
                    help="require this token to sign in (default: $WORLDDB_TOKEN; prefer the variable)")
    ui.add_argument("--no-browser", action="store_true", help="print the address; do not open a browser")
    serve.add_argument("--audit-log", default="-", metavar="FILE",
                       help="append one JSON line per tool call to FILE (default: stderr; 'off' for none)")
    serve.add_argument("--audit-log-max-mb", type=float, default=0, metavar="MB",
                       help="rotate the audit file before it passes MB megabytes (default 0: never; "
                            "logrotate may move it instead)")
    serve.add_argument("--audit-log-backups", type=int, default=5, metavar="N",
                       help="rotated audit files to keep: FILE.1 ... FILE.N (default 5)")
    serve.add_argument("--rate-limit", type=float, default=50.0, metavar="N",
                       help="tool calls per second per HTTP principal, bursts of 2N (default 50; 0: no limit)")
    serve.add_argument("--max-in-flight", type=int, default=8, metavar="N",
                       help="tool calls one HTTP principal may have running at once (default 8; 0: no limit)")
    serve.add_argument("--oauth-issuer", default=None, metavar="URL",
                       help="accept JWT access tokens from this OAuth authorization server (needs --oauth-jwks)")
    serve.add_argument("--oauth-jwks", default=None, metavar="FILE|URL", help="the issuer's JSON Web Key Set")
    serve.add_argument("--oauth-resource", default=None, metavar="URL",
                       help="this server's URL as clients reach it, the tokens' audience "
                            "(default http://HOST:PORT/mcp)")
    serve.add_argument("--oauth-claim", default="scope", metavar="NAME",
                       help="the token claim that lists the granted scopes (default: scope)")
    auth = sub.add_parser("auth", help="bearer tokens for HTTP callers, each granted some scopes")
    auth_sub = auth.add_subparsers(dest="auth_command", required=True)
    add = auth_sub.add_parser("add-token", help="create a principal and print its token (shown only once)")
    add.add_argument("name", help="the principal's name (in audit lines and `worlddb auth list`)")
    add.add_argument("--scope", action="append", required=True, metavar="KEY", dest="scopes",
                     help="a granted scope: user:alice, or a pattern such as 'agent:*' or '*' (repeatable)")
    add.add_argument("--admin", action="store_true", help="may also purge the granted scopes")
    _add_db(add)
    listing = auth_sub.add_parser("list", help="the principals, their grants and whether they are admins")
    _add_db(listing)
    revoke = auth_sub.add_parser("revoke", help="revoke a principal: its token stops working at once")
    revoke.add_argument("name")
    _add_db(revoke)
    load = sub.add_parser("import", help="load memories from a file in batched transactions, with a progress bar")
    load.add_argument("file", help="the file to import")
    _add_db(load)
    load.add_argument("--format", choices=("jsonl", "official-memory", "mem0"), default="jsonl",
                      help="jsonl: memory_write arguments per line (default); official-memory: the MCP reference "
                           "memory server's JSONL; mem0: a Mem0 export")
    load.add_argument("--scope", default=None, metavar="KEY",
                      help="scope for items that name none, e.g. user:alice (default: user:$WORLDDB_DEFAULT_USER)")
    load.add_argument("--batch", type=int, default=500, help="memories per transaction (default 500)")
    load.add_argument("--judge", action="store_true",
                      help="judge each memory against the current ones as memory_write does (a later one "
                           "supersedes what it changes; a repeat is not written), one transaction each: for a "
                           "file of memories in the order they happened. Slower")
    load.add_argument("--embedder", choices=("minilm", "hash"), default=None,
                      help="as for serve: the database's embedder (default minilm; $WORLDDB_EMBEDDER)")
    export = sub.add_parser("export", help="what scopes remember now, as JSON lines of memory_write arguments "
                            "that `worlddb import` reads (current memories and conversations; no history)")
    _add_db(export)
    export.add_argument("--scope", action="append", default=[], metavar="KEY", dest="scopes",
                        help="a scope to export, e.g. user:alice (repeatable; default: every scope)")
    export.add_argument("--out", default="-", metavar="FILE", help="where to write the lines (default: stdout)")
    copy = sub.add_parser("copy", help="copy the whole store into a new SQLite file or an empty PostgreSQL "
                          "database, then verify the copy; servers may keep writing meanwhile")
    copy.add_argument("destination", metavar="DEST", help="a SQLite file that does not exist yet, or a "
                      "postgresql:// URL of a database (or schema) with no tables")
    _add_db(copy)
    copy.add_argument("--no-verify", action="store_true",
                      help="skip re-deriving every id of the copy afterwards (`worlddb verify` does it later)")
    return parser


def _add_identity(sub) -> None:
    identity = sub.add_parser("identity", help="see and decide merge proposals; look up and export identities")
    actions = identity.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, help: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help, description=help)
        _add_db(parser)
        parser.add_argument("--scope", action="append", default=[], metavar="KEY",
                            help="only this scope, e.g. user:alice (repeatable; default: every scope)")
        return parser

    pending = action("pending", "list the pending same_as merge proposals, newest first")
    pending.add_argument("--json", action="store_true", help="print the proposals as JSON")
    for name, verb in (("accept", "accept a pending proposal: its two entities become one identity"),
                       ("reject", "reject a pending proposal: its two entities stay apart")):
        decide = action(name, verb)
        decide.add_argument("proposal", metavar="PROPOSAL_ID", help="its id, or a unique prefix of 8+ hex characters")
        decide.add_argument("--reason", default=None, help="why (kept with the decision)")
    show = action("show", "an entity: names, class, proposals, facts, neighbours and latest mentions")
    show.add_argument("entity", metavar="NAME_OR_ID", help="an entity id (or prefix), name, alias or word of a name")
    show.add_argument("--json", action="store_true", help="print the entities as JSON")
    export = action("export", "everything held about one identity, or every identity, as JSON")
    export.add_argument("entity", metavar="NAME_OR_ID", nargs="?", default=None,
                        help="one identity (default: every identity in the scopes)")
    export.add_argument("--out", default=None, metavar="FILE", help="write to FILE instead of standard output")


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    # before the server exists: stdout is the protocol channel on stdio, so logs go to stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    # a crash inside a native library (onnxruntime, hnswlib, SQLite) would end the process
    # without a word; this leaves every thread's Python stack on stderr first
    faulthandler.enable(sys.stderr)
    from worlddb.server import OAuthSettings, ServerConfig, serve_http, serve_stdio

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
    if args.audit_log_max_mb < 0 or args.audit_log_backups < 1:
        print("worlddb serve: --audit-log-max-mb must be >= 0 and --audit-log-backups >= 1", file=sys.stderr)
        return 2
    oauth = None
    if args.oauth_issuer or args.oauth_jwks:
        if not (args.oauth_issuer and args.oauth_jwks):
            print("worlddb serve: --oauth-issuer and --oauth-jwks go together", file=sys.stderr)
            return 2
        host = f"[{args.host}]" if ":" in args.host else args.host
        oauth = OAuthSettings(issuer=args.oauth_issuer, jwks=args.oauth_jwks, claim=args.oauth_claim,
                              resource=args.oauth_resource or f"http://{host}:{args.port}/mcp")
    config = ServerConfig(
        db=args.db or default_db_path(),
        default_user=args.default_user or os.environ.get("WORLDDB_DEFAULT_USER") or None,
        functional=tuple(args.functional),
        query_model=query_model,
        consolidate_every=args.consolidate_every or None,
        engine_options=options,
        rate_limit=args.rate_limit,
        max_in_flight=args.max_in_flight,
        audit_log=None if args.audit_log == "off" else args.audit_log,
        audit_max_bytes=int(args.audit_log_max_mb * 1_000_000),
        audit_backups=args.audit_log_backups,
        freeze_startup=True,
    )
    if args.transport == "stdio":
        serve_stdio(config)
    else:
        serve_http(config, host=args.host, port=args.port, token=args.token or os.environ.get("WORLDDB_TOKEN"),
                   oauth=oauth)
    return 0


def cmd_reembed(args: argparse.Namespace) -> int:
    from worlddb.graph import text_index
    from worlddb.graph.reembed import stored_vectors
    from worlddb.memory.engine import Engine

    path = existing_db(args)
    if path is None:
        return 2
    with Engine.open(path, reembed=True) as engine:
        print(json.dumps({"model": engine.embedder.model_id, "vector_text": text_index.vector_form(engine.store),
                          "vectors": stored_vectors(engine.store)}))
    return 0


def cmd_backfill_claims(args: argparse.Namespace) -> int:
    """The claims backfill to its end, now (worlddb.memory.claims_backfill); it resumes where
    an interrupted one, or the server's, stopped."""
    from worlddb.graph.database import WorldDB
    from worlddb.memory import claims_backfill

    path = existing_db(args)
    if path is None:
        return 2
    batch = claims_backfill.BATCH if args.batch is None else args.batch
    if batch < 1:
        raise InvalidInput("--batch must be at least 1")
    with WorldDB.open(path) as db:
        claims_backfill.mark_stale(db)
        report = claims_backfill.backfill(db, batch=batch)
    print(json.dumps(report.summary()))
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


def cmd_identity(args: argparse.Namespace) -> int:
    """The operator's view of identity: every scope unless --scope names some."""
    from worlddb.memory.engine import RECORDED, Engine
    from worlddb.memory.scopes import ScopeSet, parse_scope_key

    path = existing_db(args)
    if path is None:
        return 2
    named = [parse_scope_key(key) for key in args.scope]
    with Engine.open(path, embedder=RECORDED) as engine:
        scopes = ScopeSet(tuple(dict.fromkeys(named))) if named else engine.all_scopes()
        return IDENTITY[args.action](engine, scopes, args)


def _where(scopes) -> str:
    from worlddb.memory.scopes import where as scopes_searched

    return scopes_searched(scopes)


def _short(anchor: str) -> str:
    return anchor[:12]


def identity_pending(engine, scopes, args) -> int:
    proposals = engine.merge_proposals(scopes).proposals
    if args.json:
        print(json.dumps([asdict(p) for p in proposals], indent=2))
        return 0
    if not proposals:
        print("no pending merge proposals")
        return 0
    rows = [("PROPOSAL", "ENTITY", "MAY BE", "TIER", "SCORE", "SCOPE")]
    rows += [(_short(p.id), p.a.name, p.b.name, p.tier or "", "" if p.score is None else f"{p.score:.2f}",
              ",".join(p.scopes)) for p in proposals]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    count = len(proposals)
    print(f"{count} pending merge proposal{'s' if count != 1 else ''}; "
          "decide with: worlddb identity accept|reject PROPOSAL")
    return 0


def identity_decide(engine, scopes, args) -> int:
    if args.action == "accept":
        p = engine.accept_merge(args.proposal, scopes, reason=args.reason)
        print(f"accepted {_short(p.id)}: {p.a.name} and {p.b.name} are one identity ({', '.join(p.scopes)})")
    else:
        p = engine.reject_merge(args.proposal, scopes, reason=args.reason)
        print(f"rejected {_short(p.id)}: {p.a.name} and {p.b.name} stay apart ({', '.join(p.scopes)})")
    return 0


def identity_show(engine, scopes, args) -> int:
    found = engine.find_entities(args.entity, scopes)
    if not found:
        raise NotFound(f"no entity named {args.entity!r} in {_where(scopes)}")
    details = [engine.read_entity(ref.id, scopes, limit=10) for ref in found]
    if args.json:
        print(json.dumps([asdict(d) for d in details], indent=2))
        return 0
    for number, entity in enumerate(details):
        if number:
            print()
        print(f"{entity.name}" + (f"  ({entity.type})" if entity.type else ""))
        lines = [("id", [entity.id]), ("scopes", [", ".join(entity.scopes)]),
                 ("aliases", [", ".join(entity.aliases)] if entity.aliases else []),
                 ("same as", [f"{r.name}  {_short(r.id)}" for r in entity.same_as]),
                 ("pending", [f"{_short(p.id)}  may be {p.other_name} ({_short(p.other_id)}), {p.tier}"
                              + ("" if p.score is None else f" {p.score:.2f}") for p in entity.proposals]),
                 ("facts", [f.text or f"{f.subject} {f.relation} {f.object}" for f in entity.facts]),
                 ("related", [f"{r.name} ({r.relation}, {r.count})" for r in entity.related]),
                 ("mentions", [f"{(m.valid_from or '')[:10]}  {_short(m.id)}  {_one_line(m.text)}"
                               + ("  [retired]" if m.retired else "") for m in entity.mentions])]
        for label, values in lines:
            for i, value in enumerate(values):
                print(f"  {label if i == 0 else '':<9} {value}")
        if entity.next_cursor:
            print("  (newest mentions shown; memory_read pages the rest)")
    return 0


def identity_export(engine, scopes, args) -> int:
    entity = None
    if args.entity is not None:
        found = engine.find_entities(args.entity, scopes)
        if not found:
            raise NotFound(f"no entity named {args.entity!r} in {_where(scopes)}")
        if len(found) > 1:
            raise InvalidInput(f"{args.entity!r} names {len(found)} entities: "
                               + ", ".join(f"{r.name} ({_short(r.id)})" for r in found) + "; give an id")
        entity = found[0].id
    report = engine.export_identity(scopes, entity)
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.out is None:
        print(text)
        return 0
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    identities = report["identities"]
    members = sum(len(i["members"]) for i in identities)
    print(f"wrote {len(identities)} identit{'ies' if len(identities) != 1 else 'y'} ({members} entities) to {args.out}")
    return 0


def _one_line(text: str | None, width: int = 80) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def cmd_ui(args: argparse.Namespace) -> int:
    """The inspector alone: opens the file (never creates one) with the embedder it was
    written with, and opens the browser once the port accepts connections."""
    import logging
    import threading
    import time
    import webbrowser

    from worlddb.memory.engine import RECORDED
    from worlddb.server import ServerConfig, inspector_server

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    path = existing_db(args)
    if path is None:
        return 2
    config = ServerConfig(db=path, background=False, engine_options={"embedder": RECORDED})
    token = args.token or os.environ.get("WORLDDB_TOKEN") or None
    server = inspector_server(config, host=args.host, port=args.port, token=token)

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            time.sleep(0.05)
        sockets = [s for srv in server.servers for s in srv.sockets]
        port = sockets[0].getsockname()[1] if sockets else args.port
        host = f"[{args.host}]" if ":" in args.host else args.host
        url = f"http://{host}:{port}/ui/"
        print(f"memory inspector on {url}" + (" (sign in with the token)" if token else ""), file=sys.stderr,
              flush=True)
        if not args.no_browser and not webbrowser.open(url):
            print("no browser could be opened; open the address above", file=sys.stderr, flush=True)

    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """Read and check the whole file, then write it; a JSON report of what was written."""
    import time

    from tqdm import tqdm

    from worlddb.memory import importing
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet, parse_scope_key

    if args.scope:
        default = ScopeSet((parse_scope_key(args.scope),))
    elif os.environ.get("WORLDDB_DEFAULT_USER"):
        default = ScopeSet.of(user=os.environ["WORLDDB_DEFAULT_USER"])
    else:
        default = None
    items = importing.read_items(args.file, args.format, default)
    options = {}
    if (args.embedder or os.environ.get("WORLDDB_EMBEDDER")) == "hash":
        from worlddb.vectors.embedder import HashEmbedder

        options = {"embedder": HashEmbedder(), "query_model": True}
    started = time.perf_counter()
    with Engine.open(args.db or default_db_path(), **options) as engine, \
            tqdm(total=importing.count(items), unit=" memories", file=sys.stderr, desc="import") as bar:
        report = engine.import_memories(items, batch=args.batch, progress=bar.update, judge=args.judge)
    seconds = time.perf_counter() - started
    written = report.memories + report.turns
    print(json.dumps({"file": args.file, "format": args.format, "memories": report.memories, "turns": report.turns,
                      "sessions": report.sessions, "transactions": report.transactions,
                      "superseded": report.superseded, "duplicates": report.duplicates,
                      "seconds": round(seconds, 2), "per_second": round(written / seconds, 1) if seconds else None}))
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    """A snapshot of the store into DEST (worlddb.core.copy), verified there unless
    --no-verify; a JSON report of the rows copied and the verification."""
    from tqdm import tqdm

    from worlddb.core.copy import copy_store
    from worlddb.graph.database import WorldDB

    path = existing_db(args)
    if path is None:
        return 2
    with tqdm(unit=" rows", file=sys.stderr, desc="copy") as bar:
        report = copy_store(path, args.destination, progress=bar.update, total=lambda count: bar.reset(total=count))
    summary = report.summary()
    verified = None
    if not args.no_verify:
        with WorldDB.open(args.destination) as db:
            verified = db.verify()
        summary["verify"] = verified.summary()
    print(json.dumps(summary))
    return 0 if verified is None or verified.ok else 1


def cmd_export(args: argparse.Namespace) -> int:
    """JSON lines of what the scopes remember (worlddb.memory.exporting) to --out or stdout;
    a count on stderr. A file is written whole or not at all."""
    import tempfile

    from worlddb.memory.engine import RECORDED, Engine
    from worlddb.memory.scopes import ScopeSet, parse_scope_key

    path = existing_db(args)
    if path is None:
        return 2
    with Engine.open(path, embedder=RECORDED) as engine:
        scopes = ScopeSet(tuple(parse_scope_key(key) for key in args.scopes)) if args.scopes else engine.all_scopes()
        for kind, sid in scopes:
            if engine.store.scope_anchor(kind, sid) is None:
                raise NotFound(f"no scope {kind}:{sid} in {engine.store.label}")
        lines = engine.export_memories(scopes) if scopes else iter(())
        if args.out == "-":
            counts = _write_lines(lines, sys.stdout)
        else:
            target = Path(args.out)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent or ".", delete=False,
                                             prefix=f".{target.name}.", suffix=".part") as out:
                try:
                    counts = _write_lines(lines, out)
                except BaseException:
                    out.close()
                    Path(out.name).unlink(missing_ok=True)
                    raise
            Path(out.name).replace(target)
    memories, sessions, turns = counts
    print(f"exported {memories} memories and {sessions} conversation runs ({turns} turns) from "
          f"{len(scopes)} scope{'s' if len(scopes) != 1 else ''}", file=sys.stderr)
    return 0


def _write_lines(lines, out) -> tuple[int, int, int]:
    memories = sessions = turns = 0
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
        if "messages" in line:
            sessions += 1
            turns += len(line["messages"])
        else:
            memories += 1
    return memories, sessions, turns


IDENTITY = {"pending": identity_pending, "accept": identity_decide, "reject": identity_decide,
            "show": identity_show, "export": identity_export}

def cmd_auth(args: argparse.Namespace) -> int:
    """add-token, list, revoke: the principals kept in the file (worlddb.memory.principals)."""
    from worlddb.core.store import Store
    from worlddb.memory import principals

    if args.auth_command == "add-token":
        path = args.db or default_db_path()  # the first token may come before the first serve
    else:
        path = existing_db(args)
        if path is None:
            return 2
    store = Store.open(path)
    try:
        if args.auth_command == "add-token":
            token = principals.add_token(store, args.name, args.scopes, admin=args.admin)
            granted = principals.authenticate(store, token)
            admin = " (admin)" if args.admin else ""
            print(f"principal {args.name} in {store.label}: {', '.join(granted.grants)}{admin}")
            print("its token follows; it is shown only this once (only a hash of it is stored):")
            print(token)
        elif args.auth_command == "list":
            for info in principals.list_principals(store):
                status = f"revoked {info.revoked_at}" if info.revoked_at else "active"
                print(f"{info.name}\t{' '.join(info.grants)}\t{'admin' if info.admin else '-'}\t"
                      f"created {info.created_at}\t{status}")
        else:
            principals.revoke(store, args.name)
            print(f"revoked {args.name}")
    finally:
        store.close()
    return 0


COMMANDS = {"reembed": cmd_reembed, "serve": cmd_serve, "verify": cmd_verify, "consolidate": cmd_consolidate,
            "identity": cmd_identity, "ui": cmd_ui, "auth": cmd_auth, "import": cmd_import,
            "backfill-claims": cmd_backfill_claims, "copy": cmd_copy,
            "export": cmd_export}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (WorldDBError, BaseExceptionGroup) as exc:
        error = engine_error(exc)
        if error is None:
            raise
        command = " ".join(filter(None, (args.command, getattr(args, "action", None))))
        print(f"worlddb {command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
