"""Writing results, shared by every stage that writes them: atomic files, the operating
system's errors turned into messages, and the comparison of what a folder was made from with
what is asked now.

A file is complete or absent: it is written to a temporary file beside its target and renamed
over it (``os.replace`` is atomic on POSIX), so a run killed at any moment leaves no partial
result, and a resumed run can trust every file it finds.

An error of the operating system that the user can fix -- a read-only file system, no
permission, no space left, a file-size limit, too many open files -- is an
:class:`~textsift.errors.OutputError` naming the path and the fix (:func:`os_error`), not a
traceback; the temporary file is removed, so nothing is half-written.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from .errors import OutputError, TextsiftError

__all__ = ["FIXABLE", "atomic_write", "atomic_write_text", "check_out_dir", "differences",
           "os_error", "write_npz"]

_AGAIN = "then run the command again"  # `run` adds its --resume (cli/experiment.py)
#: errno -> (what happened, what to do), for the errors a user can fix.
FIXABLE = {
    errno.EROFS: ("the file system is read-only",
                  "write the output to a folder on a writable file system"),
    errno.EACCES: ("permission denied",
                   "write the output to a folder you may write to, or change its permissions "
                   "(chmod u+w)"),
    errno.EPERM: ("operation not permitted",
                  "write the output to a folder you may write to, or change its permissions "
                  "(chmod u+w)"),
    errno.ENOSPC: ("no space left on the device", f"free some space or write the output to "
                   f"another device, {_AGAIN}"),
    errno.EDQUOT: ("the disk quota is exceeded", f"free some space or write the output "
                   f"elsewhere, {_AGAIN}"),
    errno.EFBIG: ("the file is too large for this process's file-size limit",
                  f"raise the limit (ulimit -f unlimited) or write less, {_AGAIN}"),
    errno.EMFILE: ("too many open files for this process",
                   "raise the limit (ulimit -n 4096) or use fewer workers (--n-jobs)"),
    errno.ENFILE: ("the system's table of open files is full",
                   "close other programs or raise the system's limit (fs.file-max)"),
}


def _limit(name: str) -> str:
    import resource  # POSIX

    soft, _ = resource.getrlimit(getattr(resource, name))
    return "unlimited" if soft == resource.RLIM_INFINITY else f"{soft:,}"


def os_error(exc: OSError, path=None) -> OutputError | None:
    """The :class:`~textsift.errors.OutputError` for ``exc`` if its error is one a user can
    fix (:data:`FIXABLE`), naming ``path`` (default: the file the error names) and the fix;
    ``None`` for any other error."""
    if exc.errno not in FIXABLE:
        return None
    what, fix = FIXABLE[exc.errno]
    path = path if path is not None else exc.filename
    if exc.errno == errno.EFBIG:
        what += f" ({_limit('RLIMIT_FSIZE')} bytes: ulimit -f)"
    elif exc.errno == errno.EMFILE:
        what += f" ({_limit('RLIMIT_NOFILE')}: ulimit -n)"
    elif exc.errno == errno.ENOSPC and path is not None:
        free = _free(Path(path))
        what += "" if free is None else f" ({free / 2**20:,.1f} MiB free)"
    if exc.errno in (errno.EMFILE, errno.ENFILE):
        path = None  # the process's or the system's limit, whichever file hit it
    where = f"{path}: " if path is not None else ""
    return OutputError(f"{where}{what}; {fix}", exc.errno)


def _free(path: Path) -> int | None:
    for p in (path, *path.parents):
        try:
            return shutil.disk_usage(p).free
        except OSError:
            continue
    return None


def atomic_write(path, write, check=None) -> None:
    """Call ``write(file_object)`` (a binary file) on a temporary file beside ``path``, then
    rename it over ``path``: readers see the old file or the new one, never a partial one.
    An error the user can fix (:func:`os_error`) is an :class:`~textsift.errors.OutputError`
    naming ``path``. ``check()``, if given, is called before anything is written and again
    just before the rename, and the folder of ``path`` must exist (it is not made): what
    ``check`` raises leaves the folder as it was (a worker checks that its run still holds
    the folder: ``textsift._lock.check_held``; a folder removed meanwhile stays removed)."""
    path = Path(path)
    tmp = None
    try:
        if check is not None:
            check()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600 files; results are meant to be shared
        if check is not None:
            check()
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        error = os_error(exc, path) if isinstance(exc, OSError) else None
        if error is not None:
            raise error from None
        raise


def atomic_write_text(path, text: str, check=None) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (``check``: as :func:`atomic_write`)."""
    atomic_write(path, lambda fh: fh.write(text.encode("utf-8")), check)


def write_npz(path, arrays: dict) -> None:
    """Write ``arrays`` to ``path`` atomically as an uncompressed ``.npz`` (what
    :func:`numpy.savez` writes; :func:`numpy.load` reads it). Written here rather than with
    ``np.savez`` because that leaves its ``ZipFile`` open when a write fails (a full disk, a
    file-size limit): its ``__del__`` then writes to the closed file, "Exception ignored in
    ZipFile.__del__", long after the error."""
    import numpy as np  # here: the locks (textsift._lock) use this module at start-up

    def write(fh):
        with zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED,
                             allowZip64=True) as zf:
            for name, value in arrays.items():
                with zf.open(f"{name}.npy", mode="w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(value), allow_pickle=False)

    atomic_write(path, write)


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


def _short(value, width: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """``"key: old -> new"`` for every key whose value differs between two records (nested
    tables by dotted keys, ``(none)`` for a key one of them lacks), in key order: how a
    folder says what changed since it was written."""
    out = []
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key, _NONE), new.get(key, _NONE)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{key}.")
        elif a != b:
            out.append(f"{prefix}{key}: {_short(a)} -> {_short(b)}")
    return out


class _None:
    def __repr__(self) -> str:
        return "(none)"


_NONE = _None()
