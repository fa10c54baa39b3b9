"""What the evidence costs, against the scores alone and scikit-learn, in one run.

    python bench/evidence.py [--data DIR] [--permutations 999] [--n-jobs 2]

On 20 Newsgroups' training part (11,314 documents, min_df 5: 25,941 terms, 20 classes):

1. for each method with a test, its scores of every term and class against its p-values
   and BH-adjusted p-values, in the two forms both take: the sparse one (a per-class table
   held by its cells, ``compute(..., dense=False)``; for the
   p-values and their correction ``pvalues(...).adjusted(dense=False)``) and the (V, m)
   tables written out (``compute``'s default; ``PValues.values`` and
   ``adjusted()``: two tables). scikit-learn's ``chi2`` (scores and p-values) as the
   anchor. Goal: the p-values and adjusted p-values at most 1.5x the scores alone. For
   chi2 and g2 the floor is printed too: the statistic, ``erfc`` on the distinct tables
   and one sort of each class's tested p-values, each timed alone, and the ratio they imply.
2. Fisher's exact test of every term x class against chi2's scores, in either form: goal
   at most 3x; and its floor: one hypergeometric log-density (and, for scale, one lgamma)
   per distinct table, and the compiled kernel alone by alternative.
3. ``permutation_pvalues`` of every nominal method at once, ``--permutations`` of them, on
   ``--n-jobs`` processes, with its CPU time (this process and its workers) and memory
   (the largest resident set of each): goal under 2 minutes on 2 cores for 999.

Each figure of 1 and 2 is the least CPU time of 5 runs (``time.process_time``) with the wall
time of the same run, and the load average beside them: the machine is shared, and a loaded
machine's wall times are long; the CPU times of one run compare with one another. The
structures every method shares are built once before (the distinct tables, as
``Counts.cells`` keeps them, and the (table, class) pairs of the correction): their cost is
printed apart.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from _common import add_data_option, conditions

from textsift import Counts
from textsift.reading.corpus import read_corpus
from textsift.scores import compute, pvalues, with_pvalues
from textsift.text.vectorize import VectorizerOptions, vectorize


def timed(fn, repeat=5):
    """``(cpu, wall)`` in seconds of the run with the least CPU time of ``repeat``."""
    best = (np.inf, np.inf)
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.process_time() - c, time.perf_counter() - w))
    return best


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def ms(t) -> str:
    return f"{t[0] * 1e3:7.1f}"


def dense_pq(counts, name):
    p = pvalues(counts, name)
    return p.values, p.adjusted("bh")


def sparse_pq(counts, name):
    p = pvalues(counts, name)
    return p.adjusted("bh", dense=False)


def section_1(X, y, names) -> None:
    from sklearn.feature_selection import chi2 as sk_chi2

    from textsift.scores.significance import _pairs

    sk = timed(lambda: sk_chi2(X, y))
    print(f"\nanchor: sklearn chi2 (scores and p-values): {sk[0] * 1e3:.1f} ms cpu "
          f"({sk[1] * 1e3:.1f} wall)")
    fresh = [Counts.from_matrix(X, y) for _ in range(3)]
    shared = min(timed(lambda c=c: c.cells.evaluation_set, 1) for c in fresh)
    pairs = min(timed(lambda c=c: _pairs(c.cells), 1) for c in fresh)
    print(f"shared, once per Counts: the distinct tables {shared[0] * 1e3:.1f} ms, the "
          f"correction's (table, class) pairs {pairs[0] * 1e3:.1f} ms (cpu)")
    counts = Counts.from_matrix(X, y, feature_names=names)
    _ = _pairs(counts.cells)
    print("\n1. p-values + BH-adjusted p-values against the scores alone (cpu ms; goal: "
          "ratio <= 1.5)")
    print(f"{'method':20s} {'scores':>7s} {'p+q':>7s} {'ratio':>6s}   {'scores':>7s} "
          f"{'p+q':>7s} {'ratio':>6s}")
    print(f"{'':20s} {'sparse':>7s} {'sparse':>7s} {'':>6s}   {'dense':>7s} "
          f"{'dense':>7s}")
    floors = {}
    for name in with_pvalues():
        if name == "mann_whitney":
            continue  # ordinal: 20 Newsgroups has no ranks
        s_sp = timed(lambda n=name: compute(counts, n, dense=False))
        pq_sp = timed(lambda n=name: sparse_pq(counts, n))
        s_d = timed(lambda n=name: compute(counts, n))
        pq_d = timed(lambda n=name: dense_pq(counts, n))
        print(f"{name:20s} {ms(s_sp)} {ms(pq_sp)} {pq_sp[0] / s_sp[0]:6.1f}   {ms(s_d)} "
              f"{ms(pq_d)} {pq_d[0] / s_d[0]:6.1f}")
        if name in FLOORS:
            floors[name] = (s_sp[0], s_d[0], pq_sp[0], pq_d[0])
    print(f"   ({conditions()})")
    for name, (s_sp, s_d, pq_sp, pq_d) in floors.items():
        print_floor(counts, name, s_sp, s_d, pq_sp, pq_d)
    chi2 = (timed(lambda: compute(counts, "chi2", dense=False)),
            timed(lambda: compute(counts, "chi2")))
    fisher = (timed(lambda: compute(counts, "fisher", dense=False)),
              timed(lambda: compute(counts, "fisher")))
    print(f"\n2. Fisher's exact test, every term x class, against chi2 (cpu ms; goal: ratio "
          f"<= 3): sparse {fisher[0][0] * 1e3:.1f} vs {chi2[0][0] * 1e3:.1f} "
          f"({fisher[0][0] / chi2[0][0]:.1f}x); dense {fisher[1][0] * 1e3:.1f} vs "
          f"{chi2[1][0] * 1e3:.1f} ({fisher[1][0] / chi2[1][0]:.1f}x); {conditions()}")
    fisher_floor(counts)


def fisher_floor(counts) -> None:
    """What any exact Fisher p-value of every distinct table costs at least, in the same run:
    one hypergeometric log-density per table (the kernel's, ``_hypergeom.log_pmf``), one
    ``lgamma`` per table (scipy's ``gammaln``) for scale, and the kernel on all of them by
    alternative (the density, then the tail series: about 20 terms a table near its mean)."""
    from scipy.special import gammaln

    from textsift.scores._hypergeom import fisher_log_pvalue, log_pmf

    A, B, C, D = counts.cells.evaluation_set
    r, b, n = A + B, C + D, A + C
    density = timed(lambda: log_pmf(A, r, b, n))
    lgamma = timed(lambda: gammaln(r + 1.0))
    alts = {alt: timed(lambda a=alt: fisher_log_pvalue(A, B, C, D, a))
            for alt in ("greater", "less", "two-sided")}
    print(f"   the floor, {len(A):,} distinct tables (cpu ms): one log-density a table "
          f"{density[0] * 1e3:.2f}, one lgamma a table {lgamma[0] * 1e3:.2f}; the kernel "
          + ", ".join(f"{alt} {t[0] * 1e3:.2f}" for alt, t in alts.items()))


def _floor_statistics():
    from textsift.scores.contingency import g2_statistic, pearson_2x2

    return {"chi2": pearson_2x2, "g2": g2_statistic}


#: The tests whose floor section 1 prints: a statistic with 1 df, its p-value ``erfc``.
FLOORS = ("chi2", "g2")


def print_floor(counts, name, s_sp, s_d, pq_sp, pq_d) -> None:
    """What the p-values and their BH correction cannot do without, timed apart: the test's
    statistic and its p-value (``chi2_pvalue``: ``erfc``) on the distinct tables alone, one
    sort of each class's tested (table, class) p-values alone (what the correction orders),
    and for the dense form the two (V, m) tables written by one gather each through the
    shared index of every cell's table; with the ratios to the scores they imply."""
    from textsift.scores.contingency import chi2_pvalue
    from textsift.scores.significance import _pairs

    cells = counts.cells
    stat = _floor_statistics()[name](*cells.evaluation_set)
    p = chi2_pvalue(stat, 1)
    pairs = _pairs(cells)
    val, members, b = p[pairs.table], pairs.by_class, pairs.bounds
    t_stat = timed(lambda: _floor_statistics()[name](*cells.evaluation_set))[0]
    t_erfc = timed(lambda: chi2_pvalue(stat, 1))[0]
    spans = list(zip(b[:-1], b[1:], strict=True))
    t_sort = timed(lambda: [np.argsort(val[members[i:j]]) for i, j in spans])[0]
    out = np.empty((counts.n_terms, counts.n_classes)).reshape(-1)
    t_write = timed(lambda: np.take(p, cells.table_index, out=out, mode="clip"))[0]
    floor = t_erfc + t_sort
    print(f"   floor of {name}'s p+q: its statistic {t_stat * 1e3:.1f} ms, erfc on the "
          f"{len(p):,} distinct tables {t_erfc * 1e3:.1f} ms, a sort of each class's "
          f"{len(members):,} tested p-values {t_sort * 1e3:.1f} ms; erfc + sort "
          f"{floor * 1e3:.1f} ms = {floor / s_sp:.1f}x the sparse scores (measured "
          f"{pq_sp / s_sp:.1f}x), with the statistic {(floor + t_stat) / s_sp:.1f}x; "
          f"dense, + two (V, m) tables by one gather each ({2 * t_write * 1e3:.1f} ms): "
          f"{(floor + 2 * t_write) / s_d:.1f}x (measured {pq_d / s_d:.1f}x); goal <= 1.5x")


def _workers():
    """This process's worker processes (psutil, installed with dask's distributed)."""
    import psutil

    return psutil.Process().children(recursive=True)


def _peak_mb(pid) -> float:
    """The largest resident set of a process so far (Linux: VmHWM), in MB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def section_3(X, y, n_permutations: int, n_jobs: int) -> None:
    from textsift.evidence.permutation import permutation_pvalues

    print(f"\n3. {n_permutations} permutations, every nominal method, {n_jobs} processes "
          f"({load()} at the start)")
    before = {p.pid: sum(p.cpu_times()[:2]) for p in _workers()}
    w, c = time.perf_counter(), time.process_time()
    res = permutation_pvalues(X, y, n_permutations=n_permutations, random_state=0,
                              n_jobs=n_jobs)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    workers = _workers()
    worker_cpu = sum(sum(p.cpu_times()[:2]) - before.get(p.pid, 0.0) for p in workers)
    peaks = [_peak_mb(p.pid) for p in workers]
    total = cpu + worker_cpu
    print(f"   {len(res)} methods: wall {wall:.1f} s; cpu {cpu:.1f} s here + {worker_cpu:.1f} s "
          f"in {len(workers)} workers = {total:.1f} s ({total / n_permutations * 1e3:.0f} ms a "
          f"permutation: {total / n_permutations * 999 / 2:.0f} s of wall for 999 on 2 idle "
          f"cores); peak memory {_peak_mb(os.getpid()):.0f} MB here, "
          f"{max(peaks, default=float('nan')):.0f} MB the largest worker; {load()} at the end")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--permutations", type=int, default=999)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--skip-permutations", action="store_true")
    ap.add_argument("--only-permutations", action="store_true")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads (default 1: spinning threads would be charged to the "
                         "next timing)")
    args = ap.parse_args(argv)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.blas_threads)  # the permutations' workers too
    import sklearn.feature_selection  # noqa: F401  (its BLAS loaded before the limit is set)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(args.blas_threads, user_api="blas"):
        return run(args)


def run(args) -> int:
    corpus = read_corpus(args.data / "20newsgroups" / "train.jsonl.gz")
    X, names, _ = vectorize(corpus.texts, VectorizerOptions(min_df=5))
    y = corpus.labels
    print(f"20 Newsgroups train: {X.shape[0]:,} documents, {X.shape[1]:,} terms, "
          f"{len(set(y))} classes; {conditions()}")
    if not args.only_permutations:
        section_1(X, y, names)
    if not args.skip_permutations:
        section_3(X, y, args.permutations, args.n_jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
