"""The results store of an experiment directory.

Layout of ``DIR``::

    experiment.json       the validated configuration, its fingerprint and the record of its
                          data (the data key, the corpus files' sizes and hashes: see
                          :mod:`.validity`)
    cache/fold-K.npz      matrices and counts of fold K (see :mod:`.folds`)
    trials/*.json         one file per finished trial, written atomically: its rows, its
                          timing, its key and what the key was taken from (:mod:`.validity`),
                          and the SHA-256 of all that (``sha256``, its last key); results
                          version 4 and earlier wrote them to ``cells/`` (``FORMER_TRIALS``),
                          which a run refuses with what to do (:func:`.validity.claim`)
    .textsift.lock        while a run writes here: its lock (``textsift._lock``)
    results.csv/.parquet  the long-form table, one row per (trial row, metric): COLUMNS, then
                          ``ratio`` (the fraction of the vocabulary asked for; 1 for "all"
                          and FFS, empty for a number of terms), with [selection] alphas
                          ``alpha`` (the significance level of the row, empty for the other
                          levels) and, with [tuning], the chosen parameters and the
                          validation value of the first metric
    summary.csv/.parquet  mean and std of each metric over folds (a level asked as a ratio,
                          an alpha or "all" has the folds' mean number of terms; ``folds``
                          counts the folds with a value: none where no term passed alpha)
    timings.csv           seconds per trial (selection, learner) -- not part of the results
    terms.csv             top terms of every selection on fold 0, for the report
    class_terms.csv       the terms of each class under every selection on fold 0, for the
                          report (:func:`textsift.selection.ranking.class_terms`)
    term_evidence.csv     the evidence and dispersion of the top terms of every selection
                          on fold 0, in their class, for the report
    run.json              the run's seconds, trials and fold 0's training documents
    labels.csv/.parquet   label sets only: each label's F1, precision and recall, and its
                          training and test documents, per row of the results (LABEL_COLUMNS)

A trial file is complete or absent (temporary file + ``os.replace``), so a run killed at any
point resumes from the trials on disk, and the table -- assembled from the files of the
experiment's trials and sorted by its key columns -- is the same as that of an uninterrupted
run. What may be resumed is decided by :mod:`.validity`; the store only reads and writes.

A file damaged after it was written -- cut short by a copy or a full disk, or altered -- is
found by :meth:`Store.damaged` before a resumed run uses it: a trial file that is not JSON,
lacks a part or whose ``sha256`` does not match its content; a fold file that is not a whole
zip archive or whose members fail their CRC-32 (the checksum every zip member carries); a
fold summary that is not JSON. The run says which, removes them and computes those trials and
folds again (a fold is rebuilt as it was: from the same data and seed).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from .._io import atomic_write, atomic_write_text
from .._lock import LOCK_NAME, check_held
from ..errors import OutputError, no_experiment

if TYPE_CHECKING:
    from .specs import Experiment, Trial

__all__ = ["COLUMNS", "KEY", "LABEL_COLUMNS", "DamagedFile", "Store", "StoreError", "by_level",
           "level_columns", "summarise"]

#: The columns that identify a trial of the results table.
KEY = ["dataset", "fold", "method", "aggregate", "n_features", "learner"]
#: The first columns of ``results.csv``: the key, the metric and its value.
COLUMNS = KEY + ["metric", "value"]
#: The columns of ``labels.csv``: the key, then one label's measures and documents.
LABEL_COLUMNS = KEY + ["ratio", "label", "f1", "precision", "recall", "train", "test"]


class StoreError(OutputError):
    """The output directory cannot be used as asked; the message says what to do."""


class DamagedFile(StoreError):
    """A result or cache file that is not what was written (cut short, or altered)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path} is damaged ({reason}); run again with --resume, which "
                         "computes it again")
        self.path, self.reason = path, reason


#: Where results version 4 and earlier kept the trial files: a directory holding them is an
#: earlier textsift's, which no run resumes (:func:`.validity.claim` says so).
FORMER_TRIALS = "cells"
#: The parts of a trial file.
TRIAL_PARTS = ("key", "spec", "rows", "timing")


def _digest(trial: dict) -> str:
    """The SHA-256 of a trial as written (its JSON, without the checksum)."""
    return hashlib.sha256(json.dumps(trial).encode("utf-8")).hexdigest()


def _short_reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def _npz_damage(path: Path) -> str | None:
    """What is wrong with the ``.npz`` at ``path`` (a zip archive of ``.npy`` members), or
    None: every member read and checked against its CRC-32."""
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        return f"not a whole zip archive: {_short_reason(exc)}"
    except Exception as exc:  # noqa: BLE001 (zlib's and zipfile's other errors)
        return f"unreadable: {_short_reason(exc)}"
    if bad is not None:
        return f"its member {bad} fails its CRC-32 check"
    if not names or not all(n.endswith(".npy") for n in names):
        return "not an archive of numpy arrays"
    return None


def level_columns(frame: pd.DataFrame) -> list[str]:
    """The columns that say which level a row is at besides ``n_features``: ``ratio``, and
    ``alpha`` in the tables of an experiment with alphas."""
    return ["ratio", *(["alpha"] if "alpha" in frame else [])]


def by_level(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``n_level``: its number of terms where the level is one (not a ratio,
    "all" or an alpha, whose folds keep different numbers): what groups rows by level."""
    given = frame[level_columns(frame)].notna().any(axis=1)
    return frame.assign(n_level=frame["n_features"].where(~given))


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and std (ddof=1; 0 for a single fold) of each metric over folds, per level: a
    number of terms, or a ratio (and "all", ratio 1) or an alpha, whose folds may keep
    different numbers of terms -- ``n_features`` is then their mean, rounded. A fold without
    a value (no term passed alpha) is left out of the mean and of ``folds``."""
    levels = level_columns(results)
    keys = ["dataset", "method", "aggregate", *levels, "n_level", "learner", "metric"]
    out = by_level(results).groupby(keys, sort=True, dropna=False).agg(
        n_features=("n_features", "mean"), mean=("value", "mean"), std=("value", "std"),
        folds=("value", "count")).reset_index()
    out["n_features"] = out["n_features"].round().astype("int64")
    out["std"] = out["std"].fillna(0.0)
    order = ["dataset", "method", "aggregate", "n_features", *levels, "learner", "metric"]
    return out.sort_values(order, kind="stable").reset_index(drop=True)[
        order + ["mean", "std", "folds"]]


class Store:
    """An experiment directory (see module docstring)."""

    def __init__(self, root):
        self.root = Path(root)
        self.trials = self.root / "trials"
        self.cache = self.root / "cache"

    # ------------------------------------------------------------------ the manifest
    def read_manifest(self) -> dict | None:
        """``experiment.json``, or ``None`` when there is none."""
        path = self.root / "experiment.json"
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise StoreError(f"{path} is not readable JSON ({exc}); choose a new --out "
                             "directory or delete it") from None

    def manifest(self) -> dict:
        found = self.read_manifest()
        if found is None:
            raise StoreError(*no_experiment(self.root).args)
        return found

    def experiment(self) -> Experiment:
        """The experiment the directory holds (``experiment.json``'s ``config``, read back
        into the value type, ``Experiment.from_dict``)."""
        from .specs import Experiment

        return Experiment.from_dict(self.manifest()["config"],
                                    str(self.root / "experiment.json"))

    def entries(self) -> list[Path]:
        """What the directory holds, besides a run's lock."""
        if not self.root.is_dir():
            return []
        return [p for p in self.root.iterdir() if p.name != LOCK_NAME]

    def claim(self, config: dict, fingerprint: str, data: dict) -> None:
        """Make the directory the experiment's: a directory of another experiment that
        finished no trial is taken over (its manifest and fold cache removed)."""
        for path in [*self.cache.glob("*"), *self.root.glob("*.json")]:
            path.unlink()
        former = self.root / FORMER_TRIALS
        if former.is_dir() and not any(former.iterdir()):  # an earlier textsift's, empty
            former.rmdir()
        self.trials.mkdir(parents=True, exist_ok=True)
        self.write_manifest(config, fingerprint, data)

    def write_manifest(self, config: dict, fingerprint: str, data: dict) -> None:
        payload = {"fingerprint": fingerprint, "config": config, "data": data}
        atomic_write_text(self.root / "experiment.json",
                          json.dumps(payload, indent=2, default=str))

    def clear_partial(self) -> None:
        """Remove the temporary files of a killed run's partial writes."""
        for tmp in self.root.rglob("*.tmp"):
            tmp.unlink(missing_ok=True)

    # ------------------------------------------------------------------ trials
    def finished(self) -> set[str]:
        if not self.trials.exists():
            return set()
        return {p.name for p in self.trials.glob("*.json")}

    def former_trials(self) -> int:
        """How many finished trials an earlier textsift left in ``cells/``
        (``FORMER_TRIALS``)."""
        return len(list((self.root / FORMER_TRIALS).glob("*.json")))

    def trial_records(self) -> dict[str, dict]:
        """Every finished trial's key and the spec it was taken from."""
        out = {}
        for p in sorted(self.trials.glob("*.json")) if self.trials.exists() else ():
            trial = self.read_trial(p.name)
            out[p.name] = {"key": trial["key"], "spec": trial["spec"]}
        return out

    def read_trial(self, name: str) -> dict:
        """The trial file ``name``, checked whole (:class:`DamagedFile` otherwise)."""
        path = self.trials / name
        try:
            trial = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise DamagedFile(path, f"not readable JSON: {_short_reason(exc)}") from None
        if not isinstance(trial, dict) or not all(k in trial for k in TRIAL_PARTS):
            raise DamagedFile(path, f"a trial file has {', '.join(TRIAL_PARTS)}")
        digest = trial.pop("sha256", None)  # files of earlier versions have none
        if digest is not None and digest != _digest(trial):
            raise DamagedFile(path, "its content does not match its SHA-256 checksum")
        return trial

    def damaged(self) -> dict[Path, str]:
        """The damaged files a resumed run would use -- trials, folds and the folds' summary
        -- each with what is wrong with it (module docstring); nothing is changed."""
        found = {}
        for name in sorted(self.finished()):
            try:
                self.read_trial(name)
            except DamagedFile as exc:
                found[exc.path] = exc.reason
        for path in sorted(self.cache.glob("fold-*.npz")) if self.cache.is_dir() else ():
            reason = _npz_damage(path)
            if reason is not None:
                found[path] = reason
        summary = self.cache / "folds.json"
        if summary.is_file():
            try:
                if not isinstance(json.loads(summary.read_text(encoding="utf-8")), list):
                    raise ValueError("not a list of folds")
            except (ValueError, UnicodeDecodeError) as exc:
                found[summary] = f"not readable JSON: {_short_reason(exc)}"
        return found

    def write_trial(self, name: str, rows: list[dict], timing: dict, key: str,
                    spec: dict, labels: list[dict] | None = None,
                    owner: int | None = None) -> None:
        """Write a finished trial: its key and spec, its rows and timing, and for label sets
        its per-label rows (``LABEL_COLUMNS``). A worker passes the pid of the run it works
        for (``owner``): the trial is written only while that run holds the directory's lock
        (``textsift._lock.check_held``), so a worker outliving its run writes nothing."""
        trial = {"key": key, "spec": spec, "rows": rows, "timing": timing,
                 **({"labels": labels} if labels else {})}
        trial["sha256"] = _digest(trial)
        check = None if owner is None else lambda: check_held(self.root, owner)
        atomic_write_text(self.trials / name, json.dumps(trial), check)

    def read_trials(self, trials: list[Trial]
                    ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The rows, timings and per-label rows (empty unless the labels are label sets) of
        ``trials``, from their files; the per-label rows sorted by their key and label."""
        rows, timings, per_label = [], [], []
        for trial in sorted(trials, key=lambda c: c.name):
            stored = self.read_trial(trial.name)
            rows.extend(_rows_of(trial, stored["rows"]))
            timings.append({"trial": trial.name, **stored["timing"]})
            if stored.get("labels"):
                per_label.extend(_rows_of(trial, stored["labels"]))
        results = pd.DataFrame(rows, columns=None if rows else COLUMNS + ["ratio"])
        levels = level_columns(results)
        extra = sorted(c for c in results.columns if c not in COLUMNS + levels)
        extra.sort(key=lambda c: c.startswith("val_"))  # tuned parameters, then validation
        floats = dict.fromkeys(levels, "float64")
        results = results[COLUMNS + levels + extra].astype(floats)
        results = results.sort_values(KEY + levels + ["metric"], kind="stable")
        columns = KEY + levels + LABEL_COLUMNS[len(KEY) + 1:]  # its own level columns
        labels = pd.DataFrame(per_label, columns=columns).astype(floats)
        labels = labels.sort_values(KEY + levels + ["label"], kind="stable")
        return (results.reset_index(drop=True), pd.DataFrame(timings),
                labels.reset_index(drop=True))

    # ------------------------------------------------------------------ tables
    def write_tables(self, trials: list[Trial], terms: pd.DataFrame | None = None,
                     class_terms: pd.DataFrame | None = None,
                     term_evidence: pd.DataFrame | None = None) -> pd.DataFrame:
        """Assemble ``results``, ``summary`` and ``timings`` from the files of ``trials``;
        write the report's ``terms``, ``class_terms`` and ``term_evidence`` when given."""
        results, timings, labels = self.read_trials(trials)
        summary = summarise(results)
        for name, frame in (("results", results), ("summary", summary)):
            atomic_write(self.root / f"{name}.csv", lambda fh, f=frame: f.to_csv(fh, index=False))
            atomic_write(self.root / f"{name}.parquet",
                         lambda fh, f=frame: f.to_parquet(fh, index=False))
        atomic_write(self.root / "timings.csv", lambda fh: timings.to_csv(fh, index=False))
        for name, frame in (("terms", terms), ("class_terms", class_terms),
                            ("term_evidence", term_evidence)):
            if frame is not None:
                atomic_write(self.root / f"{name}.csv",
                             lambda fh, f=frame: f.to_csv(fh, index=False))
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


def _rows_of(trial: Trial, rows: list[dict]) -> list[dict]:
    """A trial's rows under the names the experiment gives them now: its dataset's name (when
    its rows have one), and for an ``all`` trial (every method at level "all", and FFS), a
    ``triv`` trial (a row per learner) and a trial at an alpha level (a row per policy), whose
    rows are one measurement under several names, the names of an experiment that grew (a
    method, a learner, a baseline, a policy added)."""
    named = {r["dataset"] for r in rows}
    if len(named) == 1 and named != {trial.dataset}:  # the dataset was renamed
        rows = [{**r, "dataset": trial.dataset} for r in rows]
    names = {(r["method"], r["aggregate"], r["learner"]) for r in rows}
    wanted = {(m, a, lb) for m, a in trial.rows for lb in trial.learner_names}
    if trial.kind == "select" and trial.level.kind != "alpha" or names == wanted:
        return rows
    first = min(names)
    one = [r for r in rows if (r["method"], r["aggregate"], r["learner"]) == first]
    return [{**r, "method": m, "aggregate": a, "learner": lb}
            for m, a in trial.rows for lb in trial.learner_names for r in one]
