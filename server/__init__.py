"""The MCP surface of WorldDB (installed as worlddb.server): nine memory tools over stdio
and streamable HTTP, and the memory inspector web pages (worlddb.server.inspector) at /ui.

    from worlddb.server import ServerConfig, build_server
    server = build_server(ServerConfig(db="memory.db", default_user="alice"))
    server.run()                                   # stdio

`worlddb serve` is the command-line entry (worlddb.cli); `worlddb ui` serves the inspector alone.
"""

from .app import AppState, ServerConfig, WorldDBServer, build_server
from .http import BearerToken, http_app, inspector_app, inspector_server, serve_http, serve_stdio, uvicorn_server

__all__ = ["AppState", "BearerToken", "ServerConfig", "WorldDBServer", "build_server", "http_app", "inspector_app",
           "inspector_server", "serve_http", "serve_stdio", "uvicorn_server"]
