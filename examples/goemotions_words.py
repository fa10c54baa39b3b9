"""The words of each GoEmotions emotion: the top terms of each of the 28 labels by the log-odds
ratio with an informative Dirichlet prior (Monroe, Colaresi and Quinn 2008, the ranking of the
GoEmotions paper) beside chi2's, each label against the comments without it, on the training
comments (min_df 2, the experiment's vocabulary). Prints the markdown table of
docs/reproductions.md, section 7.

    TEXTSIFT_DATA=../shared/data python examples/goemotions_words.py [TOP]

The same ranking, one emotion at a time, is ``textsift score
${TEXTSIFT_DATA}/goemotions/train.jsonl.gz --label-field labels --min-df 2 --method
log_odds_dirichlet --class gratitude``; ``textsift explore`` draws it as a term map.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from textsift import rank
from textsift.engines import count_file
from textsift.text.vectorize import VectorizerOptions


def main(top: int = 8) -> None:
    path = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data")) / "goemotions" / (
        "train.jsonl.gz")
    counts = count_file(path, label_field="labels", opts=VectorizerOptions(min_df=2))
    print(f"| emotion | comments | log_odds_dirichlet (top {top}) | chi2 (top {top}) |")
    print("|---|---|---|---|")
    order = sorted(range(counts.n_classes), key=lambda j: -counts.class_sizes[j])
    for j in order:
        label = counts.classes[j]
        words = [", ".join(rank(counts, method, class_label=label, top=top)["term"])
                 for method in ("log_odds_dirichlet", "chi2")]
        print(f"| {label} | {counts.class_sizes[j]:,} | {words[0]} | {words[1]} |")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
