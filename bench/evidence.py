"""What the evidence costs (issue 29), against the scores alone and scikit-learn, in one run.

    python bench/evidence.py [--data DIR] [--permutations 999] [--n-jobs 2]

On 20 Newsgroups' training part (11,314 documents, min_df 5: 25,941 terms, 20 classes):

1. for each method with a test, the scores of every term and class against the scores plus
   the p-values and the BH-adjusted p-values (the (V, m) tables written out, as
   ``compute`` writes the scores); scikit-learn's ``chi2`` (scores and p-values) as the
   anchor. Goal: the p-values and adjusted p-values at most 1.5x the scores alone.
2. Fisher's exact test of every term x class against chi2 (scores): goal at most 3x.
3. ``permutation_pvalues`` of every nominal method at once, ``--permutations`` of them, on
   ``--n-jobs`` processes, with its memory: goal under 2 minutes on 2 cores for 999.

Each figure is the best of 3 wall times and the CPU time of that run (``time.process_time``
of this process; the permutations add their workers'), with the load average beside it: the
machine is shared, and a loaded machine's wall times are long.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np
from _common import add_data_option

from textsift import Counts
from textsift.corpus import read_corpus
from textsift.evidence import adjusted_pvalues
from textsift.scores import compute, with_pvalues
from textsift.vectorize import VectorizerOptions, vectorize


def timed(fn, repeat=3):
    """``(best wall, cpu of that call)`` in seconds."""
    best = (np.inf, np.inf)
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - w, time.process_time() - c))
    return best


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--permutations", type=int, default=999)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--skip-permutations", action="store_true")
    args = ap.parse_args(argv)
    corpus = read_corpus(args.data / "20newsgroups" / "train.jsonl.gz")
    X, names, _ = vectorize(corpus.texts, VectorizerOptions(min_df=5))
    y = corpus.labels
    counts = Counts.from_matrix(X, y, feature_names=names)
    print(f"20 Newsgroups train: {X.shape[0]:,} documents, {X.shape[1]:,} terms, "
          f"{counts.n_classes} classes; {os.cpu_count()} cores; {load()}")

    from sklearn.feature_selection import chi2 as sk_chi2

    sk = timed(lambda: sk_chi2(X, y))
    print(f"\nanchor: sklearn chi2 (scores and p-values): {sk[0] * 1e3:.1f} ms "
          f"(cpu {sk[1] * 1e3:.1f})")
    print("\n1. p-values + BH-adjusted p-values against the scores alone")
    print(f"{'method':20s} {'scores ms':>10s} {'p+q ms':>10s} {'ratio':>6s} {'cpu ratio':>9s}")
    for name in with_pvalues():
        if name == "mann_whitney":
            continue  # ordinal: 20 Newsgroups has no ranks
        c = Counts.from_matrix(X, y, feature_names=names)
        _ = c.cells.evaluation_set  # the evaluation set every method shares, built once
        s = timed(lambda c=c, n=name: compute(c, n))
        pq = timed(lambda c=c, n=name: adjusted_pvalues(c, n, "bh", "class"))
        print(f"{name:20s} {s[0] * 1e3:10.1f} {pq[0] * 1e3:10.1f} {pq[0] / s[0]:6.2f} "
              f"{pq[1] / max(s[1], 1e-9):9.2f}")
    print(f"   ({load()})")

    chi2 = timed(lambda: compute(counts, "chi2"))
    fisher = timed(lambda: compute(counts, "fisher"))
    fisher_p = timed(lambda: adjusted_pvalues(counts, "fisher", "bh"))
    print(f"\n2. Fisher's exact test, every term x class: scores {fisher[0] * 1e3:.1f} ms, "
          f"p + q {fisher_p[0] * 1e3:.1f} ms; chi2 scores {chi2[0] * 1e3:.1f} ms: "
          f"{fisher[0] / chi2[0]:.2f}x (cpu {fisher[1] / chi2[1]:.2f}x); {load()}")

    if args.skip_permutations:
        return 0
    from textsift.permutation import permutation_pvalues

    print(f"\n3. {args.permutations} permutations, every nominal method, {args.n_jobs} "
          f"processes ({load()} at the start)")
    w, c = time.perf_counter(), time.process_time()
    res = permutation_pvalues(X, y, n_permutations=args.permutations, random_state=0,
                              n_jobs=args.n_jobs)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    print(f"   {len(res)} methods: wall {wall:.1f} s, cpu {cpu:.1f} s here + "
          f"{children.ru_utime:.1f} s in workers; peak memory {me.ru_maxrss / 1024:.0f} MB "
          f"here, {children.ru_maxrss / 1024:.0f} MB the largest worker; {load()} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
