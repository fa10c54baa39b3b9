"""Run an experiment: plan its trials (:mod:`.plan`), run the missing ones, assemble the table.

Every (fold, method, policy, level, learner) trial, plus the FFS and Triv baselines, is
independent given its fold's cached matrices and counts. Folds are prepared once and cached
(:mod:`.folds`); trials run under joblib, each written to the store by the worker that ran it
as soon as it finishes (:mod:`.store`). The table depends only on the configuration and the
seed -- not on ``n_jobs``, on the order trials finish in, or on how many times the run was
interrupted -- because every trial is a pure function of its fold's cache and its own key, and
the table is assembled from the trial files in sorted order.

A run holds its directory's lock (``textsift._lock``: one writer per directory) from
its first check to its last file, and keeps the finished trials that are still valid for the
experiment and its data (:mod:`.validity`): a changed corpus or preprocessing is refused, an
experiment that grew (methods, sizes, learners added) computes only its new trials.

The runner hands on what it computed: fold 0 stays open in its process as it was built (the
trials run here read it without opening its file), the fold cache's summary gives every fold's
vocabulary size and notes, and the report's terms are taken from the scores fold 0's trials
computed (:func:`report_terms`); the report reads them (``terms.csv``, ``class_terms.csv``,
``run.json``) and opens no fold.

The runner never prints: it reports through two optional callbacks, ``log(message)`` (one
line of news: folds built, notes, a resumed run) and ``progress(done, total)`` (trials), which
the command line draws with rich.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import delayed

from .._io import atomic_write
from .._lock import hold, parallel
from ..errors import DataWarning, check_n_jobs
from ..learners.metrics import MEASURES
from ..selection.ranking import default_aggregate
from ._keys import ConfigError
from ._methods import resolve_method
from ._shown import term_evidence
from ._tasks import for_labels
from .folds import (
    SUMMARY,
    fold_paths,
    fold_summaries,
    kind_of,
    load_fold,
    prepare_documents,
    prepare_folds,
)
from .loaded import LoadedFold, keep_open
from .plan import Selection, plan_trials, resolve_levels, selections
from .specs import Experiment, FoldRef, Trial
from .store import Store
from .trials import run_trial
from .validity import DataKey, claim, reusable, trial_key, trial_spec

__all__ = ["RunSummary", "report_terms", "run_experiment"]


@dataclass
class RunSummary:
    results: pd.DataFrame
    n_trials: int
    n_run: int
    wall_s: float
    notes: list[str] = field(default_factory=list)


def _run_and_store(trial: Trial, root, data_key: str, owner: int) -> str:
    """Run a trial and write it (in a worker: only while the run ``owner`` holds ``root``)."""
    out = run_trial(trial)
    Store(root).write_trial(out.name, out.rows, out.timing, trial_key(trial, data_key),
                            trial_spec(trial), out.labels, owner=owner)
    return out.name


def report_terms(exp: Experiment, fold: LoadedFold, chosen: list[Selection]
                 ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """What the report shows of fold 0 (``fold``, kept open with ``hand_on``), from the
    scores its trials computed in this process (computed here for the others): the first
    :data:`~.loaded.REPORT_TOP` terms of every selection's ranking, with their training
    document frequency ``df`` (``terms.csv``), the terms of each class
    (``class_terms.csv``: :func:`textsift.selection.ranking.class_terms`) -- of the multi-class
    task,
    under the method's own policy for a selection by a column (one-vs-rest tasks, the scope
    "local") --, and the evidence and dispersion of the first terms of every selection in
    their class (``term_evidence.csv``: ``_shown.term_evidence``)."""
    counts = fold.data.counts
    tops, classes, shown_terms = [], [], []
    for sel in chosen:
        policy = sel.aggregate or default_aggregate(resolve_method(sel.method))
        params = tuple(sorted(exp.params_of(sel.method).items()))
        shown = fold.report_terms(sel.method, params, policy, exp.rr_variant)
        method, aggregate = sel.row
        shown_terms.append((sel.row, shown))
        tops.append(pd.DataFrame({"method": method, "aggregate": aggregate,
                                  "position": np.arange(1, len(shown.index) + 1),
                                  "term": counts.feature_names[shown.index],
                                  "score": shown.scores, "df": counts.df[shown.index]}))
        classes.append(shown.classes.rename_axis("class").reset_index().assign(
            method=method, aggregate=aggregate, own_column=shown.classes.attrs["own_column"]))
    order = ["method", "aggregate", "class", "training documents", "terms", "own_column"]
    return (pd.concat(tops, ignore_index=True),
            pd.concat(classes, ignore_index=True)[order],
            term_evidence(exp, fold.data, shown_terms))


def _nothing_passed(results: pd.DataFrame) -> str | None:
    """A note naming the alpha levels at which no term passed in some fold (no learner was
    fitted there: no value), or None."""
    if "alpha" not in results:
        return None
    empty = results[results["alpha"].notna() & results["value"].isna()]
    if empty.empty:
        return None
    found = empty.drop_duplicates(["method", "alpha", "dataset", "fold"])
    tasks = results["dataset"].nunique() > 1  # one-vs-rest: a fold of each task
    where = "; ".join(f"{m} at alpha {a:g} in {len(g)} fold(s)"
                      + (f" of {g['dataset'].nunique()} tasks" if tasks else "")
                      for (m, a), g in found.groupby(["method", "alpha"], sort=True))
    return (f"no term passed ({where}): no learner was fitted there, and those folds have no "
            "value (the means are over the others, `folds` counts them); raise the alpha or "
            "choose a milder correction")


def run_experiment(exp: Experiment, out, resume: bool = False, n_jobs: int | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   log: Callable[[str], None] | None = None) -> RunSummary:
    """Run (or resume) ``exp`` into the directory ``out``; return the results table.

    ``log(message)`` receives a line for each step and note (``"note: ..."``);
    ``progress(done, total)`` is called with the number of finished trials, once before the
    first trial runs and after each one."""
    def say(message: str) -> None:
        if log is not None:
            log(message)

    t0 = time.perf_counter(), time.process_time()
    n_jobs = check_n_jobs(exp.n_jobs if n_jobs is None else n_jobs, "n_jobs (--n-jobs)")
    with hold(out, note=lambda message: say(f"note: {message}")):
        return _run(exp, Store(out), resume, n_jobs, progress, say, t0)


def _checked(exp: Experiment, store: Store, claimed, n_jobs: int, say, damaged=()):
    """``(exp, prepared, first)``: the experiment for its labels, its corpus read and counted
    when its folds are not cached (:class:`~.folds.Prepared`, else ``None``), and fold 0 --
    every check of the data against the file done, before anything is written. The
    ``damaged`` files (:meth:`.Store.damaged`) count as missing."""
    cache = fold_paths(exp, store.cache)
    cached = not claimed.fresh and all(p.exists() and p not in damaged for p in cache) and (
        store.cache / SUMMARY not in damaged and fold_summaries(store.cache) is not None)
    prepared = None if cached else prepare_documents(exp, log=say, n_jobs=n_jobs)
    first = load_fold(cache[0]) if cached else prepared.first
    exp = prepared.exp if prepared else for_labels(exp, kind_of(exp, first.counts.multilabel))
    classes = first.counts.classes
    if exp.kind.label_sets and not cached:  # a label set without labels, refused before writing
        try:
            LoadedFold(first).label_columns(exp.label_set)
        except ConfigError as exc:
            raise ConfigError(f"{exp.source}: {exc}") from None
    if any(MEASURES[m].positive for m in exp.metrics) and exp.tasks == "multiclass" and (
            list(map(str, classes)) != ["neg", "pos"]):
        *some, last = [n for n, m in MEASURES.items() if m.positive]
        raise ConfigError(f"{exp.source}: {', '.join(some)} and {last} need binary labels "
                          f"'neg'/'pos' or tasks = 'one_vs_rest' (labels: {list(classes)[:5]})")
    return exp, prepared, first


def _set_aside(damaged: dict) -> None:
    """Remove the damaged files of a resumed run, each said in a warning
    (:class:`~textsift.errors.DataWarning`): the run computes them again."""
    for path, reason in damaged.items():
        what = "fold" if path.suffix == ".npz" else "trial" if path.parent.name == "trials" \
            else "summary of the folds"
        warnings.warn(f"{path} is damaged ({reason}); the {what} is computed again",
                      DataWarning, stacklevel=3)
        path.unlink(missing_ok=True)


def _run(exp: Experiment, store: Store, resume: bool, n_jobs: int, progress, say,
         t0: tuple[float, float]) -> RunSummary:
    # every check of the data and the configuration runs before the first file is written:
    # a run refused for bad input leaves --out as it found it
    data = DataKey.of(exp)
    claimed = claim(store, exp, data, resume)
    damaged = {} if claimed.fresh else store.damaged()
    exp, prepared, first = _checked(exp, store, claimed, n_jobs, say, damaged)
    classes = first.counts.classes
    if claimed.fresh:
        store.claim(exp.as_dict(), exp.fingerprint, data.record())
    else:
        store.clear_partial()
        _set_aside(damaged)
    paths = prepare_folds(exp, store.cache, log=say, n_jobs=n_jobs, prepared=prepared)
    summaries = fold_summaries(store.cache)
    prepare_s, prepare_cpu_s = time.perf_counter() - t0[0], time.process_time() - t0[1]
    refs = [FoldRef.of(p) for p in paths]
    fold0 = keep_open(refs[0], first, hand_on=True)  # its trials, here, hand on their scores
    levels, notes = resolve_levels(exp, [s["n_terms"] for s in summaries])
    chosen, skipped = selections(exp)
    notes += skipped + [note for s in summaries for note in s["notes"]]
    if not exp.kind.stratified and (exp.protocol == "cv" or exp.test_size) and exp.stratified:
        notes.append("the folds of label sets are not stratified (scikit-learn has no "
                     "multi-label stratification): shuffled KFold, or a random test part")
    positives = list(classes) if exp.tasks == "one_vs_rest" else [None]
    trials = plan_trials(exp, refs, levels, chosen, positives)
    done = reusable(store, claimed, trials, data)  # refuses finished trials no longer valid
    if not claimed.fresh:
        store.write_manifest(exp.as_dict(), exp.fingerprint, data.record())
    for note in notes:
        say(f"note: {note}")
    atomic_write(store.root / "notes.json", lambda fh: fh.write(json.dumps(notes).encode()))
    pending = [c for c in trials if c.name not in done]
    if done:
        grown = (f"; the experiment changed ({'; '.join(claimed.changes)}): "
                 f"{len(pending)} new trials to run" if claimed.changes else "")
        say(f"resuming: {len(done)} of {len(trials)} trials already done{grown}")
    finished = len(done)
    if progress is not None:
        progress(finished, len(trials))
    owner = os.getpid()  # its workers end with it (parallel) and write only while it holds root
    jobs = parallel(n_jobs, return_as="generator_unordered")
    for _ in jobs(delayed(_run_and_store)(c, store.root, data.key, owner) for c in pending):
        finished += 1
        if progress is not None:
            progress(finished, len(trials))
    c_tables = time.process_time()
    results = store.write_tables(trials, *report_terms(exp, fold0, chosen))
    tables_cpu_s = time.process_time() - c_tables
    empty = _nothing_passed(results)
    if empty:
        say(f"note: {empty}")
        notes.append(empty)
        atomic_write(store.root / "notes.json", lambda fh: fh.write(json.dumps(notes).encode()))
    wall = time.perf_counter() - t0[0]
    run = {"wall_s": wall, "prepare_s": prepare_s, "prepare_cpu_s": prepare_cpu_s,
           "tables_cpu_s": tables_cpu_s, "n_jobs": n_jobs, "trials": len(trials),
           "trials_run": len(pending), "fold_0_documents": int(first.counts.n_docs)}
    atomic_write(store.root / "run.json", lambda fh: fh.write(json.dumps(run).encode()))
    return RunSummary(results, len(trials), len(pending), wall, notes)
