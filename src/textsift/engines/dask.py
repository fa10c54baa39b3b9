"""The exact counting of :mod:`textsift.engines.stream` as a Dask computation.

The source is cut into partitions (:func:`~textsift.engines.readers.file_parts`: one per file,
one per Parquet row group; any picklable callable returning chunks will do). A ``dask.bag``
over the partitions runs the two exact passes where the workers are:

1. each partition streams its chunks into :class:`~textsift.engines.stream.DocumentFrequencies`;
   the tables are added by a tree reduction (``Bag.reduction``, ``split_every`` at a time) and
   the client prunes the vocabulary exactly as ``CountVectorizer`` does;
2. the vocabulary goes to the workers once (one shared ``Delayed``); each partition counts its
   chunks against it (``Counts.from_matrix`` per chunk) and the partition counts are added by a
   second tree reduction.

Counts are integers, so the result equals the in-memory counts whatever the partitioning and
the order of the sums. An empty partition contributes nothing; a partition that meets a new
label grows the class axis (``Counts.__add__``).

The workers must be able to open the files (a shared filesystem, or the same paths on every
machine). :func:`joblib_on_cluster` runs any joblib work (AdaBag bootstraps, harness cells) on
the same cluster through joblib's Dask backend.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial, reduce

from ..corpus import no_text
from ..counts import Counts
from ..errors import TextsiftError
from ..labels import LabelTypes, label_type_of
from ..vectorize import VectorizerOptions
from .stream import DocumentFrequencies, count_chunks, empty_corpus, fixed_vectorizer, frequencies

__all__ = ["cluster_client", "connect", "count_dask", "joblib_on_cluster"]

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

    n_workers = n_workers or os.cpu_count() or 1
    # silence_logs: a task failing on bad input is reported once, by the client, as the
    # TextsiftError it is -- not also as the workers' "Compute Failed" tracebacks
    with (LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=processes,
                       dashboard_address=None, silence_logs=logging.CRITICAL) as cluster,
          Client(cluster, set_as_default=False) as client):
        yield client


# ------------------------------------------------------------------ per-partition work
def _pass1(parts, opts):
    """Frequencies, skipped lines, label types and whether a text is not empty, of the
    partitions of one bag partition."""
    freq, bad, types, text = DocumentFrequencies(), [], [], [False]
    for part in parts:
        freq.update(frequencies(_noting_type(part(bad), types, part, text), opts))
    return freq, bad, types, text[0]


def _noting_type(chunks, types: list, part, text: list):
    """The chunks, noting the label type of the first one as ``(type, where)`` in ``types``
    and in ``text[0]`` whether a text holds more than white space."""
    for chunk in chunks:
        if not types or types[-1][1] != str(getattr(part, "path", part)):
            types.append((label_type_of(chunk.labels), str(getattr(part, "path", part))))
        text[0] = text[0] or any(t.strip() for t in chunk.texts)
        yield chunk


def _merge_pass1(results):
    freq, bad, types, text = DocumentFrequencies(), [], [], False
    for f, b, t, x in results:
        freq.update(f)
        bad.extend(b)
        types.extend(t)
        text = text or x
    return freq, bad, types, text


def _pass2(parts, names, opts, classes):
    vec = fixed_vectorizer(names, opts)
    return [count_chunks(part(), vec, names, classes) for part in parts]


def _add_counts(items):
    """Sum of the counts among ``items``, ``None`` for empty partitions."""
    items = [c for c in items if c is not None]
    return reduce(Counts.__add__, items) if items else None


def count_dask(parts: list[Callable], opts: VectorizerOptions | None = None, client=None,
               classes=None, split_every: int = 8, bad_lines: list | None = None) -> Counts:
    """Exact counts of the partitions ``parts`` on the Dask cluster of ``client`` (module
    docstring); equal to the in-memory counts of all their documents.

    ``parts`` are picklable callables; ``part(bad_lines)`` (pass 1) and ``part()`` (pass 2)
    return an iterable of chunks. Lines skipped in pass 1 are appended to ``bad_lines``.
    """
    import dask
    import dask.bag as db

    if not parts:
        raise empty_corpus()
    if split_every < 2:
        raise TextsiftError(f"split_every must be at least 2, got {split_every}")
    bag = db.from_sequence(parts, npartitions=len(parts))
    compute = client.compute if client is not None else dask.compute
    with client.as_current() if client is not None else nullcontext():
        freq, bad, types, text = _result(compute(bag.reduction(
            partial(_pass1, opts=opts), _merge_pass1, split_every=split_every)))
        if bad_lines is not None:
            bad_lines.extend(bad)
        if freq.n_docs == 0:
            raise empty_corpus()
        if not text:
            raise no_text(None, getattr(parts[0], "kw", {}).get("text_field", "text"))
        labels = LabelTypes(getattr(parts[0], "kw", {}).get("label_field", "label"))
        for kind, where in types:  # the partitions' label types agree, or the sums would fail
            labels.note(kind, where)
        names = freq.vocabulary(opts)
        # one key per call: concurrent runs on one cluster must not share a vocabulary
        shared = dask.delayed(names, name=f"textsift-vocabulary-{uuid.uuid4().hex}",
                              traverse=False)
        counted = bag.map_partitions(_pass2, shared, opts, classes)
        counts = _result(compute(counted.reduction(_add_counts, _add_counts,
                                                   split_every=split_every)))
    return counts


def _result(x):
    # client.compute returns a Future, dask.compute a 1-tuple
    return x.result() if hasattr(x, "result") else x[0]


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
