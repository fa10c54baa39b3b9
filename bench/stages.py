"""The per-class stages on one corpus, CPU time, for a before/after comparison of two
checkouts (docs/reproductions.md, section 11).

    PYTHONPATH=OLD/src python bench/stages.py ../shared/data/20newsgroups/train.jsonl.gz
    PYTHONPATH=NEW/src python bench/stages.py ../shared/data/20newsgroups/train.jsonl.gz

Run the two sides in turn, several rounds; each prints one JSON line: the best CPU time of
three runs of each stage, with the load average.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main(path: str) -> None:
    from textsift.engines import count_file
    from textsift.scores import compute_many, pvalues

    try:  # the package by stage
        from textsift.evidence.significant import significant_terms
        from textsift.selection.ranking import rank, rank_per_class
    except ImportError:  # a checkout from before it
        from textsift.ranking import rank, rank_per_class

        from textsift.evidence import significant_terms

    counts = count_file(path, engine="memory")
    sparse = counts.to_layout("sparse")
    stages = {
        "compute_many(all, reuse)": lambda: list(compute_many(counts, reuse=True)),
        "rank_per_class(chi2, top 10)": lambda: rank_per_class(counts, "chi2", top=10),
        "rank(chi2, rr, top 1000)": lambda: rank(counts, "chi2", aggregate="rr", top=1000),
        "pvalues(chi2) + BH": lambda: pvalues(counts, "chi2").adjusted("bh", "class"),
        "significant_terms(chi2, 0.05)": lambda: significant_terms(counts, "chi2", 0.05),
        "sparse rank_per_class(chi2)": lambda: rank_per_class(sparse, "chi2", top=10),
        "sparse significant_terms(g2)": lambda: significant_terms(sparse, "g2", 0.05),
    }
    out = {}
    for name, stage in stages.items():
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            stage()
            best = min(best, time.process_time() - start)
        out[name] = round(best, 4)
    out["load"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
