"""The numbers of the guide page "Keyness" (docs/guide/keyness.md).

    TEXTSIFT_DATA=../shared/data python examples/keyness.py [N_RESAMPLES]

Prints markdown: on 20 Newsgroups' training part (min_df 5, a pandas DataFrame), sci.space
against the other 19 groups -- the top terms with their dispersion, how many terms each
test finds (the presence tests, the document-level tests, and G2 of token counts, the
corpus-linguistic keyness table), and the terms on which they disagree. Every figure comes
from textsift's public API; rerun it and compare.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import textsift
from textsift.reading.corpus import read_corpus

DATA = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
TARGET = "sci.space"


def _table(frame: pd.DataFrame) -> str:
    out = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        out.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(out)


def _cell(v) -> str:
    if isinstance(v, float | np.floating):
        if np.isnan(v):
            return ""
        return f"{v:.2g}" if abs(v) < 0.01 and v != 0 else f"{v:,.2f}"
    return f"{v:,}" if isinstance(v, int | np.integer) else str(v)


def main() -> None:
    resamples = int(sys.argv[1]) if len(sys.argv) > 1 else 999
    corpus = read_corpus(DATA / "20newsgroups" / "train.jsonl.gz")
    df = pd.DataFrame({"text": corpus.texts, "group": corpus.labels})
    t0 = time.perf_counter()
    key = textsift.keyness("text", "group", data=df, target=TARGET, min_df=5,
                           bootstrap=resamples, random_state=0)
    took = time.perf_counter() - t0
    print(f"keyness of {len(df):,} posts, {len(key):,} terms, with {resamples} resamples: "
          f"{took:.1f} s (load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)\n")
    over = key[key["direction"] == "over"]
    print("## The top 12 terms\n")
    print(_table(over.head(12)[["feature", "g2", "n_target", "n_reference", "A", "B",
                                "dp_norm_target", "cv_target", "q", "q_wilcoxon",
                                "q_bootstrap"]]))

    # token-level G2: the rest as a frequency list
    rest = df.loc[df["group"] != TARGET, "text"]
    from textsift.text.vectorize import vectorize

    X, names, _ = vectorize(rest, min_df=1)
    freq = pd.Series(np.asarray(X.sum(axis=0)).ravel(), index=names)
    tokens = textsift.keyness(df.loc[df["group"] == TARGET, "text"], reference=freq,
                              min_df=1).set_index("feature")
    tokens = tokens.reindex(key["feature"])
    key = key.assign(q_tokens=tokens["q"].to_numpy(),
                     g2_tokens=tokens["g2"].to_numpy())
    over = key[key["direction"] == "over"]
    print("\n## How many of sci.space's terms pass q <= 0.05 (BH over its vocabulary)\n")
    rows = []
    for name, column in (("G2 of token counts (a frequency list)", "q_tokens"),
                         ("G2 of document presence (the default)", "q"),
                         ("Wilcoxon rank-sum of the documents' rates", "q_wilcoxon"),
                         (f"bootstrap of the documents ({resamples} resamples)",
                          "q_bootstrap")):
        rows.append((name, int((over[column] <= 0.05).sum())))
    print(_table(pd.DataFrame(rows, columns=["test", "terms"])))

    print("\n## Where they disagree\n")
    token_only = over[(over["q_tokens"] <= 0.05) & (over["q_bootstrap"] > 0.05)]
    print(f"{len(token_only):,} terms pass G2 on tokens but not the bootstrap; the ten with "
          "the largest token G2:\n")
    print(_table(token_only.sort_values("g2_tokens", ascending=False).head(10)[
        ["feature", "g2_tokens", "n_target", "n_reference", "A", "dp_norm_target", "q",
         "q_wilcoxon", "q_bootstrap"]]))
    doc_only = over[(over["q_wilcoxon"] <= 0.05) & (over["q"] > 0.05)]
    print(f"\n{len(doc_only):,} terms pass the Wilcoxon test but not presence G2; "
          "the ten with the smallest Wilcoxon q:\n")
    print(_table(doc_only.sort_values("q_wilcoxon").head(10)[
        ["feature", "g2", "n_target", "n_reference", "A", "B", "q", "q_wilcoxon",
         "q_bootstrap"]]))
    pres_only = over[(over["q"] <= 0.05) & (over["q_bootstrap"] > 0.05)]
    print(f"\n{len(pres_only):,} terms pass presence G2 but not the bootstrap; the ten with "
          "the largest G2:\n")
    print(_table(pres_only.head(10)[["feature", "g2", "n_target", "n_reference", "A", "B",
                                     "q", "q_wilcoxon", "q_bootstrap"]]))
    low = over[(over["q"] <= 0.05)]
    print(f"\nDispersion of the {len(low):,} terms passing presence G2: DPnorm in the "
          f"target median {low['dp_norm_target'].median():.2f}; "
          f"{int((low['range_target'] < 5).sum()):,} in fewer than 5 of its "
          f"{int(low['A'].iloc[0] + low['C'].iloc[0]):,} posts")


if __name__ == "__main__":
    main()
