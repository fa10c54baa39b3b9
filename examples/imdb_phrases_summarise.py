"""The IMDb phrases table of docs/reproductions.md (section 6.3): test error (%) of each linear
learner with words and with words + pairs, at the same numbers of terms, for chi2 / IG / BNS.

    python examples/imdb_phrases_summarise.py results/imdb_phrases_words \
        results/imdb_phrases_bigrams
    TEXTSIFT_DATA=../shared/data python examples/imdb_phrases_summarise.py --pairs

``--pairs`` counts the training part (words + pairs, min_df = 2) and prints how many of each
method's top k terms are pairs, with the first pairs of each ranking.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd


def main(words: Path, bigrams: Path) -> None:
    runs = {"words": pd.read_csv(words / "results.csv"),
            "1-2": pd.read_csv(bigrams / "results.csv")}
    runs = {k: df[df.metric == "misclassification_error"] for k, df in runs.items()}
    full = {k: int(df.n_features.max()) for k, df in runs.items()}  # "all": its vocabulary
    print(f"vocabulary (min_df = 2): words {full['words']:,}, words + pairs {full['1-2']:,}")
    sizes = sorted(s for s in runs["words"].n_features.unique() if s < full["words"])
    for learner in ("nb", "linear_svm", "logreg"):
        print(f"\n{learner}: test error (%), words / words + pairs\n")
        print("| method | " + " | ".join(f"{s:,}" for s in sizes) + " | all |")
        print("|---|" + "---:|" * (len(sizes) + 1))
        for method in ("chi2", "ig", "bns"):
            cells = []
            for size in [*sizes, None]:
                a, b = (100 * df[(df.learner == learner) & (df.method == method)
                                 & (df.n_features == (size or full[k]))].value.iloc[0]
                        for k, df in runs.items())
                cells.append(f"{a:.2f} / {'**' if b < a else ''}{b:.2f}{'**' if b < a else ''}")
            print(f"| {method} | " + " | ".join(cells) + " |")


def pairs() -> None:
    import os

    from textsift.counting.counts import Counts
    from textsift.reading.corpus import read_corpus
    from textsift.selection.ranking import rank

    data = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    train = read_corpus(data / "imdb/train.jsonl.gz")
    counts = Counts.from_texts(train.texts, train.labels, ngram_range=(1, 2), min_df=2)
    sizes = (500, 1000, 2000, 5000, 10000, 20000)
    print("| method | " + " | ".join(f"pairs in top {k:,}" for k in sizes) + " | first pairs |")
    print("|---|" + "---:|" * len(sizes) + "---|")
    for method in ("chi2", "ig", "bns"):
        terms = rank(counts, method, top=max(sizes))["term"].tolist()
        first = [t for t in terms if " " in t][:8]
        print(f"| {method} | " + " | ".join(str(sum(" " in t for t in terms[:k])) for k in sizes)
              + " | " + ", ".join(f"`{t}`" for t in first) + " |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--pairs"]:
        pairs()
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]))
