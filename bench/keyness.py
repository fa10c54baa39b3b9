"""What keyness, the dispersion and the document-level tests cost (issue 38), in one run.

    python bench/keyness.py [--data DIR] [--loop-terms 1000] [--resamples 999]

On 20 Newsgroups' training part (11,314 documents, min_df 5), sci.space against the rest:

1. the Wilcoxon rank-sum test of every term's per-document relative frequency
   (:func:`textsift.evidence.document_tests.wilcoxon`, vectorised over the terms) against a loop of
   ``scipy.stats.mannwhitneyu(method="asymptotic")`` over the terms, each term's column
   taken from the sparse matrix and made dense -- the shape of scattertext's per-term
   ``MannWhitneyU`` scorer. The loop runs on ``--loop-terms`` terms drawn at random and is
   scaled to the vocabulary (its time per term is flat); the largest difference of the
   p-values on those terms is printed. Goal: the vectorised test at least 100x faster.
   scattertext itself, when it can be imported (``bench/_scattertext.py`` says how it is
   installed beside the project: it declares spaCy, gensim and scipy < 1.14), is run as
   shipped: its ``RankSum`` scorer over every term, timed and its p-values compared, and its
   ``MannWhitneyU`` scorer on a few documents (see :func:`scattertext_rank_sum`).
2. Lijffijt's bootstrap test of every term with ``--resamples`` resamples.
3. :func:`textsift.keyness` of a DataFrame, every column (the Wilcoxon test included; the
   bootstrap apart), against ``textsift score --evidence`` on the same corpus as a JSONL
   file, in-process, with the same columns. Goal: at most 2x.

Each figure is a wall time (best of 3, or of 1 for the long loop) with the load average
beside it: the machine is shared.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.stats as ss
from _common import add_data_option, best_of
from _scattertext import load as load_scattertext

import textsift
from textsift.evidence.document_tests import bootstrap, wilcoxon
from textsift.reading.corpus import read_corpus
from textsift.text.vectorize import vectorize

TARGET = "sci.space"


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def per_term_loop(X, target, terms):
    """scipy's test term by term, each column made dense (relative frequencies)."""
    sizes = np.asarray(X.sum(axis=1)).ravel()
    R = X.copy()  # f / s, divided as the vectorised test divides (x * (1 / s) differs)
    R.data = R.data / np.repeat(sizes, np.diff(R.indptr))
    R = R.tocsc()
    out = []
    for j in terms:
        col = R[:, j].toarray().ravel()
        out.append(ss.mannwhitneyu(col[target], col[~target], method="asymptotic").pvalue)
    return np.array(out)


def scattertext_rank_sum(X, names, target) -> None:
    """scattertext's per-term scorers, run as shipped, against the vectorised test.

    ``RankSum`` tests each term's presence divided by the document's number of distinct terms
    (plus 0.0001) with ``scipy.stats.mannwhitneyu`` (two-sided, asymptotic with the tie and
    continuity corrections), one call per term on dense columns: the vectorised test computes
    the same p-values from the matrix of presences (its relative frequencies are those
    quotients). Documents without a term are left out (their quotient is 0 / 0).
    ``MannWhitneyU`` is run on 60 documents: its ``X / X.sum(axis=1)`` is a sparse matrix on
    the scipy it runs under, whose rows have no ``.A1``, and its fallback repeats each column
    once per document (U beyond ``n1 n2``), which the line printed says."""
    st, how = load_scattertext()
    print(how)
    if st is None:
        print("scattertext: its MannWhitneyU scorer is the loop above in shape (a "
              "mannwhitneyu call per term on dense columns)")
        return
    from scattertext.termscoring.MannWhitneyU import MannWhitneyU
    from scattertext.termscoring.rank_sum import RankSum

    keep = np.asarray(X.sum(axis=1)).ravel() > 0
    X, target = X[keep], target[keep]
    vocabulary = {str(t): j for j, t in enumerate(names)}
    groups = ["rest", TARGET]

    def corpus(M, y):
        return st.CorpusFromScikit(X=M.astype(np.int64), y=y.astype(np.int64),
                                   feature_vocabulary=vocabulary, category_names=groups,
                                   raw_texts=np.array([""] * M.shape[0])).build()

    whole = corpus(X, target)
    t0 = time.perf_counter()
    theirs = RankSum(whole).set_categories(TARGET, ["rest"]).get_score_df()
    loop = time.perf_counter() - t0
    B = (X > 0).astype(np.float64)
    fast = best_of(lambda: wilcoxon(B, target, ~target))
    ours = wilcoxon(B, target, ~target).p
    diff = np.nanmax(np.abs(theirs["PValue"].to_numpy() - ours))
    print(f"scattertext RankSum, every term ({X.shape[1]:,}, {X.shape[0]:,} documents): "
          f"{loop:.2f} s; the vectorised test of the same values {fast:.3f} s, "
          f"{loop / fast:,.0f}x faster ({load()}); largest p-value difference {diff:.1e}")
    small = np.r_[np.flatnonzero(target)[:20], np.flatnonzero(~target)[:40]]
    few = MannWhitneyU(corpus(X[small], target[small])).set_categories(
        TARGET, ["rest"]).get_score_df()
    used = few[few["DocCount1"] + few["DocCount2"] > 0]
    print(f"scattertext MannWhitneyU on 60 documents (20 x 40): largest |U| "
          f"{used['mwu'].abs().max():,.0f} (a U is at most 20 x 40 = 800): its per-term "
          f"columns are the fallback's repeats under scipy {_scipy()}, so "
          "it is not timed on the corpus; the loop above is its shape")


def _scipy() -> str:
    import scipy

    return scipy.__version__


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--loop-terms", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=999)
    args = ap.parse_args()
    path = args.data / "20newsgroups" / "train.jsonl.gz"
    corpus = read_corpus(path)
    X, names, _ = vectorize(corpus.texts, min_df=5)
    X = X.astype(np.float64)
    target = np.asarray(corpus.labels) == TARGET
    print(f"20 Newsgroups train: {X.shape[0]:,} documents, {X.shape[1]:,} terms (min_df 5), "
          f"{TARGET} ({target.sum():,}) against the rest; {os.cpu_count()} cores")

    # 1. Wilcoxon: vectorised against the per-term loop
    fast = best_of(lambda: wilcoxon(X, target, ~target))
    print(f"wilcoxon, every term, vectorised: {fast:.3f} s ({load()})")
    rng = np.random.default_rng(0)
    terms = np.sort(rng.choice(X.shape[1], min(args.loop_terms, X.shape[1]), replace=False))
    t0 = time.perf_counter()
    looped = per_term_loop(X, target, terms)
    loop = time.perf_counter() - t0
    scaled = loop / len(terms) * X.shape[1]
    diff = np.nanmax(np.abs(looped - wilcoxon(X, target, ~target).p[terms]))
    print(f"scipy mannwhitneyu per term: {loop:.2f} s for {len(terms):,} terms, "
          f"{scaled:.1f} s scaled to {X.shape[1]:,} ({load()}); the vectorised test "
          f"{scaled / fast:,.0f}x faster; largest p-value difference {diff:.1e}")
    scattertext_rank_sum(X, names, target)

    # 2. the bootstrap
    t0 = time.perf_counter()
    bootstrap(X, target, ~target, args.resamples, random_state=0)
    print(f"bootstrap, every term, {args.resamples} resamples: "
          f"{time.perf_counter() - t0:.2f} s ({load()})")

    # 3. keyness of a DataFrame against score --evidence of the file
    from typer.testing import CliRunner

    from textsift.cli import app

    frame = pd.DataFrame({"text": corpus.texts, "group": corpus.labels})
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "train.jsonl.gz"
        with gzip.open(file, "wt", encoding="utf-8") as f:
            for text, group in zip(corpus.texts, corpus.labels, strict=True):
                f.write(json.dumps({"text": text, "label": group}) + "\n")
        runner = CliRunner()

        def cli():
            res = runner.invoke(app, ["score", str(file), "--min-df", "5", "--method", "g2",
                                      "--class", TARGET, "--direction", "both", "--evidence",
                                      "--top", "100000", "-f", "csv"])
            assert res.exit_code == 0, res.stderr

        def call(**kw):
            return lambda: textsift.keyness("text", "group", data=frame, target=TARGET,
                                            min_df=5, **kw)

        t_cli = best_of(cli)
        t_key = best_of(call())
        print(f"score --evidence (in-process, the file): {t_cli:.2f} s; keyness (the "
              f"DataFrame, every column): {t_key:.2f} s, {t_key / t_cli:.2f}x ({load()})")
        t_boot = best_of(call(bootstrap=args.resamples), repeat=1)
        print(f"keyness with the bootstrap ({args.resamples} resamples): {t_boot:.2f} s "
              f"({load()})")


if __name__ == "__main__":
    sys.exit(main())
