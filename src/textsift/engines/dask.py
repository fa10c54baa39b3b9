"""The exact counting of :mod:`textsift.engines.stream` as a Dask computation.

The source is cut into partitions (:func:`~textsift.engines.readers.file_parts`: one per file,
one per Parquet row group; any picklable callable returning chunks will do). A task per
partition, or per batch of consecutive partitions when there are more than
``MAX_TASKS`` (256) (``Client.map``), runs the two exact passes where the workers are:

1. each partition streams its chunks into :class:`~textsift.engines.stream.DocumentFrequencies`;
   the tables are added by a tree of merge tasks on the cluster (``split_every`` at a time, as
   the partitions finish: no partition's table is kept once merged) and the client prunes the
   vocabulary exactly as ``CountVectorizer`` does;
2. the vocabulary goes to the workers once (``Client.scatter``); each partition counts its
   chunks against it (``Counts.from_matrix`` per chunk) and the partition counts are added by a
   second tree.

The client learns of each task as it finishes, so a caller can watch both passes
(``progress``: the command line draws a bar over the partitions), and Ctrl-C stops the run
at once, quietly: the local workers block SIGINT (:func:`cluster_client`), and this process
raises ``KeyboardInterrupt`` where it waits for them (:func:`count_dask`), or as the cluster
starts.

Counts are integers, so the result equals the in-memory counts whatever the partitioning and
the order of the sums. An empty partition contributes nothing; a partition that meets a new
label grows the class axis (``Counts.__add__``).

The workers must be able to open the files (a shared filesystem, or the same paths on every
machine). :func:`joblib_on_cluster` runs any joblib work (AdaBag bootstraps, harness trials) on
the same cluster through joblib's Dask backend.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import reduce

from ..counting.counts import Counts
from ..errors import OutputError, TextsiftError
from ..labels import LabelForms, LabelTypes, label_type_of
from ..reading.corpus import no_text
from ..text.vectorize import VectorizerOptions
from .stream import (
    DocumentFrequencies,
    Progress,
    count_chunks,
    empty_corpus,
    fixed_vectorizer,
    frequencies,
)

__all__ = ["check_open_files", "cluster_client", "connect", "count_dask", "joblib_on_cluster"]

#: Seconds to wait for a scheduler to answer before giving up.
CONNECT_TIMEOUT = 10


def check_address(scheduler: str) -> str:
    """A scheduler address as ``distributed`` parses it (``tcp://HOST:PORT``; ``HOST:PORT``
    means tcp), checked before any connection is tried: a ``Client`` built on a malformed
    address fails, then spends 20 s closing itself and prints a traceback at exit."""
    from distributed.comm.addressing import get_address_host_port, parse_address

    try:
        parse_address(scheduler)
        if not scheduler.startswith(("inproc://", "ucx://")):
            get_address_host_port(scheduler)
    except (ValueError, TypeError) as exc:
        raise TextsiftError(f"{scheduler!r} is not a Dask scheduler address ({exc}); write it "
                            "as tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786") from None
    return scheduler


def connect(scheduler: str, timeout: float = CONNECT_TIMEOUT):
    """A ``distributed.Client`` on the scheduler at ``scheduler`` (``tcp://host:8786``).

    A malformed address, or a scheduler that does not answer within ``timeout`` seconds, is a
    :class:`~textsift.errors.TextsiftError` saying what to check.
    """
    from distributed import Client

    check_address(scheduler)
    try:
        return Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise TextsiftError(
            f"no Dask scheduler answered at {scheduler} within {timeout:g} s ({exc}). Check the "
            "address and port, that `dask scheduler` runs there and that the port is reachable, "
            "or leave out --scheduler to start a local cluster"
        ) from None


@contextmanager
def cluster_client(scheduler: str | None = None, timeout: float = CONNECT_TIMEOUT,
                   n_workers: int | None = None, processes: bool = True) -> Iterator:
    """A client on ``scheduler``, or on a ``LocalCluster`` of ``n_workers`` single-threaded
    workers (default: one per core) started for the ``with`` block and closed after it."""
    if scheduler is not None:
        client = connect(scheduler, timeout)
        try:
            yield client
        finally:
            client.close()
        return
    from distributed import Client, LocalCluster
    from distributed.deploy.spec import SpecCluster

    n_workers = n_workers or os.cpu_count() or 1
    check_open_files(n_workers)
    # silence_logs: a task failing on bad input is reported once, by the client, as the
    # TextsiftError it is -- not also as the workers' "Compute Failed" tracebacks (nor, for
    # an error of the machine, as distributed's CRITICAL ones: the error says it). No
    # dashboard; the scheduler's own HTTP routes on a free local port (by default they take
    # 8787, and a second cluster on the machine warns that it is in use)
    with _quiet_workers() as loop:  # Ctrl-C stops this process, which stops them
        known = set(SpecCluster._instances)
        try:
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                   processes=processes, dashboard_address=None,
                                   silence_logs=logging.CRITICAL + 1, loop=loop,
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
        except KeyboardInterrupt:
            _abandon(set(SpecCluster._instances) - known)
            raise
        with cluster, Client(cluster, set_as_default=False) as client, _files_error():
            yield client


#: Open files a local cluster takes in this process, and each of its workers (measured: 43
#: with two workers on Linux), with room to spare.
FILES_PER_CLUSTER, FILES_PER_WORKER = 16, 16


def check_open_files(n_workers: int) -> None:
    """Refuse at once a limit of open files (``ulimit -n``) too low for a local cluster of
    ``n_workers``: it fails half-way otherwise, in a hundred lines of distributed's
    tracebacks ("Nanny failed to start", "Could not serialize")."""
    import errno
    import resource  # POSIX

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = FILES_PER_CLUSTER + FILES_PER_WORKER * n_workers
    if soft != resource.RLIM_INFINITY and soft < needed:
        raise OutputError(f"too many open files for this process ({soft:,}: ulimit -n): a "
                          f"local Dask cluster of {n_workers} workers needs about {needed}; "
                          "raise the limit (ulimit -n 4096), or count with the stream engine "
                          "(--engine stream)", errno.EMFILE)


@contextmanager
def _files_error() -> Iterator[None]:
    """An error whose cause, however deep, is too many open files (distributed wraps it: a
    ``TypeError`` "Could not serialize", a ``RuntimeError`` "Nanny failed to start") is the
    one error naming the limit (``textsift._io.os_error``)."""
    import errno

    from .._io import os_error

    try:
        yield
    except Exception as exc:
        cause = exc
        while cause is not None and not (isinstance(cause, OSError) and cause.errno in (
                errno.EMFILE, errno.ENFILE)):
            cause = cause.__cause__ or cause.__context__
        if cause is None:
            raise
        raise os_error(cause) from None


def _abandon(clusters) -> None:
    """Leave ``clusters``, interrupted as they started, to end with this process (their
    workers watch it; those still starting are killed now): closed at exit they would fail
    on the workers not started yet, and their start tasks, failing as this process ends,
    would be logged as never retrieved -- tracebacks after the one line a Ctrl-C gets."""
    import multiprocessing

    for cluster in clusters:
        cluster.shutdown_on_close = False
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    # a worker process still starting reads its state from this one (a semaphore among it):
    # after this process ends it would fail and print a traceback, so it ends here, killed
    # (SIGKILL: no handler, nothing printed); the started ones end with this process
    for child in multiprocessing.active_children():
        child.kill()


@contextmanager
def _quiet_workers() -> Iterator:
    """Yield the event loop a local cluster is to run on: a loop thread started with SIGINT
    *blocked*, so that the worker processes it starts inherit the blocked signal (a blocked
    signal stays blocked across ``exec``; a Python handler would not survive it). Ctrl-C in a
    terminal signals every process of the foreground group: the workers never see it (they
    used to stop with a ``KeyboardInterrupt`` traceback each, dozens of lines), and this
    process's main thread, which keeps SIGINT, raises ``KeyboardInterrupt`` at once -- also
    while the cluster starts, when a Ctrl-C used to be ignored (the signal was ignored
    process-wide then, so that the workers would inherit that). The cluster's processes end
    with this one. The multiprocessing resource tracker is started first: started from the
    loop thread, it would unblock SIGINT there once it is running (it blocks and then
    *unblocks* SIGINT around its own start). Where signals cannot be masked (not POSIX) or
    outside the main thread, distributed's own loop is used and nothing changes."""
    import signal
    import threading
    from multiprocessing import resource_tracker

    from distributed.utils import LoopRunner

    if (threading.current_thread() is not threading.main_thread()
            or not hasattr(signal, "pthread_sigmask")):
        yield None
        return
    resource_tracker.ensure_running()  # now: started later, it would unblock SIGINT
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        runner = LoopRunner(asynchronous=False)
        runner.start()  # its thread, and the threads and processes it starts, block SIGINT
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    try:
        yield runner.loop
    finally:
        runner.stop()


# ------------------------------------------------------------------ per-partition work
def _pass1(parts, opts):
    """Frequencies, skipped lines, label types and whether a text is not empty, of a batch
    of partitions."""
    freq, bad, types, text, forms = DocumentFrequencies(), [], [], [False], LabelForms()
    for part in parts:
        freq.update(frequencies(_noting_type(part(bad), types, part, text, forms), opts))
    return freq, bad, types, text[0], forms


def _noting_type(chunks, types: list, part, text: list, forms: LabelForms):
    """The chunks, noting the label type of the first one as ``(type, where)`` in ``types``,
    in ``text[0]`` whether a text holds more than white space, and the spellings of the
    partition's labels in ``forms``."""
    seen = None
    for chunk in chunks:
        if not types or types[-1][1] != str(getattr(part, "path", part)):
            types.append((label_type_of(chunk.labels), str(getattr(part, "path", part))))
        text[0] = text[0] or any(t.strip() for t in chunk.texts)
        seen = getattr(chunk, "forms", None) or seen
        yield chunk
    if seen is not None:  # the partition's reader noted every chunk's labels in one object
        forms.update(seen)


def _merge_pass1(results):
    freq, bad, types, text, forms = DocumentFrequencies(), [], [], False, LabelForms()
    for f, b, t, x, s in results:
        freq.update(f)
        bad.extend(b)
        types.extend(t)
        text = text or x
        forms.update(s)
    return freq, bad, types, text, forms


def _pass2(parts, names, opts, classes):
    """The counts of a batch of partitions (``None`` when they hold no document)."""
    vec = fixed_vectorizer(names, opts)
    return _add_counts([count_chunks(part(), vec, names, classes) for part in parts])


def _add_counts(items):
    """Sum of the counts among ``items``, ``None`` for empty partitions."""
    items = [c for c in items if c is not None]
    return reduce(Counts.__add__, items) if items else None


#: What :func:`count_dask` tells ``progress`` it is doing, pass by pass.
PASSES = ("pass 1 of 2: document frequencies", "pass 2 of 2: counts")


def count_dask(parts: list[Callable], opts: VectorizerOptions | None = None, client=None,
               classes=None, split_every: int = 8, bad_lines: list | None = None,
               progress: Progress | None = None, source=None) -> Counts:
    """Exact counts of the partitions ``parts`` on the Dask cluster of ``client`` (module
    docstring); equal to the in-memory counts of all their documents. Without a ``client``,
    on a local cluster started for the call (:func:`cluster_client`).

    ``parts`` are picklable callables; ``part(bad_lines)`` (pass 1) and ``part()`` (pass 2)
    return an iterable of chunks. Lines skipped in pass 1 are appended to ``bad_lines``.
    ``progress(stage, done, total)``, when given, is called as partitions finish: ``stage``
    one of ``PASSES``, ``done`` of ``total`` partitions (the library draws nothing).
    Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` at the next check, within
    ``POLL_SECONDS`` (0.05 s), and releases the tasks. ``source`` names the corpus in the
    warning about labels written in two Unicode forms (:class:`~textsift.labels.LabelForms`).
    """
    if not parts:
        raise empty_corpus()
    if split_every < 2:
        raise TextsiftError(f"split_every must be at least 2, got {split_every}")
    if client is None:
        with cluster_client() as c:
            return count_dask(parts, opts, c, classes, split_every, bad_lines, progress,
                              source)
    batches = _batches(parts, MAX_TASKS)
    with _interrupt_deferred() as interrupted:
        freq, bad, types, text, forms = _tree(
            client, client.map(_pass1, batches, opts=opts, pure=False), batches,
            _merge_pass1, split_every, progress, PASSES[0], interrupted)
        if bad_lines is not None:
            bad_lines.extend(bad)
        if freq.n_docs == 0:
            raise empty_corpus()
        if not text:
            raise no_text(None, getattr(parts[0], "kw", {}).get("text_field", "text"))
        labels = LabelTypes(getattr(parts[0], "kw", {}).get("label_field", "label"))
        for kind, where in types:  # the partitions' label types agree, or the sums would fail
            labels.note(kind, where)
        forms.warn(source)  # a label written in two Unicode forms, in one partition or in two
        names = freq.vocabulary(opts)
        # sent to the workers once, under a key of its own: concurrent runs on one cluster
        # must not share a vocabulary
        shared = client.scatter(names, hash=False)
        return _tree(client, client.map(_pass2, batches, names=shared, opts=opts,
                                        classes=classes, pure=False),
                     batches, _add_counts, split_every, progress, PASSES[1], interrupted)


#: At most this many tasks a pass: many small files are batched, a batch of consecutive
#: partitions to a task (a task costs the scheduler milliseconds; a small file's count, less).
MAX_TASKS = 256

#: How often (seconds) :func:`count_dask` looks for a Ctrl-C while it waits.
POLL_SECONDS = 0.05


def _batches(parts: list, max_tasks: int) -> list[list]:
    """``parts`` cut into at most ``max_tasks`` runs of consecutive partitions, of sizes
    differing by at most one."""
    n = min(len(parts), max_tasks)
    size, extra = divmod(len(parts), n)
    bounds = [i * size + min(i, extra) for i in range(n + 1)]
    return [parts[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _tree(client, leaves: list, batches: list[list], merge, split_every: int, progress,
          stage: str, interrupted: Callable[[], bool]):
    """The result of ``leaves`` (futures, one per batch of partitions) merged by a tree of
    ``merge`` tasks on the cluster, ``split_every`` at a time, as they finish;
    ``progress(stage, partitions done, partitions)`` as leaves finish. A leaf's error is
    raised as soon as it is known, a Ctrl-C (``interrupted()``) as soon as it is seen; the
    other tasks are then released."""
    from distributed import as_completed

    level = leaves
    while len(level) > 1:
        level = [client.submit(merge, level[i:i + split_every], pure=False)
                 for i in range(0, len(level), split_every)]
    root = level[0]
    size = {leaf.key: len(batch) for leaf, batch in zip(leaves, batches, strict=True)}
    finished = as_completed(leaves if root.key in size else [*leaves, root], loop=client.loop)
    del leaves, level  # each leaf's result is freed once merged
    total, done = sum(size.values()), 0
    if progress is not None:
        progress(stage, 0, total)
    while not finished.is_empty():
        if interrupted():
            raise KeyboardInterrupt
        ready = finished.next_batch(block=False)
        if not ready:
            time.sleep(POLL_SECONDS)
            continue
        before = done
        for future in ready:
            if future.status == "error":
                future.result()  # raises the task's own error (a TextsiftError for bad input)
            done += size.pop(future.key, 0)
        if progress is not None and done > before:
            progress(stage, done, total)
    return root.result()


@contextmanager
def _interrupt_deferred() -> Iterator[Callable[[], bool]]:
    """Yield ``interrupted()``: whether Ctrl-C (SIGINT) came during the block, which then
    raises nothing by itself -- :func:`_tree` raises ``KeyboardInterrupt`` where it waits.
    Raised wherever the signal lands, the ``KeyboardInterrupt`` may land in a finalizer
    (``distributed``'s ``Future.__del__``), where Python prints it as "Exception ignored"
    and the run goes on to the end. Only Python's own handler is replaced, and only in the
    main thread; elsewhere ``interrupted()`` is always false and Ctrl-C is as it was."""
    import signal
    import threading

    seen: list[int] = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield lambda: False
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        yield lambda: bool(seen)
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def joblib_on_cluster(scheduler: str | None = None, client=None,
                      timeout: float = CONNECT_TIMEOUT, **local) -> Iterator:
    """Run the ``joblib.Parallel`` work inside the ``with`` block on a Dask cluster.

    The cluster is joblib's ``"dask"`` backend over the given ``client``, the scheduler at
    ``scheduler``, or a local cluster (``local`` are :func:`cluster_client` options). Yields
    the client::

        with joblib_on_cluster("tcp://10.0.0.5:8786"):
            model.fit(X, y)          # e.g. AdaBag bootstraps dispatched with joblib
    """
    import joblib

    ctx = nullcontext(client) if client is not None else cluster_client(scheduler, timeout, **local)
    with ctx as c, c.as_current(), joblib.parallel_config(backend="dask"):
        yield c
