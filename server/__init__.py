"""The MCP surface of WorldDB (installed as worlddb.server): nine memory tools over stdio
and streamable HTTP, and the memory inspector web pages (worlddb.server.inspector) at /ui.

    app.py      the nine tools; the boundary where errors become tool errors, limits apply
                and calls are audited
    http.py     stdio and streamable HTTP, with Host/Origin checks
    stdio.py    the stdio pipes, read and written on the event loop (no thread per line)
    auth.py     who an HTTP caller is: the bearer token -> an Access (worlddb.memory.access)
    oauth.py    JWT access tokens from an OAuth authorization server
    limits.py   per-principal request rate and in-flight limits
    audit.py    one JSON line per tool call
    texts.py    what the calling model reads
    inspector/  the memory inspector's pages at /ui

    from worlddb.server import ServerConfig, build_server
    server = build_server(ServerConfig(db="memory.db", default_user="alice"))
    server.run()                                   # stdio

`worlddb serve` is the command-line entry (worlddb.cli); `worlddb ui` serves the inspector alone.
"""

from .app import AppState, ServerConfig, WorldDBServer, build_server
from .http import http_app, inspector_app, inspector_server, serve_http, serve_stdio, uvicorn_server
from .oauth import OAuthSettings

__all__ = ["AppState", "OAuthSettings", "ServerConfig", "WorldDBServer", "build_server", "http_app", "inspector_app",
           "inspector_server", "serve_http", "serve_stdio", "uvicorn_server"]
