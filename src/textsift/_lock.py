"""One writer per output: an advisory lock that a command holds on its output folder (or page)
for as long as it writes there.

The lock is ``fcntl.flock`` on a lock file -- ``DIR/.textsift.lock`` for a folder,
``.NAME.lock`` beside a single file -- holding one line of JSON about its holder (pid, host,
start time). A second process that asks for it is refused at once with an
:class:`~textsift.errors.OutputError` naming the holder. The kernel releases a ``flock`` when
its process ends, however it ends, so a lock file left by a killed run is free: the next run
takes it over and says so. The holder removes the lock file when it is done (and the folder,
if it created it and nothing else was written there: a command refused for bad input leaves
``--out`` as it found it).

Creating the folder and writing the lock file is also the check that the output can be
written at all, before any work: a read-only file system, a folder without permission or a
full disk is one error naming the path (:func:`textsift._io.os_error`).

The lock is re-entrant within a process (the command line holds it for the whole command,
and :func:`~textsift.experiment.run_experiment` takes it again), and is advisory: it keeps
textsift runs apart, not other programs.

The worker processes of a run (joblib's) do not hold the lock: they write for the process
that does. Each checks, before it writes a result, that its owner still holds the lock
(:func:`check_held`: the lock file is there, locked, and names the owner), and ends itself
when its owner has ended (:func:`end_with`, from its start) -- a run killed with ``kill
-TERM`` or ``kill -KILL`` leaves no worker behind that writes into a folder it no longer
holds. Written with the standard library: ``flock`` is all it needs (the ``filelock``
package adds nothing here but a dependency).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ._io import check_out_dir, os_error
from .errors import OutputError

try:
    import fcntl
except ImportError:  # pragma: no cover (not POSIX: nothing to lock with)
    fcntl = None

__all__ = ["LOCK_NAME", "check_held", "end_with", "hold", "lock_path", "parallel"]

#: The lock file of an output folder.
LOCK_NAME = ".textsift.lock"
_HELD: dict[str, int] = {}  # lock files this process holds -> depth
_WATCHED: set[int] = set()  # owners whose end this process watches for (end_with)


def lock_path(target, folder: bool = True) -> Path:
    """The lock file of an output folder, or of a single output file."""
    target = Path(target)
    return target / LOCK_NAME if folder else target.with_name(f".{target.name}.lock")


def _when(started: float) -> str:
    ago = max(0, int(time.time() - started))
    span = f"{ago} s" if ago < 120 else f"{ago // 60} min" if ago < 7200 else f"{ago // 3600} h"
    return f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(started))}, {span} ago"


def _holder(info: dict) -> str:
    if not info.get("pid"):
        return "another process (it has not said which yet)"
    text = f"pid {info['pid']}"
    if info.get("host") and info["host"] != socket.gethostname():
        text += f" on {info['host']}"
    if info.get("started"):
        text += f", started {_when(info['started'])}"
    return text


def _read(fd: int) -> dict:
    try:
        raw = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        info = json.loads(raw) if raw.strip() else {}
        return info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def hold(target, *, folder: bool = True, create: bool = True,
         note: Callable[[str], None] | None = None, what: str = "--out") -> Iterator[None]:
    """Hold the lock of ``target`` (an output folder, or with ``folder=False`` a single output
    file) for the ``with`` block.

    The folder (the file's folder) is created if it does not exist -- and removed again at
    the end if nothing but the lock was written to it; with ``create=False`` a missing
    folder is not made and nothing is locked (the command will say it is missing). A lock
    held by another process is an :class:`~textsift.errors.OutputError` naming its pid and
    start time; a lock left by a process that has ended is taken over, with ``note``
    saying so."""
    target = Path(target)
    home = target if folder else target.parent
    path = lock_path(target, folder)
    key = str(path.absolute())
    if key in _HELD:  # this process holds it already
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    if not create and not home.is_dir():
        yield
        return
    check_out_dir(home, what if folder else f"{what}'s folder")
    made = [p for p in (home, *home.parents) if not p.exists()]  # deepest first
    try:
        home.mkdir(parents=True, exist_ok=True)
        fd = _acquire(path, what, target, note)
    except OSError as exc:
        _remove_empty(made)
        error = os_error(exc, home if exc.filename in (None, str(path)) else exc.filename)
        if error is None:
            raise
        raise error from None
    except BaseException:
        _remove_empty(made)
        raise
    _HELD[key] = 1
    try:
        yield
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):
            path.unlink()  # while still holding it: a process that opens it later retries
        os.close(fd)
        _remove_empty(made)


def _acquire(path: Path, what: str, target: Path, note) -> int:
    """Open, lock and fill in the lock file; return its descriptor."""
    for _ in range(20):  # the file may be removed by its holder between open and flock
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            if fcntl is None:
                raise OSError(errno.ENOSYS, "no flock on this platform")
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            info = _read(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise OutputError(
                    f"{what} {target} is in use by another textsift run ({_holder(info)}); "
                    f"wait for it to finish, or choose another "
                    f"{what.removeprefix('the ')}") from None
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                if note is not None:
                    note(f"{target}: files cannot be locked here, so nothing keeps a second "
                         "run out of it")
                return _fill(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644))
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # locked a file its holder removed as it finished: open it anew
            os.close(fd)
            continue
        old = _read(fd)
        if old and note is not None:
            note(f"{target} was locked by a textsift run that has ended without releasing it "
                 f"({_holder(old)}); taking the lock over")
        try:
            return _fill(fd)
        except BaseException:
            path.unlink(missing_ok=True)  # ours: nothing half-written
            os.close(fd)
            raise
    raise OutputError(f"{what} {target}: could not take its lock ({path}); try again")


def _fill(fd: int) -> int:
    """Write the holder's pid, host and start time into the lock file (which checks that the
    folder can be written to, a byte more than creating a file: a full disk fails here)."""
    info = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                       "started": time.time()}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, info + b"\n", 0)
    os.fsync(fd)
    return fd


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:  # deepest first
        try:
            folder.rmdir()
        except OSError:
            return


def check_held(target, owner: int, folder: bool = True) -> None:
    """Check that the process ``owner`` holds the lock of ``target`` -- what a worker does
    before it writes a result there for its owner: the lock file exists, is locked by some
    process, and names ``owner``. Otherwise an :class:`~textsift.errors.OutputError` (the
    result is not written): the folder was removed or taken over, or the owner has ended.
    Where files cannot be locked, the file's pid alone is checked."""
    path = lock_path(target, folder)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise OutputError(f"{target}: its lock ({path.name}) is gone, so the run that wrote "
                          "there no longer holds it (was the folder removed?); nothing more is "
                          "written there. Run the command again") from None
    free = False
    try:
        info = _read(fd)
        if fcntl is not None:
            try:  # a shared lock is granted only if no process holds the exclusive one
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                free = True
            except OSError as exc:  # held (or, where nothing can be locked, the pid decides)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.ENOLCK,
                                     errno.EOPNOTSUPP, errno.ENOSYS):
                    raise
    finally:
        os.close(fd)  # (releases the shared lock, if it was granted)
    if free or info.get("pid") != owner:
        raise OutputError(f"{target} is no longer held by the run (pid {owner}) this worker "
                          f"writes for (now: {_holder(info) if not free else 'nobody'}); "
                          "nothing more is written there")


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie, ended but not yet reaped, counts as
    ended where ``/proc`` tells)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: it exists
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] != "Z"


def end_with(owner: int, interval: float = 0.2) -> None:
    """End this process (``os._exit``) within ``interval`` seconds of the end of ``owner``,
    its parent: a worker process of a run dies with the run, however the run ended (``kill
    -KILL`` included, which no handler sees). Called as the worker starts (joblib's
    ``initializer``), before it takes any work. Does nothing in ``owner`` itself, nor in a
    process that ``owner`` did not start while ``owner`` lives (a Dask worker); a worker whose
    parent ``owner`` ended while it was starting (killed before the worker got here: its
    parent is no longer ``owner``, and ``owner`` is gone) ends at once. A daemon thread polls
    ``os.getppid()`` (which changes when the parent ends), once per process."""
    if owner == os.getpid() or owner in _WATCHED:
        return
    if os.getppid() != owner:
        if not _running(owner):
            os._exit(1)
        return
    _WATCHED.add(owner)

    def watch() -> None:
        while os.getppid() == owner:
            time.sleep(interval)
        os._exit(1)

    import threading

    threading.Thread(target=watch, name="textsift-end-with-parent", daemon=True).start()


def parallel(n_jobs, **kwargs):
    """``joblib.Parallel(n_jobs, **kwargs)`` whose worker processes end with this process
    (:func:`end_with` as the pool's initializer): the workers of a killed command (an
    experiment's trials, AdaBag's bootstraps, the permutations of ``score --evidence``) do not
    go on computing for minutes after it. Backends without worker processes (threads, Dask)
    ignore the initializer. The workers are started with SIGINT blocked
    (:func:`_workers_block_sigint`): Ctrl-C stops this process alone, which stops them."""
    from joblib import Parallel

    _workers_block_sigint()
    _quiet_tracker()
    return Parallel(n_jobs=n_jobs, initializer=end_with, initargs=(os.getpid(),), **kwargs)


#: The warnings filter the worker processes and loky's resource tracker start with.
TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _quiet_tracker() -> None:
    """loky's resource tracker (a process of its own) warns, as it ends, of the semaphores
    of a pool whose command was interrupted ("There appear to be 1 leaked semlock objects",
    then "FileNotFoundError" for the one already gone) -- two tracebacks-like lines after
    the one line a Ctrl-C gets, about what it cleans up itself. The processes it and the
    workers start inherit this process's environment: ``PYTHONWARNINGS`` there ignores the
    warnings whose message starts with ``resource_tracker`` (added to a user's own
    filters), set before the first pool starts the tracker."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if TRACKER_QUIET not in current.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [current, TRACKER_QUIET]))


def _workers_block_sigint() -> None:
    """Start joblib's worker processes (loky's) with SIGINT *blocked*, for their whole life.

    Ctrl-C in a terminal sends SIGINT to every process of the foreground group, the workers
    included. A worker that took it stopped with a ``KeyboardInterrupt`` traceback of its own
    (while it imported, or in a task), and the pool it left broken made this process raise
    ``BrokenProcessPool`` instead of the ``KeyboardInterrupt`` that the command line turns
    into its one ``interrupted`` line. A blocked signal is inherited across ``fork`` and
    ``exec`` (a Python handler would not survive ``exec``), so loky's process spawner
    (``_adjust_process_count``, run in whichever thread starts or replaces a worker) is run
    with SIGINT blocked in that thread, and restored after: the signal that arrives meanwhile
    is delivered to this process once the spawn is done (it is pending, not lost). This
    process stops on Ctrl-C, and joblib then ends the workers (they also end with this
    process: :func:`end_with`). Wrapped once per process; reads loky's private spawner
    (pinned by joblib, which vendors loky), and where it is missing, or signals cannot be
    masked, nothing changes."""
    import signal
    from multiprocessing import resource_tracker

    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover (not POSIX)
        return
    try:
        from joblib.externals.loky.process_executor import ProcessPoolExecutor
    except ImportError:  # pragma: no cover
        return
    spawn = getattr(ProcessPoolExecutor, "_adjust_process_count", None)
    if spawn is None or getattr(spawn, "_blocks_sigint", False):
        return

    def adjust_process_count(self):
        # started inside, multiprocessing's resource tracker (which loky starts for its
        # workers) would *unblock* SIGINT in this thread once running: started first
        resource_tracker.ensure_running()
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return spawn(self)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    adjust_process_count._blocks_sigint = True
    ProcessPoolExecutor._adjust_process_count = adjust_process_count
