"""Scores of every label of a multi-label corpus: one count against a loop of one scikit-learn
``chi2`` per label.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/multilabel.py [--repeat 5]

On GoEmotions train (43,410 Reddit comments, 28 emotions, 16% with two or more), from the
same document-term matrix (textsift's counts, scikit-learn's ``CountVectorizer`` vocabulary)
and the same label lists, it times, interleaved, best of ``--repeat`` (wall and CPU seconds):

* **the loop** (the anchor): scikit-learn's ``MultiLabelBinarizer`` and one
  ``sklearn.feature_selection.chi2(X, Y[:, j])`` per label -- what a user writes today;
* **textsift**: one ``Counts.from_matrix(X, label_lists)`` (one pass over the non-zeros plus
  the sparse products ``Y^T X``), then scikit-learn's statistic of every label from the
  counts in one call: each label and the documents without it as two classes of one
  ``Counts`` (derived, no recount), whose two ``chi2_sklearn`` columns summed are scikit-learn's
  ``chi2`` of that label (the registry's "'sum' equals sklearn");
* textsift's own per-label scores in one call each: every label's textbook ``chi2``, and every
  nominal method that applies to label sets (``compute_many``), for scale.

It checks that every label's scores equal the loop's (largest relative difference, how many
values are bit-identical -- all but those of the cells where the label or its rest never has
the term, where textsift's ``chi2_sklearn`` writes ``E`` and scikit-learn computes ``(0 -
E)^2 / E``, an ulp apart --, and whether each label's ranking of the terms is the same), and
prints the goal (textsift >= 3x faster than the loop) with the load average and the cores.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time

import numpy as np
from _common import add_data_option  # bench/ is the script's path
from sklearn.feature_selection import chi2
from sklearn.preprocessing import MultiLabelBinarizer

from textsift.counting.counts import Counts
from textsift.scores import compute, compute_many
from textsift.text.vectorize import vectorize


def race(fns: dict, repeat: int) -> dict:
    """Best wall and CPU seconds of each function, the runs interleaved so that a change in
    the machine's load hits every contender alike; and each one's last result."""
    best = {k: [np.inf, np.inf] for k in fns}
    out = {}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            out[k] = fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            best[k] = [min(best[k][0], wall), min(best[k][1], cpu)]
    return best, out


def sklearn_loop(X, labels):
    Y = MultiLabelBinarizer(sparse_output=True).fit_transform(labels).tocsc()
    return [chi2(X, Y[:, j].toarray().ravel())[0] for j in range(Y.shape[1])]


def with_rests(counts: Counts) -> Counts:
    """Each label and the documents without it as two classes (``2j``: label ``j``, ``2j +
    1``: its rest) over the same documents, derived from the multi-label counts without a
    recount: the rest's cells are ``df - A``, ``TF(t) - TF(t, c)`` and ``N - N_c``."""
    V, m = counts.doc_counts.shape
    sizes, docs, weights = np.empty(2 * m, np.int64), np.empty((V, 2 * m), np.int64), \
        np.empty((V, 2 * m))
    sizes[0::2], sizes[1::2] = counts.class_sizes, counts.n_docs - counts.class_sizes
    docs[:, 0::2], docs[:, 1::2] = counts.doc_counts, counts.df[:, None] - counts.doc_counts
    weights[:, 0::2], weights[:, 1::2] = counts.term_freq, counts.tf[:, None] - counts.term_freq
    return Counts(np.arange(2 * m), sizes, docs, weights, None, counts.n_docs, counts.df,
                  counts.tf, multilabel=True)


def textsift_chi2(X, labels):
    table = compute(with_rests(Counts.from_matrix(X, labels)), "chi2_sklearn").values
    return list((table[:, 0::2] + table[:, 1::2]).T)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    path = args.data / "goemotions" / "train.jsonl.gz"

    load = [os.getloadavg()[0]]
    t0 = time.perf_counter()
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    texts, labels = [r["text"] for r in records], [r["labels"] for r in records]
    t_read = time.perf_counter() - t0
    t0 = time.perf_counter()
    X, _, _ = vectorize(texts)
    t_vec = time.perf_counter() - t0
    n_labels = len({v for row in labels for v in row})
    print(f"GoEmotions train: {len(texts):,} comments, {n_labels} labels, "
          f"{sum(len(r) > 1 for r in labels) / len(labels):.1%} with two or more; X "
          f"{X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} non-zeros (read {t_read:.2f} s, "
          f"vectorised {t_vec:.2f} s, shared by both)")

    counts = Counts.from_matrix(X, labels)
    (best, out) = race({"loop": lambda: sklearn_loop(X, labels),
                        "textsift": lambda: textsift_chi2(X, labels),
                        "count": lambda: Counts.from_matrix(X, labels),
                        "chi2": lambda: compute(counts, "chi2"),
                        "all": lambda: [t for _, t in compute_many(counts, reuse=True)]},
                       args.repeat)
    load.append(os.getloadavg()[0])

    # every label's scores against the loop's
    worst, same_bits, same_rank, total, elsewhere = 0.0, 0, 0, 0, 0
    for j, (ours, theirs) in enumerate(zip(out["textsift"], out["loop"], strict=True)):
        worst = max(worst, float(np.max(np.abs(ours - theirs) / np.maximum(np.abs(theirs),
                                                                           1e-300))))
        same_bits += int(np.sum(ours == theirs))
        total += len(theirs)
        same_rank += np.array_equal(np.argsort(-ours, kind="stable"),
                                    np.argsort(-theirs, kind="stable"))
        zero = (counts.term_freq[:, j] == 0) | (counts.tf == counts.term_freq[:, j])
        elsewhere += int(np.sum((ours != theirs) & ~zero))
    print(f"every label's chi2 against the loop's: largest relative difference {worst:.1e}; "
          f"{same_bits:,} of {total:,} values bit-identical, the other {total - same_bits:,} "
          "where the label or its rest never has the term (textsift writes E there, "
          f"scikit-learn (0 - E)^2 / E; {elsewhere} elsewhere); the same ranking for "
          f"{same_rank} of {n_labels} labels")

    def row(name, what):
        wall, cpu = best[name]
        print(f"  {what:<58} {wall:7.3f} s wall {cpu:7.3f} s CPU")

    print(f"best of {args.repeat}, interleaved:")
    row("loop", f"MultiLabelBinarizer + {n_labels} x sklearn chi2 (the anchor)")
    row("textsift", "textsift: one count + each label's sklearn chi2 from it")
    row("count", "  of which the count (Counts.from_matrix on the lists)")
    row("chi2", f"textsift chi2 (2x2 Pearson) of all {n_labels} labels, from the counts")
    row("all", "every applicable method for every label (compute_many)")
    ratio_wall = best["loop"][0] / best["textsift"][0]
    ratio_cpu = best["loop"][1] / best["textsift"][1]
    print(f"textsift is {ratio_wall:.1f}x faster than the loop in wall time, {ratio_cpu:.1f}x "
          f"in CPU time (goal: >= 3x)")
    print(f"load average {load[0]:.2f} before, {load[1]:.2f} after; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
