"""The results store of an experiment directory.

Layout of ``DIR``::

    experiment.json       the validated configuration and its fingerprint
    cache/fold-K.npz      matrices and counts of fold K (see :mod:`.folds`)
    cells/*.json          one file per finished cell, written atomically
    results.csv/.parquet  the long-form table, one row per (cell row, metric): COLUMNS, then
                          ``ratio`` (the fraction of the vocabulary asked for; 1 for "all"
                          and FFS, empty for a number of terms) and, with [tuning], the
                          chosen parameters and the validation value of the first metric
    summary.csv/.parquet  mean and std of each metric over folds (a level asked as a ratio
                          or "all" has the folds' mean number of terms)
    timings.csv           seconds per cell (selection, learner) -- not part of the results
    terms.csv             top terms of every method on fold 0, for the report
    labels.csv/.parquet   label sets only: each label's F1, precision and recall, and its
                          training and test documents, per row of the results (LABEL_COLUMNS)

A cell file is complete or absent (temporary file + ``os.replace``), so a run killed at any
point resumes from the cells on disk, and the table -- assembled from the cell files and sorted
by its key columns -- is the same as that of an uninterrupted run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .._io import atomic_write, atomic_write_text, check_out_dir
from ..errors import TextsiftError

__all__ = ["COLUMNS", "KEY", "LABEL_COLUMNS", "Store", "StoreError", "summarise"]

#: The columns that identify a cell of the results table.
KEY = ["dataset", "fold", "method", "aggregate", "n_features", "learner"]
#: The first columns of ``results.csv``: the key, the metric and its value.
COLUMNS = KEY + ["metric", "value"]
#: The columns of ``labels.csv``: the key, then one label's measures and documents.
LABEL_COLUMNS = KEY + ["ratio", "label", "f1", "precision", "recall", "train", "test"]


class StoreError(TextsiftError):
    """The output directory cannot be used as asked; the message says what to do."""


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (ddof=1; 0 for a single fold) of each metric over folds, per level: a
    number of terms, or a ratio (and "all", ratio 1), whose folds may keep different numbers
    of terms -- ``n_features`` is then their mean, rounded."""
    level = results.assign(n_level=results["n_features"].where(results["ratio"].isna()))
    keys = ["dataset", "method", "aggregate", "ratio", "n_level", "learner", "metric"]
    out = level.groupby(keys, sort=True, dropna=False).agg(
        n_features=("n_features", "mean"), mean=("value", "mean"), std=("value", "std"),
        folds=("value", "count")).reset_index()
    out["n_features"] = out["n_features"].round().astype("int64")
    out["std"] = out["std"].fillna(0.0)
    order = ["dataset", "method", "aggregate", "n_features", "ratio", "learner", "metric"]
    return out.sort_values(order, kind="stable").reset_index(drop=True)[
        order + ["mean", "std", "folds"]]


class Store:
    """An experiment directory (see module docstring)."""

    def __init__(self, root):
        self.root = Path(root)
        self.cells = self.root / "cells"
        self.cache = self.root / "cache"

    # ------------------------------------------------------------------ opening
    def check(self, fingerprint: str, resume: bool) -> bool:
        """Whether the directory can be claimed for the experiment ``fingerprint``, found
        without writing anything: ``True`` if it already holds this experiment (its fold
        cache and finished cells are reused), ``False`` if it is absent, empty, or another
        experiment's that finished no cell (:meth:`open` takes it over). Another experiment's
        results, this experiment's without ``resume``, or a file in its place are errors."""
        check_out_dir(self.root)
        manifest = self.root / "experiment.json"
        if manifest.exists():
            try:
                old = json.loads(manifest.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                raise StoreError(f"{manifest} is not readable JSON ({exc}); choose a new --out "
                                 "directory or delete it") from None
            done = len(self.finished())
            if old.get("fingerprint") == fingerprint:
                if done and not resume:
                    raise StoreError(
                        f"{self.root} already holds {done} finished cells of this experiment; "
                        "pass --resume to continue it, or choose a new --out directory")
                return True
            if done:
                raise StoreError(
                    f"{self.root} holds the results of another experiment "
                    f"({old.get('config', {}).get('name')!r}, fingerprint "
                    f"{old.get('fingerprint')}); choose a new --out directory or delete it")
            return False
        if self.root.exists() and any(self.root.iterdir()):
            raise StoreError(f"{self.root} is not empty and holds no experiment; choose a new "
                             "or empty --out directory")
        return False

    def open(self, config: dict, fingerprint: str, resume: bool) -> int:
        """Claim the directory for the experiment ``fingerprint`` (after :meth:`check`); return
        the number of finished cells already there. A directory claimed by another experiment
        that finished no cell is taken over: its manifest and fold cache are replaced."""
        if self.check(fingerprint, resume):
            for tmp in self.root.rglob("*.tmp"):  # partial writes of a killed run
                tmp.unlink(missing_ok=True)
            return len(self.finished())
        for path in [*self.cache.glob("*"), *self.root.glob("*.json")]:
            path.unlink()  # another experiment's, with no results: take it over
        self.cells.mkdir(parents=True, exist_ok=True)
        payload = {"fingerprint": fingerprint, "config": config}
        atomic_write_text(self.root / "experiment.json",
                          json.dumps(payload, indent=2, default=str))
        return 0

    def manifest(self) -> dict:
        path = self.root / "experiment.json"
        if not path.exists():
            raise StoreError(f"{self.root} holds no experiment (no experiment.json); run "
                             "`textsift run CONFIG.toml --out DIR` first")
        return json.loads(path.read_text(encoding="utf-8"))

    # ------------------------------------------------------------------ cells
    def finished(self) -> set[str]:
        if not self.cells.exists():
            return set()
        return {p.name for p in self.cells.glob("*.json")}

    def write_cell(self, name: str, rows: list[dict], timing: dict,
                   labels: list[dict] | None = None) -> None:
        cell = {"rows": rows, "timing": timing, **({"labels": labels} if labels else {})}
        atomic_write_text(self.cells / name, json.dumps(cell))

    def read_labels(self) -> pd.DataFrame:
        """The per-label rows of the cell files (empty unless the labels are label sets),
        sorted by their key and label."""
        rows = []
        for p in sorted(self.cells.glob("*.json")):
            rows.extend(json.loads(p.read_text(encoding="utf-8")).get("labels", ()))
        frame = pd.DataFrame(rows, columns=LABEL_COLUMNS).astype({"ratio": "float64"})
        return frame.sort_values(KEY + ["label"], kind="stable").reset_index(drop=True)

    def read_cells(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        rows, timings = [], []
        for p in sorted(self.cells.glob("*.json")):
            cell = json.loads(p.read_text(encoding="utf-8"))
            rows.extend(cell["rows"])
            timings.append({"cell": p.name, **cell["timing"]})
        results = pd.DataFrame(rows, columns=None if rows else COLUMNS + ["ratio"])
        extra = sorted(c for c in results.columns if c not in COLUMNS and c != "ratio")
        extra.sort(key=lambda c: c.startswith("val_"))  # tuned parameters, then validation
        results = results[COLUMNS + ["ratio", *extra]].astype({"ratio": "float64"})
        results = results.sort_values(KEY + ["ratio", "metric"], kind="stable")
        return results.reset_index(drop=True), pd.DataFrame(timings)

    # ------------------------------------------------------------------ tables
    def write_tables(self, terms: pd.DataFrame | None = None) -> pd.DataFrame:
        """Assemble ``results``, ``summary`` and ``timings`` from the cell files."""
        results, timings = self.read_cells()
        summary = summarise(results)
        for name, frame in (("results", results), ("summary", summary)):
            atomic_write(self.root / f"{name}.csv", lambda fh, f=frame: f.to_csv(fh, index=False))
            atomic_write(self.root / f"{name}.parquet",
                         lambda fh, f=frame: f.to_parquet(fh, index=False))
        atomic_write(self.root / "timings.csv", lambda fh: timings.to_csv(fh, index=False))
        if terms is not None:
            atomic_write(self.root / "terms.csv", lambda fh: terms.to_csv(fh, index=False))
        labels = self.read_labels()
        if len(labels):
            atomic_write(self.root / "labels.csv", lambda fh: labels.to_csv(fh, index=False))
            atomic_write(self.root / "labels.parquet",
                         lambda fh: labels.to_parquet(fh, index=False))
        return results

    def results(self) -> pd.DataFrame:
        path = self.root / "results.parquet"
        if not path.exists():
            raise StoreError(f"{self.root}: no results.parquet; finish the run first "
                             "(`textsift run CONFIG.toml --out DIR --resume`)")
        return pd.read_parquet(path)
