"""Persistent records: SQLite by default."""

from .sqlite import VerdictStore, verdict_from_dict, verdict_to_dict

__all__ = ["VerdictStore", "verdict_from_dict", "verdict_to_dict"]
