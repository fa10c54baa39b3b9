"""What exact sums cost the policies ``sum`` and ``wavg``, against numpy's plain sums.

    python bench/exact_sums.py [--data ../shared/data] [--repeat 5]

``textsift.selection.policies.globalise`` adds a term's scores over the classes exactly where the
order
of two terms could depend on rounding (``math.fsum`` of the terms in doubt, numpy's sum of
the others), so that terms whose scores are the same numbers in another order tie and go by
index. The anchor is the former rule, numpy's sum of every row (``np.where(scored, table,
0).sum(axis=1)``), timed in the same run, interleaved. For each corpus and method it prints
the table's shape, the share of terms whose sum changed (in its last bits), the best wall
time of each and their ratio, and the number of terms whose place in the ranking differs
(the ties that rounding had ordered). Tables: 20 Newsgroups train (20 classes), GoEmotions
train (28 labels, label sets), the cooking tags (736 labels).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time
from functools import partial

import numpy as np
from _common import add_data_option

from textsift.counting.counts import Counts
from textsift.scores import compute
from textsift.selection.policies import globalise, order


def numpy_sums(table: np.ndarray, aggregate: str, weights) -> np.ndarray:
    """The former ``globalise`` of ``sum`` and ``wavg``: numpy's sum of each row."""
    scored = table > -np.inf
    if aggregate == "wavg":
        scored &= weights[None, :] > 0
        with np.errstate(invalid="ignore"):
            table = table * weights[None, :]
    out = np.where(scored, table, 0.0).sum(axis=1)
    out[~scored.any(axis=1)] = -np.inf
    return out


def corpus(path, label_field: str, split: str | None = None):
    texts, labels = [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if split is None or r.get("split") == split:
                texts.append(r["text"])
                labels.append(r[label_field])
    return texts, labels


def race(fns: dict, repeat: int) -> dict:
    """Best wall seconds of each function, the runs interleaved."""
    best = dict.fromkeys(fns, np.inf)
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    sets = [("20 Newsgroups", args.data / "20newsgroups" / "train.jsonl.gz", "label", None),
            ("GoEmotions", args.data / "goemotions" / "train.jsonl.gz", "labels", None),
            ("cooking", args.data / "cooking_stackexchange" / "all.jsonl.gz", "labels",
             "train")]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores; best of "
          f"{args.repeat}, interleaved")
    print(f"{'corpus':14} {'method':18} {'policy':6} {'terms x classes':>17} {'changed':>7} "
          f"{'numpy':>9} {'exact':>9} {'ratio':>6} {'moved':>6}")
    for name, path, field, split in sets:
        if not path.exists():
            print(f"{name}: {path} missing, skipped")
            continue
        counts = Counts.from_texts(*corpus(path, field, split))
        for method in ("chi2", "ig", "bns"):
            table = compute(counts, method)
            for aggregate in ("sum", "wavg"):
                w = table.weights
                fast = numpy_sums(table.values, aggregate, w)
                exact = globalise(table.values, aggregate, w)
                values = table.values
                times = race({"numpy": partial(numpy_sums, values, aggregate, w),
                              "exact": partial(globalise, values, aggregate, w)}, args.repeat)
                moved = int((order(fast, table.seen) != order(exact, table.seen)).sum())
                changed = float(np.mean(fast != exact) if len(fast) else 0.0)
                v, m = table.values.shape
                print(f"{name:14} {method:18} {aggregate:6} {v:>8,} x {m:<6,} "
                      f"{changed:>7.1%} {times['numpy'] * 1e3:>7.1f}ms "
                      f"{times['exact'] * 1e3:>7.1f}ms {times['exact'] / times['numpy']:>6.1f} "
                      f"{moved:>6,}")


if __name__ == "__main__":
    main()
