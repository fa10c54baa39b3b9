"""How many terms pass selection by alpha under chi2, chi2 with Yates' correction and
Fisher's exact test, and how many of them have an expected count below 5 in their 2 x 2
table (the numbers of docs/guide/evidence.md, "Small expected counts").

    TEXTSIFT_DATA=../shared/data python examples/small_expected.py

The corpora are read as ``textsift score`` reads them by default (min_df 1); the selection is
``score --alpha 0.05`` (BH over each class's terms): a class's over-represented terms with
``--class C``, every term of every class without it.
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import numpy as np

from textsift.engines import count_file
from textsift.errors import DataWarning
from textsift.evidence.significant import MIN_EXPECTED, expected_minimum, significant_terms

DATA = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
CORPORA = [("20 Newsgroups", "20newsgroups/train.jsonl.gz", "label", "sci.space"),
           ("GoEmotions", "goemotions/train.jsonl.gz", "labels", "gratitude")]
TESTS = [("chi2", "chi2", {}), ("chi2, Yates", "chi2", {"yates": True}),
         ("fisher", "fisher", {})]


def main() -> None:
    print("| corpus | selection | test | terms passing | expected count < 5 | in <= 2 documents |")
    print("|---|---|---|---|---|---|")
    for name, path, field, cls in CORPORA:
        start = time.perf_counter()
        counts = count_file(DATA / path, label_field=field, engine="memory")
        df = np.asarray(counts.df)
        col = [str(c) for c in counts.classes].index(cls)
        for scope, label, direction in ((f"class {cls}", cls, "over"),
                                        ("every class", None, "both")):
            for test, method, params in TESTS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DataWarning)
                    index, _ = significant_terms(counts, method, 0.05, class_label=label,
                                                 direction=direction, **params)
                small = expected_minimum(counts, index, col if label else None) < MIN_EXPECTED
                print(f"| {name} ({counts.n_docs:,} documents, {counts.n_terms:,} terms) | "
                      f"{scope} | {test} | {len(index):,} | {int(small.sum()):,} | "
                      f"{int((df[index] <= 2).sum()):,} |", flush=True)
        print(f"<!-- {name}: {time.perf_counter() - start:.1f} s -->")


if __name__ == "__main__":
    main()
