"""Check the papers' claims against finished runs of the example experiments.

    python examples/claims.py rc RUN_DIR          # the RC paper's claims
    python examples/claims.py forman RUN_DIR      # Forman 2003/2004's findings

Prints markdown tables (the numbers of docs/reproductions.md section 2) from the run's
``summary.csv``: for ``rc``, every method's mean per size and learner with the best marked;
for ``forman``, the best method per size under each policy, BNS's rank among the metrics at
500-1,000 terms, and round robin's gain over ``max`` per metric.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from textsift.report.html import macro_over_tasks


def _table(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join([frame.index.name or ""] + cols) + " |",
             "|" + "---|" * (len(cols) + 1)]
    for idx, row in frame.iterrows():
        cells = [f"{v:{floatfmt}}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join([str(idx)] + cells) + " |")
    return "\n".join(lines)


def rc(summary: pd.DataFrame, metric: str = "micro_f1") -> None:
    for learner, part in summary[summary["metric"] == metric].groupby("learner"):
        wide = part.pivot(index="n_features", columns="method", values="mean")
        best = wide.idxmax(axis=1).where(wide.nunique(axis=1) > 1, "all tied")
        wide = wide.map(lambda v: f"{v:.3f}")
        wide["best"] = best
        rank = part.pivot(index="n_features", columns="method", values="mean").rank(
            axis=1, ascending=False, method="min")["rc"].astype(int)
        wide["rank of rc"] = rank
        print(f"\n{metric}, {learner}\n")
        print(_table(wide))


def forman(summary: pd.DataFrame, metric: str = "macro_f1") -> None:
    if summary["dataset"].nunique() > 1:  # one-vs-rest tasks: macro-average over them
        summary = macro_over_tasks(summary)
    part = summary[summary["metric"] == metric]
    mid = part[part["n_features"].between(500, 1000)]
    print(f"\n{metric}: mean of each (method, policy) over 500 and 1,000 terms\n")
    avg = mid.groupby(["method", "aggregate"])["mean"].mean().unstack("aggregate")
    print(_table(avg.loc[avg.max(axis=1).sort_values(ascending=False).index]))
    print(f"\n{metric}: best (method, policy) per size\n")
    best = part.loc[part.groupby("n_features")["mean"].idxmax(),
                    ["n_features", "method", "aggregate", "mean"]].set_index("n_features")
    print(_table(best))
    if "rr" not in set(part["aggregate"]):
        return
    print(f"\n{metric}: round robin minus max, per method (sizes <= 1,000 and all sizes)\n")
    wide = part.pivot_table(index=["method", "n_features"], columns="aggregate", values="mean")
    wide = wide.dropna(subset=["rr"])
    gain = (wide["rr"] - wide["max"]).rename("rr - max").reset_index()
    small = gain[gain["n_features"] <= 1000].groupby("method")["rr - max"].mean()
    every = gain.groupby("method")["rr - max"].agg(["mean", lambda g: (g > 0).mean()])
    out = pd.DataFrame({"mean gain, <= 1,000 terms": small, "mean gain, all sizes": every["mean"],
                        "share of sizes where rr wins": every.iloc[:, 1]})
    print(_table(out))


if __name__ == "__main__":
    kind, run = sys.argv[1], Path(sys.argv[2])
    summary = pd.read_csv(run / "summary.csv")
    {"rc": rc, "forman": forman}[kind](summary, *sys.argv[3:])
