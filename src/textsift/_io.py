"""Atomic file writes, shared by every stage that writes results.

A file is complete or absent: it is written to a temporary file beside its target and renamed
over it (``os.replace`` is atomic on POSIX), so a run killed at any moment leaves no partial
result, and a resumed run can trust every file it finds.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import TextsiftError

__all__ = ["atomic_write", "atomic_write_text", "check_out_dir"]


def atomic_write(path, write) -> None:
    """Call ``write(file_object)`` (a binary file) on a temporary file beside ``path``, then
    rename it over ``path``: readers see the old file or the new one, never a partial one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; results are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def check_out_dir(path, option: str = "--out") -> Path:
    """An output directory that can be used: a directory, or a path that does not exist yet
    (created when the first result is written) under a directory. Checked before any work,
    so that a file in its place is one clear error, not a traceback once results are due."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise TextsiftError(f"{option} {path} is a file, not a directory; choose a directory "
                            "(it is created if it does not exist)")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise TextsiftError(f"{option} {path}: {parent} is a file, not a directory; "
                                    "choose another path")
            break
    return path
