"""The top terms of each class of the binary NSMC corpus (docs/reproductions.md, section 6.2):
the terms of the training part with the highest chi2, each listed under the class whose
reviews hold it more often (its share of that class's reviews against the other's), for
words, morphemes and character n-grams inside words. Reads what prepare.py wrote.

    python examples/korean/top_terms.py results/korean/nsmc_binary.jsonl.gz
"""

from __future__ import annotations

import sys

from textsift.counting.counts import Counts
from textsift.reading.corpus import read_corpus
from textsift.selection.ranking import rank
from textsift.text.vectorize import VectorizerOptions

REPRESENTATIONS = {"words": VectorizerOptions(min_df=5),
                   "morphemes (Kiwi)": VectorizerOptions(min_df=5, tokenizer="korean"),
                   "char_wb 1-3": VectorizerOptions(min_df=5, analyzer="char_wb",
                                                    ngram_range=(1, 3))}


def main(path: str, top: int = 12) -> None:
    train = read_corpus(path, label_field="sentiment", split_field="split", split="train")
    print("| terms | class | top terms by chi2 (share of neg reviews / of pos reviews, %; ␣ is "
          "char_wb's padding space) |")
    print("|---|---|---|")
    for name, opts in REPRESENTATIONS.items():
        counts = Counts.from_texts(train.texts, train.labels, opts)
        share = counts.doc_counts / counts.class_sizes  # terms x (neg, pos)
        where = {t: i for i, t in enumerate(counts.feature_names)}
        ranked = rank(counts, "chi2", top=20 * top)["term"].tolist()
        for c, label in enumerate(counts.classes):
            own = [t for t in ranked if share[where[t], c] > share[where[t], 1 - c]][:top]
            cells = ", ".join(f"`{t.replace(' ', '␣')}`"
                              f" ({100 * share[where[t], 0]:.1f}/{100 * share[where[t], 1]:.1f})"
                              for t in own)
            print(f"| {name} | {label} | {cells} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results/korean/nsmc_binary.jsonl.gz")
