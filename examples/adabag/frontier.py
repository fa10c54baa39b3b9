"""The error-size frontier of AdaBag on IMDb (docs/reproductions.md, section 4): the paper
reaches 12.8% test error with 447 words. Each variant below is one run of the paper's 2:1:1
protocol (B = 100, seed 0, the split and bootstraps of ``textsift adabag``); for each, the
cutoff is chosen on the validation set by three rules -- the raw minimum, the one-standard-error
rule, and the raw minimum among the models of at most 450 words -- and the test error of the
chosen model is read from the run's test curve (OLS refitted on core + validation, as the
reported model). Test errors never choose anything.

Variants: the imdb polarities as they are; sparser bootstrap models (one-SE lambda); rare
words' polarities shrunk towards 0 by their training-document count ``n`` (factor
``n / (n + k)``); polarity 0 for words in fewer than ``m`` training documents.

    TEXTSIFT_DATA=/path/to/shared/data python examples/adabag/frontier.py [--out DIR]

Finished bootstraps are kept in ``DIR/<variant>/``, so a rerun resumes. Writes
``DIR/frontier.csv`` (one row per variant and rule) and ``DIR/curves.csv`` (every cutoff)
after each variant, keeping the rows of variants not run this time (``--only``).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from textsift._io import atomic_write_text
from textsift.lasso import AdaBagClassifier, choose_cutoff, holdout_run, load_polarity
from textsift.text.vectorize import VectorizerOptions, vectorize

VARIANTS = {
    "imdb": {},
    "imdb, one-SE lambda": {"lambda_selection": "1se"},
    "shrunk, k = 10": {"polarity_prior": 10.0},
    "shrunk, k = 30": {"polarity_prior": 30.0},
    "shrunk, k = 100": {"polarity_prior": 100.0},
    "min 20 documents": {"polarity_min_count": 20},
    "min 50 documents": {"polarity_min_count": 50},
    "min 100 documents": {"polarity_min_count": 100},
}
RULES = {"raw minimum": ("raw", None), "one-SE cutoff": ("1se", None),
         "raw minimum, <= 450 words": ("raw", 450)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/frontier"))
    ap.add_argument("--bootstraps", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="variant names to run (default: all)")
    args = ap.parse_args()
    root = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    frame = pd.concat([pd.read_json(root / "imdb" / f"{s}.jsonl.gz", lines=True)
                       for s in ("train", "test")], ignore_index=True)
    X, names, _ = vectorize(frame["text"].tolist(), VectorizerOptions(binary=True, min_df=5))
    y = frame["rating"].to_numpy(float)
    pol = load_polarity("imdb", names)
    rows, curves = [], []
    for variant, params in VARIANTS.items():
        if args.only and variant not in args.only:
            continue
        folder = args.out / variant.replace(" ", "").replace(",", "_").replace("=", "")
        model = AdaBagClassifier(a=4, b=7, n_bootstraps=args.bootstraps, polarity=pol,
                                 n_jobs=args.n_jobs, random_state=0, store=folder, **params)
        start = time.perf_counter()
        run = holdout_run(model, X, y)
        m, n_val = run.model, int(np.sum(run.part == 1))
        print(f"{variant}: {time.perf_counter() - start:.0f} s (load average "
              + " ".join(f"{x:.1f}" for x in os.getloadavg()) + ")", flush=True)
        curves.append(pd.DataFrame({"variant": variant, "cutoff": m.cutoffs_,
                                    "model_size": m.sizes_,
                                    "validation_error": m.validation_errors_,
                                    "test_error": run.test_errors}))
        for rule, (how, budget) in RULES.items():
            c = choose_cutoff(m.cutoffs_, m.validation_errors_, n_val, how, m.sizes_, budget)
            rows.append({"variant": variant, "rule": rule, "cutoff": c,
                         "model_size": int(m.sizes_[c - 1]),
                         "validation_error": float(m.validation_errors_[c - 1]),
                         "test_error": float(run.test_errors[c - 1]),
                         "bootstrap_size": float(np.mean([len(b["selected"])
                                                          for b in m.bootstraps_]))})
            print(f"  {rule:28s} c* = {c:3d}: {rows[-1]['model_size']:5d} words, test "
                  f"{rows[-1]['test_error']:.4f} (validation {rows[-1]['validation_error']:.4f})",
                  flush=True)
        save(args.out, rows, curves)


def save(out: Path, rows, curves):
    """Write both tables after each variant (an interruption loses nothing), keeping the rows
    of variants not run this time (``--only``)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, new in (("frontier.csv", pd.DataFrame(rows)), ("curves.csv", pd.concat(curves))):
        if (out / name).exists():
            old = pd.read_csv(out / name)
            new = pd.concat([old[~old.variant.isin(new.variant)], new], ignore_index=True)
        atomic_write_text(out / name, new.to_csv(index=False))


if __name__ == "__main__":
    main()
