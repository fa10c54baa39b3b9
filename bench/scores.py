"""Time every scoring method for every class against scikit-learn's anchors.

    python bench/scores.py [--data ../shared/data] [--mi-columns 2000]
    python bench/scores.py --classes-only [--classes 2,20,200,2000,4000]
    python bench/scores.py --quick   # the main ratio in one process, the stages, the floors

On 20 Newsgroups train (about 11k documents x 130k terms, raw text, scikit-learn's default
token pattern) it prints:
* the time of one count pass plus every nominal method for every class
  (``textsift.scores.compute_many``), and its ratio to ``sklearn.feature_selection.chi2``
  alone (goal: <= 1.5), best of interleaved runs, in wall and CPU time, with the load
  average, the cores and the BLAS threads (one, ``--blas-threads``: scikit-learn's BLAS
  threads would spin on the other core and be charged to whatever runs next);
  and the same with each run in a fresh process, as a command runs it (every array on fresh
  memory pages, which cost on this machine: in one long-lived process the allocator reuses
  some pages, so the in-process ratio depends on what ran before);
* the ratio of ``ig_multi`` to ``mutual_info_classif(discrete_features=True)``, the latter on a
  column subset (it is far too slow for all columns) and scaled per column, with the largest
  difference between the two on that subset (goal: >= 1000x, identical values);
* peak traced memory of each (tracemalloc sees numpy's buffers) beside the matrix's own size.
* where the time goes: each stage of the fused scoring timed apart, with its page faults,
  and the floors of the writing (the same tables written by one ``np.take`` each through
  the shared index of every cell's distinct table, and by a memset) with the ratios to
  ``chi2`` they imply;
* the classes axis (``--classes``, default 2, 20, 200, 2,000 and 4,000 classes): one ranking
  by one method -- ``TermSelector("chi2").fit(X, y)``, the count pass and the whole ranking
  under ``max`` -- against scikit-learn's ``chi2(X, y)`` and a stable ``argsort`` of its
  scores, on a synthetic corpus of about 100k terms (:func:`synthetic`: Zipf-like), each run
  in a fresh process, interleaved: wall time (best of ``--classes-repeat``), peak traced
  memory (tracemalloc sees numpy's buffers; a separate run, as tracing slows allocation) and
  the process's peak RSS, bytes per term-class cell, and the ratios (goals: no slower than
  scikit-learn, at most its 16 bytes per cell).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
import tracemalloc
from pathlib import Path

import numpy as np
from _common import conditions, peak_rss_bytes
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import chi2, mutual_info_classif

from textsift.counting.counts import Counts
from textsift.scores import REGISTRY, compute, compute_many


def best_of(fn, repeat=3):
    """The least CPU time of ``repeat`` calls of ``fn`` (seconds), and its last result."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return min(times), out


def race(fns: dict, repeat: int) -> dict:
    """Best wall and CPU seconds of each function, the runs interleaved (a, b, c, a, b, c,
    ...) so that a change in the machine's load hits every contender alike."""
    best = {k: [np.inf, np.inf] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[k] = [min(best[k][0], wall), min(best[k][1], cpu)]
    return best


def cold(kind: str, npz: str) -> dict:
    """One timing of ``kind`` in this (fresh) process: every array on fresh pages, as in a
    command-line run."""
    import scipy.sparse as sp

    z = np.load(npz, allow_pickle=False)
    X, y = sp.load_npz(npz.replace(".npz", "-X.npz")), z["y"]
    chi2(X[:2], y[:2])  # first-call set-up (lazy imports) out of the timing
    fn = {"chi2": lambda: chi2(X, y),
          "streamed": lambda: [0 for _ in compute_many(Counts.from_matrix(X, y), reuse=True)]}[
              kind]
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}


def race_cold(X, y, repeat: int) -> dict:
    """Best wall and CPU seconds over ``repeat`` fresh processes each, interleaved."""
    import subprocess
    import sys
    import tempfile

    import scipy.sparse as sp

    best = {k: [np.inf, np.inf] for k in ("chi2", "streamed")}
    with tempfile.TemporaryDirectory() as tmp:
        npz = str(Path(tmp) / "data.npz")
        np.savez(npz, y=y)
        sp.save_npz(npz.replace(".npz", "-X.npz"), X)
        for _ in range(repeat):
            for k in best:
                out = subprocess.run([sys.executable, __file__, "--one", k, npz],
                                     capture_output=True, text=True, check=True)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                best[k] = [min(best[k][0], r["wall"]), min(best[k][1], r["cpu"])]
    return best


def stages(X, y, names, repeat: int, chi2_cpu: float | None = None) -> None:
    """Where the time of ``compute_many(reuse=True)`` goes: each stage's CPU time apart (best
    of ``repeat``: on a shared machine the wall time says more of the load than of the
    stage), with the minor page faults of its best run (a first touch of fresh memory); then
    the floors of the writing -- the same number of (V, m) float64 tables written by one
    ``np.take`` each through the shared index of every cell's distinct table (the least a
    gather of the distinct values costs) and by ``fill`` (a memset: the least any writing
    costs) into the same reused buffer -- and, given ``chi2_cpu`` (scikit-learn's ``chi2``,
    CPU seconds), the ratio each floor implies against the goal of 1.5x."""
    import resource

    from textsift.scores import get_method

    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    best: dict[str, list] = {}

    def note(key, t, f):
        if key not in best or t < best[key][0]:
            best[key] = [t, f]

    for _ in range(repeat):
        t0, f0 = time.process_time(), faults()
        counts = Counts.from_matrix(X, y)
        note("count pass (Counts.from_matrix)", time.process_time() - t0, faults() - f0)
        t0, f0 = time.process_time(), faults()
        _ = counts.cells.evaluation_set, counts.cells.nz_table
        note("df, non-zero cells, distinct tables", time.process_time() - t0, faults() - f0)
        t0, f0 = time.process_time(), faults()
        buffer = np.empty(counts.doc_counts.shape)
        buffer.fill(0.0)
        note("first touch of the (V, m) buffer", time.process_time() - t0, faults() - f0)
        metric = table = 0.0
        per_class = 0
        f0 = faults()
        for n in names:
            t0 = time.process_time()
            out = get_method(n).func(counts)
            t1 = time.process_time()
            if out.storage == "cells":  # a per-class table held by its cells: written out
                out.table(buffer)
                per_class += 1
            metric, table = metric + t1 - t0, table + time.process_time() - t1
        note(f"the metrics on the distinct tables ({len(names)} methods)", metric, None)
        note(f"writing {per_class} per-class tables (a gather each, or gather and scatter)", table,
             faults() - f0)
    print(f"where the time goes (stages apart, best of {repeat}, {conditions()}): "
          "CPU ms, minor page faults")
    for k, (t, f) in best.items():
        print(f"  {k:<60s} {t * 1e3:7.1f}   {'' if f is None else f}")
    floors(counts, buffer, best, per_class, repeat, chi2_cpu)


def floors(counts, buffer, best: dict, n_tables: int, repeat: int, chi2_cpu) -> None:
    """The floors of :func:`stages` (its docstring), printed with the ratios they imply."""
    index = counts.cells.table_index
    values = np.random.default_rng(0).random(len(counts.cells.evaluation_set[0]))
    flat = buffer.reshape(-1)

    def gathers():
        for _ in range(n_tables):
            np.take(values, index, out=flat, mode="clip")

    def fills():
        for _ in range(n_tables):
            buffer.fill(1.0)

    t = race({"gather": gathers, "fill": fills}, repeat)
    gather, fill = t["gather"][1], t["fill"][1]
    fixed = sum(v[0] for k, v in best.items() if not k.startswith(("writing", "first touch")))
    print(f"floors of the writing ({n_tables} tables into the reused buffer, best of {repeat}): "
          f"one np.take each through the shared index {gather * 1e3:.1f} ms, a fill (memset) "
          f"each {fill * 1e3:.1f} ms")
    if chi2_cpu:
        print(f"  count pass + distinct tables + metrics ({fixed * 1e3:.1f} ms) + the gathers: "
              f"{(fixed + gather) / chi2_cpu:.2f}x sklearn chi2 ({chi2_cpu * 1e3:.1f} ms); with "
              f"a memset's writing: {(fixed + fill) / chi2_cpu:.2f}x; without any writing: "
              f"{fixed / chi2_cpu:.2f}x (goal <= 1.5x)")


def synthetic(n_classes: int, n_terms: int = 100_000, n_docs: int = 50_000, tokens: int = 80,
              seed: int = 0):
    """A Zipf-like labelled corpus as a CSR count matrix: ``n_docs`` documents of ``tokens``
    tokens each, drawn from ``P(term r) ~ r^-1.1`` over ``n_terms`` terms; a quarter of each
    document's tokens come from its class's own copy of that law, shifted by ``7919 c``
    terms (mod ``n_terms``), so that the classes differ; classes drawn uniformly. About 3.1M
    non-zeros, every term but a few dozen seen; the same for every number of classes but
    the labels and the shifted quarter."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    cdf = np.cumsum(1.0 / np.arange(1, n_terms + 1) ** 1.1)
    cdf /= cdf[-1]
    y = rng.integers(0, n_classes, n_docs)
    doc = np.repeat(np.arange(n_docs), tokens)
    term = np.minimum(np.searchsorted(cdf, rng.random(len(doc))), n_terms - 1)
    own = rng.random(len(doc)) < 0.25
    shift = (np.arange(n_classes) * 7919) % n_terms
    term[own] = (term[own] + shift[y[doc[own]]]) % n_terms
    X = sp.csr_matrix((np.ones(len(doc), dtype=np.int64), (doc, term)),
                      shape=(n_docs, n_terms))
    X.sum_duplicates()
    return X, y


def one_ranking(kind: str, npz: str, traced: bool) -> dict:
    """One ranking of the classes axis in this (fresh) process: ``kind`` is ``sklearn``
    (``chi2`` and a stable argsort of its scores) or ``textsift`` (``TermSelector("chi2")``,
    whose fit counts and ranks the whole vocabulary under ``max``)."""
    import scipy.sparse as sp

    from textsift.selection.selectors import TermSelector

    X, y = sp.load_npz(npz), np.load(npz.replace(".npz", "-y.npy"))

    def sk():
        return np.argsort(-chi2(X, y)[0], kind="stable")

    def ts():
        return TermSelector("chi2").fit(X, y).ranking_.index

    fn = {"sklearn": sk, "textsift": ts}[kind]
    chi2(X[:2], y[:2])  # first-call set-up (lazy imports) out of the timing
    if traced:
        tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
           "rss": peak_rss_bytes()}
    if traced:
        out["peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return out


def classes_axis(classes: list[int], repeat: int) -> None:
    """The table of the classes axis (see the module docstring)."""
    import subprocess
    import sys
    import tempfile

    import scipy.sparse as sp

    print(f"\nclasses axis: one chi2 ranking (max policy) against sklearn chi2 + argsort, each "
          f"in a fresh process; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} "
          "at the start")
    head = ("classes", "V x m cells", "sklearn s", "textsift s", "time ratio", "sklearn B/cell",
            "textsift B/cell", "memory ratio", "sklearn RSS GB", "textsift RSS GB", "load")
    print(" | ".join(head))
    with tempfile.TemporaryDirectory() as tmp:
        for m in classes:
            X, y = synthetic(m)
            npz = str(Path(tmp) / f"x{m}.npz")
            sp.save_npz(npz, X, compressed=False)
            np.save(npz.replace(".npz", "-y.npy"), y)
            cells = X.shape[1] * m
            load0 = os.getloadavg()[0]
            best = {k: {"wall": np.inf, "rss": 0} for k in ("sklearn", "textsift")}

            def run(kind, traced, npz=npz):
                out = subprocess.run([sys.executable, __file__, "--one-ranking", kind, npz,
                                      "1" if traced else "0"], capture_output=True, text=True)
                if out.returncode:
                    return {"error": out.stderr.strip().splitlines()[-1]}
                return json.loads(out.stdout.strip().splitlines()[-1])

            for _ in range(repeat):
                for kind in best:
                    r = run(kind, False)
                    if "error" in r:
                        best[kind] = r
                        continue
                    if "error" not in best[kind]:
                        best[kind]["wall"] = min(best[kind]["wall"], r["wall"])
                        best[kind]["rss"] = max(best[kind]["rss"], r["rss"])
            for kind in best:
                if "error" not in best[kind]:
                    r = run(kind, True)
                    best[kind]["peak"] = r.get("peak", np.nan)
            sk, ts = best["sklearn"], best["textsift"]
            if "error" in sk or "error" in ts:
                print(f"{m} | {cells:,} | {sk.get('error', '')} | {ts.get('error', '')}")
                continue
            load = (load0 + os.getloadavg()[0]) / 2
            print(f"{m:,} | {cells:,} | {sk['wall']:.2f} | {ts['wall']:.2f} | "
                  f"{sk['wall'] / ts['wall']:.2f}x | {sk['peak'] / cells:.1f} | "
                  f"{ts['peak'] / cells:.1f} | {sk['peak'] / ts['peak']:.2f}x | "
                  f"{sk['rss'] / 2**30:.2f} | {ts['rss'] / 2**30:.2f} | {load:.1f}", flush=True)
    print("time ratio: sklearn's wall time over textsift's (> 1: textsift faster); memory ratio "
          "likewise, of the peak traced memory; B/cell: that peak over V x m")


def peak_mb(fn):
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--mi-columns", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=9, help="interleaved runs of each timing")
    ap.add_argument("--classes", default="2,20,200,2000,4000",
                    help="numbers of classes of the classes axis (comma-separated; \"\": none)")
    ap.add_argument("--classes-repeat", type=int, default=3,
                    help="fresh-process runs of each contender per number of classes")
    ap.add_argument("--classes-only", action="store_true", help="run only the classes axis")
    ap.add_argument("--quick", action="store_true",
                    help="only the main ratio in this process and where the time goes, with "
                         "the floors (no fresh processes, mutual information, memory or "
                         "classes axis)")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads in this process and its children (default 1)")
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--one-ranking", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.blas_threads)  # the fresh processes' too
    from threadpoolctl import threadpool_limits

    with threadpool_limits(args.blas_threads, user_api="blas"):
        run(args)


def run(args):
    if args.one:
        print(json.dumps(cold(*args.one)))
        return
    if args.one_ranking:
        kind, npz, traced = args.one_ranking
        print(json.dumps(one_ranking(kind, npz, traced == "1")))
        return
    if args.classes_only:
        classes_axis([int(c) for c in args.classes.split(",")], args.classes_repeat)
        return

    path = Path(args.data) / "20newsgroups" / "train.jsonl.gz"
    rows = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    texts, y = [r["text"] for r in rows], np.array([r["label"] for r in rows])
    t0 = time.perf_counter()
    X = CountVectorizer().fit_transform(texts).tocsr()
    X.sort_indices()  # canonical CSR, as textsift.text.vectorize returns it (chi2 does not care)
    t_vec = time.perf_counter() - t0
    nnz_mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20
    print(f"20NG train: {X.shape[0]} docs x {X.shape[1]} terms, {X.nnz} non-zeros "
          f"({nnz_mb:.1f} MB CSR); CountVectorizer {t_vec:.2f} s (not in the ratios)")

    names = sorted(n for n, m in REGISTRY.items() if m.kind == "nominal")

    def ours():  # every table kept: the caller holds 17 (V, m) tables at once
        return {n: t.values for n, t in compute_many(Counts.from_matrix(X, y), names)}

    def ours_streamed():  # each table used and dropped, as when methods are ranked in turn
        for _ in compute_many(Counts.from_matrix(X, y), names, reuse=True):
            pass

    sk_scores, _ = chi2(X, y)
    scores = None if args.quick else ours()
    counts = Counts.from_matrix(X, y)
    load = os.getloadavg()[0]
    t = race({"chi2": lambda: chi2(X, y), "count": lambda: Counts.from_matrix(X, y),
              "streamed": ours_streamed}, args.repeat)
    # apart: holding 17 tables and freeing them hands memory back to the system, which would
    # charge the page faults of the next runs to whoever follows
    if not args.quick:
        t["kept"] = race({"kept": ours}, args.repeat)["kept"]
    load = (load + os.getloadavg()[0]) / 2
    grid = f"{len(names)} methods x {counts.n_classes} classes"
    print(f"\nbest of {args.repeat} interleaved runs, load average {load:.1f} ({conditions()});"
          " wall ms / CPU ms, ratio to sklearn chi2 in wall / CPU time")
    rows = [("sklearn chi2 alone", "chi2"), ("textsift count pass", "count"),
            (f"textsift count + {grid}, one table at a time (goal <= 1.5)", "streamed"),
            (f"textsift count + {grid}, all tables kept (fresh memory each)", "kept")]
    for label, k in rows[:3 if args.quick else 4]:
        (wall, cpu), (w0, c0) = t[k], t["chi2"]
        print(f"  {label:<72s} {wall * 1e3:7.1f} / {cpu * 1e3:7.1f}   "
              f"{wall / w0:5.2f}x / {cpu / c0:5.2f}x")
    in_process = t["streamed"][1] / t["chi2"][1]
    chi2_cpu = t["chi2"][1]
    if args.quick:
        print(f"RATIO count + every method for every class / sklearn chi2, CPU: {in_process:.2f}x "
              f"in one process; goal <= 1.5x: {'met' if in_process <= 1.5 else 'not met'} "
              f"({conditions()})")
        stages(X, y, names, max(3, args.repeat // 2), chi2_cpu)
        return
    load = os.getloadavg()[0]
    t = race_cold(X, y, max(3, args.repeat // 2))
    print(f"each in a fresh process (as a command runs it), best of {max(3, args.repeat // 2)}, "
          f"load average {(load + os.getloadavg()[0]) / 2:.1f}:")
    for label, k in rows[0:1] + rows[2:3]:
        (wall, cpu), (w0, c0) = t[k], t["chi2"]
        print(f"  {label:<72s} {wall * 1e3:7.1f} / {cpu * 1e3:7.1f}   "
              f"{wall / w0:5.2f}x / {cpu / c0:5.2f}x")
    ratio = t["streamed"][1] / t["chi2"][1]
    print(f"RATIO count + every method for every class / sklearn chi2, CPU: {in_process:.2f}x "
          f"in one process, {ratio:.2f}x in fresh processes; goal <= 1.5x: "
          f"{'met' if max(ratio, in_process) <= 1.5 else 'not met'} ({conditions()})")
    stages(X, y, names, max(3, args.repeat // 2), chi2_cpu)
    print("one method alone, its table on fresh memory (CPU ms):")
    for n in names:
        t, _ = best_of(lambda n=n: compute(counts, n), repeat=3)
        print(f"    {n:15s} {t * 1e3:7.1f} ms")
    ours_sk = scores["chi2_sklearn"].sum(axis=1)
    seen = counts.seen
    rel = np.abs(ours_sk[seen] - sk_scores[seen]) / np.maximum(sk_scores[seen], 1e-300)
    print(f"chi2_sklearn vs sklearn chi2: max rel diff {rel.max():.1e}")

    # mutual information: sklearn on a column subset, scaled per column
    k = min(args.mi_columns, X.shape[1])
    cols = np.random.default_rng(0).choice(X.shape[1], k, replace=False)
    Xb = (X[:, cols] > 0).astype(np.int64)
    t0 = time.process_time()
    sk_mi = mutual_info_classif(Xb, y, discrete_features=True)
    t_sk_mi = (time.process_time() - t0) / k * X.shape[1]
    t_mi, _ = best_of(lambda: compute(Counts.from_matrix(X, y), "ig_multi", base=np.e))
    our_mi = compute(counts, "ig_multi", base=np.e).values[cols, 0]
    print(f"\nmutual_info_classif on {k} random columns, scaled to all {X.shape[1]}: "
          f"{t_sk_mi:8.1f} s (CPU)")
    print(f"textsift ig_multi (count pass included), all columns: {t_mi * 1e3:8.1f} CPU ms   "
          f"ratio {t_sk_mi / t_mi:,.0f}x faster (goal >= 1000x); max |diff| on the subset "
          f"{np.max(np.abs(our_mi - sk_mi)):.1e}")

    print(f"\npeak traced memory: sklearn chi2 {peak_mb(lambda: chi2(X, y)):.0f} MB, "
          f"textsift all methods {peak_mb(ours):.0f} MB (the CSR itself: {nnz_mb:.0f} MB; "
          f"dense would be {X.shape[0] * X.shape[1] * 8 / 2**30:.1f} GB)")
    if args.classes:  # --classes "": no classes axis
        classes_axis([int(c) for c in args.classes.split(",")], args.classes_repeat)


if __name__ == "__main__":
    main()
