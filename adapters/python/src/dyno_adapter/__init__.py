"""dyno adapter for CPython: a JSON Lines worker (docs/adapter-protocol.md)."""

__version__ = "0.1.0"
