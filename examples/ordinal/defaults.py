"""Which default should ``textsift ordinal`` have? The paper's associated-rank rules against the
rank-balanced ones (``balanced=True``), and ``min_df`` 1, 2 and 5, on the four corpora of
docs/reproductions.md, section 3, with its protocol and its tuned learner (svr-balanced).

    TEXTSIFT_DATA=../shared/data python examples/ordinal/defaults.py --out results/ordinal-defaults

Each corpus is run as its ``examples/ordinal/<corpus>.toml`` says (split, tuning of ``a`` and
C on a stratified quarter, MAE^M), with one learner and these variants:

* ``min_df 1, balanced``: RR(Var), RR(Var*IDF), RR(NC*IDF) and PRP with ``balanced = true`` at
  the section's reduction levels 0.5%-75%. The paper's rules at ``min_df 1`` are the rows of
  section 3 (``docs/ordinal/results.csv``, ``--paper-rows``), not run again.
* ``min_df 2`` and ``min_df 5``, paper and balanced: every method at the *numbers of terms* of
  the levels 0.5%-20% of the ``min_df 1`` vocabulary (a fraction of a smaller vocabulary would
  be fewer terms, and a user asks ``textsift ordinal`` for a number of terms; 20% is the
  highest level that every thresholded vocabulary still holds).

``--shares`` only counts, for each corpus's training part: how many of the terms picked at 10%
each rank receives under the paper's and the balanced rule (RR(Var), RR(Var*IDF), RR(NC*IDF);
``min_df`` 1 and 5), against its round-robin share, into ``DIR/shares.csv``.

Pang & Lee's file is the masked copy of section 3 (``mask_pang_lee.py``); it is made when
missing. Every run resumes (``DIR/<corpus>/<variant>/``). ``DIR/defaults.csv`` (one row per
corpus, variant, method and level: MAE^M) is written atomically after each run; the summary
(mean MAE^M over the four corpora and the levels 0.5%-20%, best first) goes to stdout.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pandas as pd

from textsift import Counts, rank
from textsift._io import atomic_write
from textsift.experiment import parse_config, run_experiment
from textsift.selection.policies import n_from_ratio
from textsift.text.vectorize import VectorizerOptions

HERE = Path(__file__).parent
CORPORA = ["amazon_alexa", "amazon_multidomain", "womens_clothing_reviews", "pang_lee_scale"]
BALANCED = ["rr_var", "rr_var_idf", "rr_nc_idf", "prp"]
PAPER = ["var", "rr_var", "prp", "var_idf", "rr_var_idf", "rr_igor", "rr_nc_idf"]
LEVELS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75]
COMMON = [r for r in LEVELS if r <= 0.2]  # the levels every variant has
#: (min_df, balanced): the runs; (1, False) is section 3's
VARIANTS = [(1, True), (2, False), (2, True), (5, False), (5, True)]


def config(corpus: str, min_df: int, balanced: bool, vocabulary: int) -> dict:
    """The corpus's section-3 experiment with one learner, the variant's methods and levels."""
    path = HERE / f"{corpus}.toml"
    root = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data")).resolve()  # from the cwd
    data = tomllib.loads(path.read_text().replace("${TEXTSIFT_DATA}", str(root)))
    methods = BALANCED if balanced else PAPER
    data["experiment"]["name"] += f", min_df {min_df}{', balanced' if balanced else ''}"
    data["preprocessing"] = {**data.get("preprocessing", {}), "min_df": min_df}
    data["selection"].update(methods=methods, baselines=[])
    data["selection"].pop("ratios")
    if min_df == 1:
        data["selection"]["ratios"] = LEVELS
    else:  # the numbers of terms of the min_df 1 levels
        data["selection"]["sizes"] = [n_from_ratio(r, vocabulary) for r in COMMON]
    if balanced:
        data["selection"]["method_params"] = {m: {"balanced": True} for m in methods}
    data["learners"] = [lr for lr in data["learners"] if lr.get("balanced")]
    return data


def mask_pang_lee() -> None:
    masked = HERE / "../../results/ordinal/pang_lee_masked.jsonl.gz"
    if not masked.exists():
        source = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
        subprocess.run([sys.executable, str(HERE / "mask_pang_lee.py"),
                        str(source / "pang_lee_scale/all.jsonl.gz"), str(masked)], check=True)


def rows(df: pd.DataFrame, corpus: str, min_df: int, balanced: bool, vocabulary: int):
    """MAE^M of the selections (the tuned learner) of one corpus's results table, with the
    level of the ``min_df 1`` vocabulary each number of terms is."""
    level = {n_from_ratio(r, vocabulary): r for r in LEVELS}
    df = df[(df.dataset == corpus) & (df.metric == "mae_macro") & (df.learner == "svr-balanced")
            & df.n_features.isin(level)]
    return pd.DataFrame({"corpus": corpus, "min_df": min_df, "balanced": balanced,
                         "method": df.method.to_numpy(), "n_features": df.n_features.to_numpy(),
                         "level": df.n_features.map(level).to_numpy(),
                         "mae_macro": df.value.to_numpy()})


def shares(corpus: str, min_df: int) -> pd.DataFrame:
    """Picks per rank at 10% of the training vocabulary, paper's rule and balanced."""
    data = config(corpus, min_df, False, 1)["corpus"]
    path = (HERE / data["path"]).resolve()
    frame = pd.read_json(path, lines=True)
    frame = frame[(frame[data["split_field"]] == "train")
                  & (frame.text.astype(str).str.strip().str.len() > 0)]
    ranks = data.get("ranks")
    counts = Counts.from_texts(frame.text.astype(str).tolist(),
                               frame[data["label_field"]].to_numpy(),
                               VectorizerOptions(min_df=min_df), classes=ranks)
    k = n_from_ratio(0.1, int(counts.seen.sum()))
    out = []
    for method in BALANCED[:3]:
        for balanced in (False, True):
            got = rank(counts, method, top=k, balanced=balanced).to_frame()["group"].value_counts()
            for r, n_docs in zip(counts.classes, counts.class_sizes, strict=True):
                out.append({"corpus": corpus, "min_df": min_df, "method": method,
                            "balanced": balanced, "rank": r, "docs": n_docs / counts.n_docs,
                            "picks": int(got.get(r, 0)), "share": k / len(counts.classes)})
    return pd.DataFrame(out)


def summary(table: pd.DataFrame) -> str:
    """Mean MAE^M over the corpora and the common levels, per (method, min_df, balanced)."""
    common = table[table.level.isin(COMMON)]
    per = common.groupby(["method", "min_df", "balanced", "corpus"]).mae_macro.mean().unstack()
    per = per.dropna()  # a variant measured on every corpus
    per["mean"] = per.mean(axis=1)
    per = per.sort_values("mean")
    lines = ["| method | min_df | balanced | " + " | ".join(per.columns) + " |",
             "|---|---:|---|" + "---:|" * len(per.columns)]
    for (method, min_df, balanced), row in per.iterrows():
        lines.append(f"| {method} | {min_df} | {'yes' if balanced else 'no'} | "
                     + " | ".join(f"{v:.3f}" for v in row) + " |")
    return "\n".join(lines)


def rule_tables(table: pd.DataFrame) -> str:
    """Per corpus, MAE^M of the paper's rule / the balanced one at each level (min_df 1)."""
    part = table[(table.min_df == 1) & table.method.isin(BALANCED)]
    out = []
    for corpus, rows_ in part.groupby("corpus", sort=False):
        wide = rows_.pivot_table(index=["method", "balanced"], columns="level",
                                 values="mae_macro")
        out += [f"\n**{corpus}** (MAE^M, paper's rule / balanced; bold: the lower)\n",
                "| method | " + " | ".join(f"{100 * r:g}%" for r in wide.columns) + " |",
                "|---|" + "---:|" * len(wide.columns)]
        for method in BALANCED:
            cells = []
            for r in wide.columns:
                p, b = wide.loc[(method, False), r], wide.loc[(method, True), r]
                cells.append(f"{p:.3f} / **{b:.3f}**" if b < p else
                             f"**{p:.3f}** / {b:.3f}" if p < b else f"{p:.3f} / {b:.3f}")
            out.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results/ordinal-defaults"))
    ap.add_argument("--paper-rows", type=Path, default=HERE / "../../docs/ordinal/results.csv")
    ap.add_argument("--only", nargs="*", default=CORPORA,
                    help="corpora to run (none: only summarise the runs in DIR)")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--shares", action="store_true", help="only count the picks per rank")
    args = ap.parse_args()
    if args.shares:
        mask_pang_lee()
        table = pd.concat([shares(c, m) for c in args.only for m in (1, 5)], ignore_index=True)
        atomic_write(args.out / "shares.csv", lambda fh: table.to_csv(fh, index=False))
        table["fifth"] = table.picks >= table.share / 5
        served = table[table.docs >= 0.05].groupby(["corpus", "min_df", "method", "balanced"])
        print(served.fifth.all().unstack().to_string())
        return
    section3 = pd.read_csv(args.paper_rows)
    ffs = section3[(section3.method == "ffs") & (section3.learner == "svr-balanced")]
    vocab = ffs.groupby("dataset").n_features.first().to_dict()  # min_df 1, training part
    parts = [rows(section3, c, 1, False, vocab[c]) for c in CORPORA]
    out_csv = args.out / "defaults.csv"
    for corpus in CORPORA:
        for min_df, balanced in VARIANTS:
            run_dir = args.out / corpus / f"min_df{min_df}{'_balanced' if balanced else ''}"
            if corpus in args.only:
                if corpus == "pang_lee_scale":
                    mask_pang_lee()
                exp = parse_config(config(corpus, min_df, balanced, vocab[corpus]), base=HERE,
                                   src=f"{corpus}.toml, min_df {min_df}")
                t0 = time.perf_counter()
                run_experiment(exp, run_dir, resume=True, n_jobs=args.n_jobs)
                print(f"{corpus}, min_df {min_df}, balanced {balanced}: "
                      f"{time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}",
                      file=sys.stderr, flush=True)
            if (run_dir / "results.csv").exists():
                parts.append(rows(pd.read_csv(run_dir / "results.csv"), corpus, min_df,
                                  balanced, vocab[corpus]))
        table = pd.concat(parts, ignore_index=True)
        atomic_write(out_csv, lambda fh, t=table: t.to_csv(fh, index=False))
    print(summary(table))
    print(rule_tables(table))


if __name__ == "__main__":
    main()
