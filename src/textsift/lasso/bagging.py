"""Bootstrap bagging frequencies around any selector: the machinery AdaBag runs on, and
stability selection for this package's filter scores (scikit-learn removed its randomized lasso).

A bootstrap sample is a vector of integer multiplicities over the rows (resampling within each
stratum to the stratum's size), never a copied matrix. Local worker processes get the task
(its matrices) once, as a memory-mapped file, not once per bootstrap. Bootstrap ``i`` draws from
``SeedSequence(seed).spawn(B)[i]``, so results do not depend on ``n_jobs`` or on the order in
which bootstraps finish. With a ``store``, each finished bootstrap is written atomically to
``DIR/<i>.npz`` and a rerun only computes the missing ones.

The bagging frequency of feature ``j`` is ``f(j) = #{i : j in S_i}`` (the AdaBag paper's
algorithm, step 3).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

import joblib
import numpy as np
import scipy.sparse as sp
from joblib import delayed, effective_n_jobs
from joblib.parallel import get_active_backend
from threadpoolctl import threadpool_limits

from .._io import atomic_write_text, differences, write_npz
from .._lock import parallel
from ..errors import TextsiftError

__all__ = ["BootstrapStore", "bagging_frequencies", "run_bootstraps", "stability_selection",
           "start_workers", "stop_workers", "stratified_bootstrap"]


def stratified_bootstrap(strata, rng) -> np.ndarray:
    """Multiplicities (n,) of a bootstrap that resamples each stratum to its own size."""
    strata = np.asarray(strata)
    counts = np.zeros(len(strata), dtype=np.int64)
    for s in np.unique(strata):
        rows = np.flatnonzero(strata == s)
        counts += np.bincount(rows[rng.integers(0, len(rows), len(rows))], minlength=len(strata))
    return counts


def bagging_frequencies(selections, n_features: int) -> np.ndarray:
    """``f(j)``: in how many of the selections feature ``j`` occurs."""
    f = np.zeros(n_features, dtype=np.int64)
    for s in selections:
        f[np.unique(np.asarray(s, dtype=np.intp))] += 1
    return f


class BootstrapStore:
    """A folder of finished bootstraps, tied to one configuration by a fingerprint.

    Reusing a folder with another configuration is an error (naming what differs), so a
    resumed run never mixes bootstraps of different problems.
    """

    def __init__(self, directory, config: dict):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config = json.loads(json.dumps(config, sort_keys=True, default=str))
        meta = self.dir / "config.json"
        if meta.exists():
            old = json.loads(meta.read_text())
            if differences(old, self.config):
                raise TextsiftError(_another_run(self.dir, old, self.config))
        else:
            atomic_write_text(meta, json.dumps(self.config, sort_keys=True, indent=1))

    def path(self, i: int) -> Path:
        return self.dir / f"{i:04d}.npz"

    def done(self, B: int) -> list[int]:
        return [i for i in range(B) if self.path(i).exists()]

    def save(self, i: int, result: dict) -> None:
        write_npz(self.path(i), result)

    def load(self, i: int) -> dict:
        with np.load(self.path(i)) as z:
            return {k: z[k] for k in z.files}


def _another_run(folder: Path, old: dict, new: dict) -> str:
    """What differs between the run whose bootstraps ``folder`` holds and this one, said as
    the cause: a seed that differs draws other parts and bootstraps, so the data of the parts
    differ too -- the seed is named, not the data's fingerprint."""
    said = []
    seed = old.get("seed") != new.get("seed")
    if seed:
        said.append(f"the seed differs ({old.get('seed')} -> {new.get('seed')}; it draws "
                    "the split into parts and the bootstraps)")
    if old.get("data") != new.get("data") and not seed:
        said.append("the data differ (another corpus, label field, class thresholds or "
                    "polarity)")
    rest = {k: v for k, v in old.items() if k not in ("seed", "data")}
    said += differences(rest, {k: v for k, v in new.items() if k not in ("seed", "data")})
    return (f"{folder} holds the bootstraps of another run: {'; '.join(said)}; run with that "
            f"run's options to resume it, or use another output folder (--out), or delete "
            f"{folder}")


def fingerprint(*arrays) -> str:
    """A short hash of arrays, for store configurations. Sparse matrices are hashed in a
    canonical form (CSR, float64, sorted int64 indices), so equal matrices hash alike."""
    import scipy.sparse as sp

    h = hashlib.sha1()
    for a in arrays:
        if sp.issparse(a):
            a = sp.csr_matrix(a, dtype=np.float64, copy=True)
            a.sum_duplicates()
            a.sort_indices()
            parts = (a.data, a.indices.astype(np.int64), a.indptr.astype(np.int64))
        else:
            parts = (np.asarray(a),)
        for part in parts:
            h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()[:16]


def _one(task, i, seed_seq, strata):
    weights = stratified_bootstrap(strata, np.random.default_rng(seed_seq))
    with threadpool_limits(1):  # the bootstraps are the parallel unit, not BLAS
        return i, task(weights)


@functools.lru_cache(maxsize=1)
def _load_task(path: str):
    return joblib.load(path, mmap_mode="r")


class _TaskFile:
    """A task dumped once for local worker processes, which memory-map it (loaded once per
    process) instead of receiving a pickled copy of its matrices with every bootstrap."""

    def __init__(self, path: str):
        self.path = path

    def __call__(self, m):
        return _load_task(self.path)(m)


@contextlib.contextmanager
def _shared(task, n_jobs, n_tasks: int):
    backend = type(get_active_backend()[0]).__name__
    if (effective_n_jobs(n_jobs) == 1 or n_tasks < 2
            or backend not in ("LokyBackend", "MultiprocessingBackend")):
        yield task  # in process, or a cluster that cannot read a local file
        return
    with tempfile.TemporaryDirectory(prefix="textsift-") as tmp:
        path = str(Path(tmp) / "task.joblib")
        joblib.dump(task, path)
        yield _TaskFile(path)


def _warm() -> int:
    """What a lasso bootstrap worker imports before its first bootstrap: the lasso's modules
    (scikit-learn with them) and adelie (matplotlib with it)."""
    from .path import _import_adelie

    _import_adelie()
    return os.getpid()


def start_workers(n_jobs):
    """Start the worker processes of ``n_jobs`` (joblib's local pool, as
    :func:`run_bootstraps` starts it) in a background thread, each importing what a lasso
    bootstrap needs (about a second of CPU each), while the caller does other work: the
    command line reads and vectorises the corpus meanwhile, on the core that would idle.
    Returns a function that waits until they are up and returns their process ids;
    :func:`run_bootstraps` then reuses them (joblib keeps its pool for the same settings).
    With one job, or a backend other than the local processes, nothing starts (``[]``). A
    failure to start is not raised here (``[]``): the bootstraps' own pool meets it, and
    says it."""
    n = effective_n_jobs(n_jobs)
    if n < 2 or type(get_active_backend()[0]).__name__ != "LokyBackend":
        return list
    pids: list[int] = []

    def start():
        with contextlib.suppress(Exception):
            pids.extend(parallel(n_jobs)(delayed(_warm)() for _ in range(n)))

    thread = threading.Thread(target=start, name="textsift-start-workers", daemon=True)
    thread.start()

    def wait() -> list[int]:
        thread.join()
        return pids

    return wait


def stop_workers() -> None:
    """End the workers that :func:`start_workers` started, at once (a command that fails or
    is interrupted before its bootstraps does not wait for them to finish importing). Reads
    joblib's private pool (loky's reusable executor, vendored by joblib); where it is
    missing, nothing happens and the workers end with their imports."""
    with contextlib.suppress(Exception):
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)


def run_bootstraps(task, B: int, strata, seed: int = 0, n_jobs=1, store=None,
                   progress=None) -> list[dict]:
    """Run ``task(multiplicities) -> dict`` (with key ``"selected"``) for ``B`` bootstraps,
    in parallel (joblib), resuming from ``store``; results in bootstrap order.
    ``progress(done, total)``, when given, is called once before the first bootstrap and after
    each one (the library draws nothing; the CLI renders it)."""
    if B < 1:
        raise TextsiftError(f"the number of bootstraps must be >= 1, got {B}")
    seeds = np.random.SeedSequence(seed).spawn(B)
    results: dict[int, dict] = {}
    if store is not None:
        results = {i: store.load(i) for i in store.done(B)}
    todo = [i for i in range(B) if i not in results]
    if progress is not None:
        progress(B - len(todo), B)
    with _shared(task, n_jobs, len(todo)) as shared:
        jobs = (delayed(_one)(shared, i, seeds[i], strata) for i in todo)
        for i, res in parallel(n_jobs, return_as="generator_unordered")(jobs):
            if store is not None:
                store.save(i, res)
            results[i] = res
            if progress is not None:
                progress(len(results), B)
    return [results[i] for i in range(B)]


class _SelectorTask:
    """One bootstrap of a :class:`~textsift.selection.selectors.TermSelector`: the counts of the
    sample
    are those of ``X`` with multiplicities (``Counts.from_matrix(..., multiplicity=m)``), so
    no row is copied."""

    def __init__(self, selector, X, y):
        from sklearn.base import clone

        from ..counting.counts import encode_labels

        self.selector = clone(selector)
        self.X = sp.csr_matrix(X, copy=True)
        self.X.sum_duplicates()  # canonical once, so no bootstrap copies it again
        self.y = np.asarray(y)
        self.classes, self.codes = encode_labels(y)

    def __call__(self, m):
        from ..counting.counts import Counts

        counts = Counts.from_matrix(self.X, self.y, classes=self.classes,
                                    multiplicity=np.asarray(m, dtype=np.int64))
        sel = self.selector.fit_counts(counts)
        return {"selected": np.asarray(sel.selected_, dtype=np.int64)}


def stability_selection(selector, X, y, B: int = 100, seed: int = 0, n_jobs=1,
                        store=None, progress=None) -> np.ndarray:
    """Bagging frequencies of a :class:`~textsift.selection.selectors.TermSelector` over ``B``
    class-
    stratified bootstraps of ``(X, y)``: ``f(j) / B`` is the selection probability of term
    ``j`` (stability selection, Meinshausen and Buehlmann 2010)."""
    y = np.asarray(y)
    if X.shape[0] != len(y):
        raise TextsiftError(f"X has {X.shape[0]} rows and y {len(y)} labels")
    task = _SelectorTask(selector, X, y)
    results = run_bootstraps(task, B, task.codes, seed, n_jobs, store, progress)
    return bagging_frequencies([r["selected"] for r in results], X.shape[1])
