"""The MCP surface (installed as worlddb.server)."""
