"""Run the ordinal reduction-level experiment on the corpora of a TOML file.

    python examples/ordinal/run_all.py examples/ordinal/corpora.toml --data ../shared/data \
        --out results/ordinal [--only amazon_alexa,...]

Each corpus is resumable (textsift.ordinal_eval.run); DIR/all.csv and DIR/all.parquet hold
every corpus's rows with a ``corpus`` column.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

import pandas as pd
from mask_pang_lee import main as mask_file
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from textsift._io import atomic_write
from textsift.ordinal_eval import Settings, load_ordinal, run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("config")
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--only", default=None, help="comma-separated corpus names")
    args = ap.parse_args()
    cfg = tomllib.loads(Path(args.config).read_text())
    settings = Settings(**{k: tuple(v) if isinstance(v, list) else v
                           for k, v in cfg["settings"].items()})
    only = set(args.only.split(",")) if args.only else None
    frames = []
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn()]
    with Progress(*columns) as progress:
        for c in cfg["corpus"]:
            if only and c["name"] not in only:
                continue
            path = args.data / c["path"]
            if c.get("mask_grades"):
                masked = args.out / f"{c['name']}_masked.jsonl.gz"
                if not masked.exists():
                    mask_file(str(path), str(masked))
                path = masked
            data = load_ordinal(path, c["rating_field"], ranks=c.get("ranks"), name=c["name"])
            progress.console.print(
                f"{c['name']}: {len(data.y_train)} train / {len(data.y_test)} test documents, "
                f"{data.X_train.shape[1]} terms, scale {data.scale.astype(int).tolist()}, "
                f"{data.n_dropped} empty texts dropped"
            )
            res = run(data, args.out / c["name"], settings, progress=progress)
            frames.append(res.assign(corpus=c["name"]))
    if frames:
        all_rows = pd.concat(frames, ignore_index=True)
        atomic_write(args.out / "all.csv", lambda fh: all_rows.to_csv(fh, index=False))
        atomic_write(args.out / "all.parquet", lambda fh: all_rows.to_parquet(fh, index=False))


if __name__ == "__main__":
    main()
