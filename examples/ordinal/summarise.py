"""Markdown tables of the ordinal experiments (examples/ordinal/*.toml): MAE^M per method and
reduction level, per corpus and learner, with Triv and FFS; and the best method at each level.

    python examples/ordinal/summarise.py results/ordinal/*/results.csv --claims > summary.md
    python examples/ordinal/summarise.py docs/ordinal/results.csv

Reads the harness's results tables (long form: a row per cell and metric).
"""

from __future__ import annotations

import sys

import pandas as pd

ORDER = ["var", "rr_var", "prp (provisional)", "var_idf", "rr_var_idf", "rr_igor", "rr_nc_idf"]


def load(paths) -> pd.DataFrame:
    """One row per (corpus, learner, method, ratio) with its MAE^M; Triv at ratio 1."""
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    df = df[df.metric == "mae_macro"].rename(columns={"dataset": "corpus", "value": "mae_macro"})
    df["ratio"] = df["ratio"].fillna(1.0)
    df["method"] = df["method"].replace({"prp": "prp (provisional)"})
    return df[["corpus", "learner", "method", "ratio", "n_features", "mae_macro"]]


def table(part: pd.DataFrame, value: str = "mae_macro") -> str:
    methods = part[~part.method.isin(["ffs", "triv"]) & (part.ratio < 1)]  # 100% is FFS
    wide = methods.pivot_table(index="method", columns="ratio", values=value)
    wide = wide.reindex([m for m in ORDER if m in wide.index])
    wide.columns = [f"{100 * r:g}%" for r in wide.columns]
    lines = ["| method | " + " | ".join(wide.columns) + " |",
             "|---|" + "---:|" * len(wide.columns)]
    best = wide.min(axis=0)
    for m, row in wide.iterrows():
        cells = [f"**{v:.3f}**" if v == best[c] else f"{v:.3f}" for c, v in row.items()]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    for base in ("ffs", "triv"):
        v = part.loc[part.method == base, value].iloc[0]
        lines.append(f"| {base.upper()} | " + " | ".join([f"{v:.3f}"] * len(wide.columns)) + " |")
    return "\n".join(lines)


NEW = ["var_idf", "rr_var_idf", "rr_igor", "rr_nc_idf"]
BASELINES = ["var", "rr_var", "prp (provisional)"]


def claims(part: pd.DataFrame) -> str:
    """Per level (ratio < 1): does the best new method beat the best baseline, and which
    methods are worse than Triv."""
    triv = part.loc[part.method == "triv", "mae_macro"].iloc[0]
    ffs = part.loc[part.method == "ffs", "mae_macro"].iloc[0]
    rows = part[part.ratio < 1]
    out = []
    for ratio, lvl in rows.groupby("ratio"):
        best = lvl.loc[lvl.mae_macro.idxmin()]
        new = lvl[lvl.method.isin(NEW)].mae_macro.min()
        base = lvl[lvl.method.isin(BASELINES)].mae_macro.min()
        worse = sorted(lvl.loc[lvl.mae_macro > triv + 1e-12, "method"])
        out.append(f"{100 * ratio:g}%: best {best.method} {best.mae_macro:.3f} "
                   f"({'<' if best.mae_macro < ffs else '>='} FFS {ffs:.3f}); best new "
                   f"{new:.3f} vs best baseline {base:.3f}; worse than Triv: "
                   f"{', '.join(worse) or 'none'}")
    return "\n".join(out)


def main(paths) -> None:
    df = load(paths)
    for corpus, by_corpus in df.groupby("corpus", sort=False):
        for learner in sorted(by_corpus["learner"].unique(), reverse=True):  # svr-balanced 1st
            part = by_corpus[by_corpus["learner"] == learner]
            print(f"\n**{corpus}, {learner}** (MAE^M, lower is better; bold = best at that "
                  "level; at 100% every method is FFS)\n")
            print(table(part))
            if "--claims" in sys.argv:
                print("\n" + claims(part))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args or ["docs/ordinal/results.csv"])
