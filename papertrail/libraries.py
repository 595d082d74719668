"""A library's name on disk: the folders that belong to one database (its
vector index, its embedded broker) are named after it, so that two libraries
in one checkout never read each other's files or take each other's tasks."""

from __future__ import annotations

import re
from pathlib import Path


def library_slug(database_name: object) -> str:
    """The database's name (an SQLite file's name, a PostgreSQL database's) as a folder name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", Path(str(database_name)).name) or "default"


def file_broker_options(var_dir: Path, database_name: object, *, poll_seconds: float) -> dict[str, object]:
    """kombu's file-system transport in the library's own folders (made here).
    The worker lists the folder every `poll_seconds` while it is idle, so a
    task waits at most that long (docs/configuration.md has the cost)."""
    root = Path(var_dir) / "celery-broker" / library_slug(database_name)
    for folder in ("in", "processed", "control"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(root / "in"),
        "data_folder_out": str(root / "in"),
        "processed_folder": str(root / "processed"),
        "control_folder": str(root / "control"),
        "store_processed": False,
        "polling_interval": poll_seconds,
    }
