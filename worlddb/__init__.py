"""WorldDB: long-term memory for AI agents in one SQLite file."""

__version__ = "0.1.0"
