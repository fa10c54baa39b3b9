"""Many labels: counts, chi2 of every label and each label's top 10 terms, against the
ten-line scipy baseline, in the same run.

    TEXTSIFT_DATA=../shared/data nice -n 5 .venv/bin/python bench/manylabels.py \\
        [--labels 2000,10000,20000,100000] [--repeat 3]

IMDb's matrix (train + test, 50,000 reviews, textsift's default vectorisation: 101,895
terms) with synthetic label sets (:func:`label_sets`: every label used once, then the rest
drawn from a Zipf law, 1 to 5 labels a document) at each number of labels; two contenders,
each run in a fresh process that loads the matrix and the labels (so that its peak resident
memory is its own), interleaved, best of ``--repeat``:

* **scipy** (the anchor, :func:`scipy_top10`): ``Y^T (X > 0)``, the 2x2 chi-square of each of
  its non-zero cells from ``df`` and ``N_c``, and each label's 10 best cells
  (``argpartition``) -- the ten lines a user writes;
* **textsift**: ``Counts.from_matrix(X, Y, term_freq=False)`` (the sparse layout, chosen
  automatically) and ``rank_per_class(counts, "chi2", top=10)``: every label's own first 10
  terms, found from its non-zero cells and its best absent terms (a term absent from a
  label can rank high under chi-square, which is two-sided: the baseline never sees those).

It prints, per number of labels: the non-zero cells, wall and CPU seconds, the peak resident
memory (Linux ``VmHWM``) and its rise above the process with the data loaded, bytes per
non-zero cell (the peak's rise over the cells), the ratios to the anchor (goals: at most
:data:`TIME_GOAL` its CPU time, :data:`MEMORY_GOAL` its peak memory), and whether each
label's top 10 is the baseline's: the same set, or a different one only among terms tied at
the 10th score (the baseline's ``argpartition`` breaks ties arbitrarily, textsift by index);
and how many labels' top 10 hold a term the label never has (found by textsift only; a
baseline's set then differs for a reason, counted apart). Load average beside every row; the
load, cores and BLAS threads before and after the table (neither contender calls BLAS: a
sparse product and element-wise arithmetic). The machine is shared: CPU seconds are the
figure a busy machine distorts least; wall seconds need a quiet one.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _common import add_data_option, conditions, peak_rss_bytes  # bench/ is the script's path

K = 10
#: The goals: textsift's CPU time and peak memory at most these multiples of the anchor's.
TIME_GOAL, MEMORY_GOAL = 1.5, 1.25


def label_sets(n_docs: int, n_labels: int, seed: int = 0, exponent: float = 1.1):
    """A 0/1 indicator (n_docs x n_labels, CSR): each document gets 1 to 5 label slots
    (uniformly), the first ``n_labels`` slots (shuffled) take every label once, the others
    a label drawn from ``P(label r) ~ r^-exponent``; a label drawn twice for one document
    counts once."""
    rng = np.random.default_rng(seed)
    slots = np.repeat(np.arange(n_docs), rng.integers(1, 6, n_docs))
    rng.shuffle(slots)
    if len(slots) < n_labels:
        raise SystemExit(f"{n_docs} documents hold at most {len(slots)} labels")
    label = np.empty(len(slots), np.int64)
    label[:n_labels] = rng.permutation(n_labels)
    weight = 1.0 / np.arange(1, n_labels + 1) ** exponent
    label[n_labels:] = rng.choice(n_labels, len(slots) - n_labels, p=weight / weight.sum())
    Y = sp.csr_matrix((np.ones(len(slots), np.int32), (slots, label)),
                      shape=(n_docs, n_labels))
    Y.sum_duplicates()
    Y.data[:] = 1
    return Y


def scipy_top10(X, Y):
    """The anchor: chi-square of the non-zero cells of ``Y^T (X > 0)``, each label's 10 best."""
    A = (Y.T.tocsr() @ (X > 0).astype(np.int32)).tocsr()
    n, df = X.shape[0], np.bincount(X.indices, minlength=X.shape[1]).astype(float)
    pos = np.asarray(Y.sum(axis=0)).ravel().astype(float)
    label = np.repeat(np.arange(Y.shape[1]), np.diff(A.indptr))
    a = A.data.astype(float)
    b, c = df[A.indices] - a, pos[label] - a
    d = n - pos[label] - b
    chi = n * (a * d - b * c) ** 2 / ((a + b) * (c + d) * (a + c) * (b + d))
    top = []
    for j in range(Y.shape[1]):
        s, e = A.indptr[j], A.indptr[j + 1]
        best = np.argpartition(-chi[s:e], K)[:K] if e - s > K else np.arange(e - s)
        top.append((A.indices[s + best], chi[s + best]))
    return top


def textsift_top10(X, Y):
    from textsift.counting.counts import Counts
    from textsift.selection.ranking import rank_per_class

    counts = Counts.from_matrix(X, Y, term_freq=False)
    # two-sided, as the baseline's chi2 (the views' default keeps over-represented terms)
    return counts, [(r.index, r.scores)
                    for r in rank_per_class(counts, "chi2", top=K, direction="both")]


def one_run(kind: str, folder: str, m: int) -> dict:
    """One contender in this (fresh) process; its top 10s saved beside the data."""
    X = sp.load_npz(Path(folder) / "X.npz")
    Y = sp.load_npz(Path(folder) / f"Y{m}.npz")
    if kind == "textsift":
        import textsift.selection.ranking  # noqa: F401  (imports out of the timing, as for scipy)
    loaded = peak_rss_bytes()
    t0, c0 = time.perf_counter(), time.process_time()
    if kind == "scipy":
        top, extra = scipy_top10(X, Y), {}
    else:
        counts, top = textsift_top10(X, Y)
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
           "peak": peak_rss_bytes(), "loaded": loaded}
    if kind == "textsift":
        docs = counts.doc_counts
        absent = sum(not np.isin(t, docs.indices[docs.indptr[j]:docs.indptr[j + 1]]).all()
                     for j, (t, _) in enumerate(top))
        extra = {"cells": int(docs.nnz), "layout": counts.layout, "absent": int(absent),
                 "stored": int(docs.data.nbytes + docs.indices.nbytes + docs.indptr.nbytes)}
    terms = np.full((m, K), -1, np.int64)
    scores = np.full((m, K), np.nan)
    for j, (t, s) in enumerate(top):
        terms[j, :len(t)], scores[j, :len(s)] = t, s
    np.savez(Path(folder) / f"top-{kind}-{m}.npz", terms=terms, scores=scores)
    return {**out, **extra}


def same_tops(folder: str, m: int) -> tuple[int, int, int]:
    """``(identical sets, differing only among ties at the 10th score, other)`` labels."""
    a, b = ({key: v for key, v in np.load(Path(folder) / f"top-{k}-{m}.npz").items()}
            for k in ("scipy", "textsift"))
    same = tied = other = 0
    for j in range(m):
        ta, tb = set(a["terms"][j][a["terms"][j] >= 0]), set(b["terms"][j][b["terms"][j] >= 0])
        if ta == tb:
            same += 1
            continue
        cut = np.nanmin(b["scores"][j])
        mine = dict(zip(b["terms"][j], b["scores"][j], strict=True))
        theirs = dict(zip(a["terms"][j], a["scores"][j], strict=True))
        differ = [mine.get(t, theirs.get(t)) for t in ta ^ tb]
        if len(ta) == len(tb) and np.allclose(differ, cut, rtol=1e-12, atol=0):
            tied += 1
        else:
            other += 1
    return same, tied, other


def build(data: Path, folder: Path, sizes: list[int]) -> tuple[int, int]:
    from textsift.text.vectorize import vectorize

    texts = []
    for split in ("train", "test"):
        with gzip.open(data / "imdb" / f"{split}.jsonl.gz", "rt", encoding="utf-8") as fh:
            texts += [json.loads(line)["text"] for line in fh]
    X, _, _ = vectorize(texts)
    sp.save_npz(folder / "X.npz", X, compressed=False)
    for m in sizes:
        sp.save_npz(folder / f"Y{m}.npz", label_sets(X.shape[0], m), compressed=False)
    return X.shape


def command_line(doc: str, run_one, labels: str, **options):
    """The command line of the many-labels benches: ``--data``, ``--labels`` (default
    ``labels``), ``options`` (name -> default) and the hidden ``--one KIND FOLDER M`` that
    runs one contender in this (fresh) process and prints its result as JSON (``None`` is
    returned then); else ``(args, numbers of labels)``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--labels", default=labels)
    for name, value in options.items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], args.one[1], int(args.one[2]))))
        return None
    return args, [int(v) for v in args.labels.split(",")]


def main() -> None:
    parsed = command_line(__doc__, one_run, "2000,10000,20000,100000", repeat=3)
    if parsed is None:
        return
    args, sizes = parsed
    with tempfile.TemporaryDirectory() as tmp:
        shape = build(args.data, Path(tmp), sizes)
        print(f"IMDb train + test: {shape[0]:,} documents x {shape[1]:,} terms; synthetic label "
              f"sets (each label once, then Zipf 1.1; 1-5 a document); chi2 of every label "
              f"and its top {K}; each run in a fresh process, best of {args.repeat}, "
              f"interleaved; {conditions()}")
        head = ("labels", "non-zero cells", "scipy wall s", "scipy CPU s", "scipy peak MiB",
                "textsift wall s", "textsift CPU s", "textsift peak MiB", "time ratio (CPU)",
                "time ratio (wall)", "memory ratio", "goals",
                "B per non-zero cell (scipy / textsift)",
                "top 10: same / tied / other", "absent terms in top 10", "load")
        print(" | ".join(head))
        for m in sizes:
            print(_row(tmp, m, args.repeat), flush=True)
    print(f"after: {conditions()}")
    print(f"ratios: textsift over scipy (goals: CPU time <= {TIME_GOAL}, memory <= "
          f"{MEMORY_GOAL}; 'met' when both are); B per cell: the peak's "
          "rise above the loaded data over the non-zero cells; top 10 'tied': the sets differ "
          "only among terms scored as the 10th; 'absent terms': labels whose top 10 (textsift) "
          "holds a term none of the label's documents has, which the baseline cannot find")


def _row(folder: str, m: int, repeat: int) -> str:
    load0 = os.getloadavg()[0]
    best: dict = {k: None for k in ("scipy", "textsift")}
    for _ in range(repeat):
        for kind in best:
            out = subprocess.run([sys.executable, __file__, "--one", kind, folder, str(m)],
                                 capture_output=True, text=True)
            if out.returncode:
                best[kind] = {"error": out.stderr.strip().splitlines()[-1]}
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            if best[kind] is None or "error" in best[kind]:
                best[kind] = r
            elif "error" not in best[kind]:
                r["peak"] = max(r["peak"], best[kind]["peak"])  # the worst peak, the best time
                r["wall"], r["cpu"] = min(r["wall"], best[kind]["wall"]), min(r["cpu"],
                                                                            best[kind]["cpu"])
                best[kind] = {**best[kind], **r}
    sk, ts = best["scipy"], best["textsift"]
    load = (load0 + os.getloadavg()[0]) / 2
    if "error" in sk or "error" in ts:
        return f"{m:,} | {sk.get('error', '')} | {ts.get('error', '')} | load {load:.1f}"
    same, tied, other = same_tops(folder, m)
    cells = ts["cells"]
    mib = 2**20
    return (f"{m:,} | {cells:,} | {sk['wall']:.2f} | {sk['cpu']:.2f} | {sk['peak'] / mib:,.0f} | "
            f"{ts['wall']:.2f} | {ts['cpu']:.2f} | {ts['peak'] / mib:,.0f} | "
            f"{ts['cpu'] / sk['cpu']:.2f} | {ts['wall'] / sk['wall']:.2f} | "
            f"{ts['peak'] / sk['peak']:.2f} | {_goals(ts, sk)} | "
            f"{(sk['peak'] - sk['loaded']) / cells:.0f} / "
            f"{(ts['peak'] - ts['loaded']) / cells:.0f} (stored {ts['stored'] / cells:.1f}) | "
            f"{same:,} / {tied:,} / {other:,} | {ts['absent']:,} | {load:.1f}")


def _goals(ts: dict, sk: dict) -> str:
    time_ok = ts["cpu"] <= TIME_GOAL * sk["cpu"]
    memory_ok = ts["peak"] <= MEMORY_GOAL * sk["peak"]
    return "met" if time_ok and memory_ok else "not met: " + ", ".join(
        what for what, ok in (("time", time_ok), ("memory", memory_ok)) if not ok)


if __name__ == "__main__":
    main()
