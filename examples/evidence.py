"""The numbers of the guide page "Which differences are real?" (docs/guide/evidence.md).

    TEXTSIFT_DATA=../shared/data python examples/evidence.py [N_PERMUTATIONS] > evidence.md

Prints markdown: on GoEmotions' training comments (min_df 5), each emotion against the
comments without it -- how many terms are over-represented with q <= 0.05 under each test
and correction, and what a permutation test says of BNS and IG, which have no textbook
test; on 20 Newsgroups' training part (min_df 5), sci.space against sci.med, then against
the rest; the pitfalls in numbers (a fixed chi2 cut-off, scikit-learn's chi2, rare terms).
Every figure comes from textsift's public API; rerun it and compare.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

from textsift import Counts, rank
from textsift.evidence.permutation import permutation_pvalues
from textsift.evidence.reference import against
from textsift.evidence.significant import significant_counts
from textsift.evidence.terms import evidence
from textsift.reading.corpus import read_corpus
from textsift.scores import pvalues
from textsift.scores.direction import direction
from textsift.text.vectorize import VectorizerOptions, vectorize

DATA = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data"))
TESTS = ("fisher", "g2", "chi2")
CORRECTIONS = ("none", "bh", "by", "holm")


def _table(header, rows) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def goemotions(n_permutations: int) -> None:
    corpus = read_corpus(DATA / "goemotions" / "train.jsonl.gz", label_field="labels")
    X, names, _ = vectorize(corpus.texts, VectorizerOptions(min_df=5))
    labels = corpus.labels
    counts = Counts.from_matrix(X, labels, feature_names=names)
    print(f"## GoEmotions: each emotion against the comments without it\n\n{X.shape[0]:,} "
          f"comments, {X.shape[1]:,} terms (min_df 5), {counts.n_classes} emotions.\n")
    print("Terms over-represented in their emotion with q <= 0.05, summed over the 28 "
          "emotions (family: each emotion's terms):\n")
    rows = []
    for test in TESTS:
        rows.append([test] + [f"{int(significant_counts(counts, test, 0.05, c).sum()):,}"
                              for c in CORRECTIONS])
    print(_table(["test", *(f"{c}" for c in CORRECTIONS)], rows))
    per = {t: significant_counts(counts, t, 0.05, "bh") for t in TESTS}
    order = np.argsort(-counts.class_sizes)
    print("\nPer emotion (BH, q <= 0.05), largest first:\n")
    print(_table(["emotion", "comments", *TESTS],
                 [[counts.classes[j], f"{counts.class_sizes[j]:,}",
                   *(int(per[t].iloc[j]) for t in TESTS)] for j in order]))
    _goemotions_permutations(X, labels, counts, n_permutations)


def _goemotions_permutations(X, labels, counts, n_permutations: int) -> None:
    started = time.perf_counter()
    res = permutation_pvalues(X, labels, ["bns", "ig", "fisher"], n_permutations,
                              random_state=0, n_jobs=2)
    wall = time.perf_counter() - started
    low = 1 / (n_permutations + 1)
    over = direction(counts).table().values > 0
    print(f"\n### The permutation test of BNS and IG ({n_permutations} permutations, the "
          f"smallest p-value {low:.3g}; {wall:.0f} s on 2 processes at load "
          f"{os.getloadavg()[0]:.0f})\n")
    from textsift.evidence.corrections import adjust_table

    rows = []
    for name in ("bns", "ig", "fisher"):
        p = res[name].pvalues
        q = adjust_table(p, "bh")
        rows.append([name, f"{int(((np.nan_to_num(p, nan=1) <= 0.05) & over).sum()):,}",
                     f"{int(((np.nan_to_num(p, nan=1) <= low) & over).sum()):,}",
                     f"{int(((np.nan_to_num(q, nan=1) <= 0.05) & over).sum()):,}"])
    print(_table(["method", "p <= 0.05", f"p = {low:.3g} (the floor)", "BH q <= 0.05"],
                 rows))


def newsgroups() -> None:
    corpus = read_corpus(DATA / "20newsgroups" / "train.jsonl.gz")
    X, names, _ = vectorize(corpus.texts, VectorizerOptions(min_df=5))
    counts = Counts.from_matrix(X, corpus.labels, feature_names=names)
    print(f"\n## 20 Newsgroups: sci.space against sci.med, then against the rest\n\n"
          f"{X.shape[0]:,} posts, {X.shape[1]:,} terms (min_df 5).\n")
    pair = against(counts, "sci.space", "sci.med")
    for title, c in (("against sci.med", pair), ("against the other 19 groups", counts)):
        ranked = rank(c, "g2", class_label="sci.space", top=10, direction="over")
        frame = evidence(c, ranked, "g2")
        n = int(significant_counts(c, "g2", 0.05, "bh").loc["sci.space"])
        print(f"### sci.space {title}: {n:,} terms over-represented with BH q <= 0.05\n")
        print(_table(["term", "A", "B", "C", "D", "G2", "q", "log ratio [95%]", "LRC"],
                     [[r.term, r.A, r.B, r.C, r.D, f"{r.score:.1f}", f"{r.q:.2g}",
                       f"{r.log_ratio:.2f} [{r.log_ratio_low:.2f}, {r.log_ratio_high:.2f}]",
                       f"{r.lrc:.2f}"] for r in frame.itertuples()]))
        print()
    _pitfalls(X, corpus.labels, counts)


def _pitfalls(X, y, counts) -> None:
    from sklearn.feature_selection import chi2 as sk_chi2

    from textsift.evidence.corrections import adjust_table

    print("### Pitfalls, in numbers\n")
    chi2 = pvalues(counts, "chi2").values
    fisher = pvalues(counts, "fisher", alternative="two-sided").values
    cells = int(np.isfinite(chi2).sum())
    print(f"* **A fixed chi2 cut-off.** {cells:,} term-class tests; chi2 > 3.84 (p < 0.05, "
          f"uncorrected) passes {int((chi2 < 0.05).sum()):,} of them, BH at q <= 0.05 "
          f"{int((adjust_table(chi2, 'bh') <= 0.05).sum()):,}, Holm "
          f"{int((adjust_table(chi2, 'holm') <= 0.05).sum()):,}.")
    rare = (counts.df <= 10)[:, None] & np.isfinite(chi2)
    ratio = np.log10(np.maximum(fisher[rare], 1e-300)) - np.log10(np.maximum(chi2[rare],
                                                                               1e-300))
    print(f"* **Rare terms.** For the {int(rare.sum()):,} tests of terms in at most 10 "
          f"documents, chi2's asymptotic p-value is below Fisher's exact one (two-sided) in "
          f"{100 * np.mean(ratio > 0):.0f}% of them, by a median factor of "
          f"{10 ** np.median(ratio):.1f}; chi2 passes {int((chi2[rare] < 0.05).sum()):,} "
          f"of them at p < 0.05, Fisher {int((fisher[rare] < 0.05).sum()):,}.")
    stat, p_sk = sk_chi2(X, y)
    top_sk = set(np.argsort(-stat)[:100])
    top_2x2 = set(rank(counts, "chi2", top=100).index)
    print(f"* **scikit-learn's chi2 is not the 2x2 test.** It sums term *frequencies* over "
          f"the classes (one statistic per term, m - 1 degrees of freedom); its top 100 "
          f"terms share {len(top_sk & top_2x2)} with the top 100 of the per-class 2x2 test "
          f"under max, and {int((p_sk < 0.05).sum()):,} of its {len(p_sk):,} p-values are "
          "below 0.05.")
    print("* **Documents, not tokens.** A word repeated 50 times in one post is one "
          "document for every test here; token counts would call it frequent in its group "
          "and violate the tests' independence (the tokens of a post are not independent "
          "draws).")


def main(n_permutations: int = 199) -> None:
    goemotions(n_permutations)
    newsgroups()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
