"""The words of a sample of Cooking Stack Exchange tags: each tag's top terms against the
titles without it, by chi2 and by the log-odds ratio with an informative Dirichlet prior
(Monroe, Colaresi and Quinn 2008), on the training titles (min_df 2, the experiment's
vocabulary), for the 8 most frequent tags, 8 from the middle and 8 of the rarest with five
titles or more. Prints the markdown table of docs/reproductions.md, section 8, and the
counts' layout.

    TEXTSIFT_DATA=../shared/data python examples/cooking/tags.py [TOP]

Every tag's list at once is ``textsift score ${TEXTSIFT_DATA}/cooking_stackexchange/all.jsonl.gz
--label-field labels --split train --min-df 2 --per-class --top 8`` (a row per tag and rank:
736 tags); one tag's is ``--class bread``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from textsift.engines import count_file
from textsift.selection.ranking import rank_per_class
from textsift.text.vectorize import VectorizerOptions


def sample(sizes: np.ndarray, n: int = 8) -> list[int]:
    """The ``n`` most frequent tags, ``n`` around the median size and the ``n`` rarest with
    at least five titles (column indices)."""
    order = np.argsort(-sizes, kind="stable")
    middle = len(order) // 2
    rare = [j for j in order[::-1] if sizes[j] >= 5][:n][::-1]
    return list(order[:n]) + list(order[middle - n // 2:middle + n - n // 2]) + rare


def main(top: int = 8) -> None:
    path = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data")) / (
        "cooking_stackexchange/all.jsonl.gz")
    counts = count_file(path, label_field="labels", split_field="split", split="train",
                        opts=VectorizerOptions(min_df=2))
    print(f"<!-- {counts!r} -->")
    lists = {m: rank_per_class(counts, m, top=top) for m in ("chi2", "log_odds_dirichlet")}
    scored = {str(r.class_label): i for i, r in enumerate(lists["chi2"])}
    print(f"| tag | titles | chi2 (top {top}) | log_odds_dirichlet (top {top}) |")
    print("|---|---|---|---|")
    for j in sample(counts.class_sizes):
        tag = str(counts.classes[j])
        i = scored[tag]
        words = [", ".join(lists[m][i].terms) for m in ("chi2", "log_odds_dirichlet")]
        print(f"| {tag} | {counts.class_sizes[j]:,} | {words[0]} | {words[1]} |")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
