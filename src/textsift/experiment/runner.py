"""Run an experiment: plan its cells, run the missing ones in parallel, assemble the tables.

The cells are (fold, method, aggregate, size, learner). Folds are prepared once and cached
(:mod:`.folds`); cells run under joblib, each written to the store by the worker that ran it
as soon as it finishes (:mod:`.store`). The table depends only on the configuration and the
seed -- not on ``n_jobs``, on the order cells finish in, or on how many times the run was
interrupted -- because every cell is a pure function of its fold's cache and its own key, and
the table is assembled from the cell files in sorted order.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .._io import atomic_write
from ..scores import get_method
from ..selectors import rank
from .cells import run_cell
from .config import POSITIVE_METRICS, ConfigError, Experiment
from .folds import load_fold, prepare_folds
from .store import Store, cell_name

__all__ = ["RunSummary", "plan_cells", "resolve_sizes", "run_experiment"]


@dataclass
class RunSummary:
    results: pd.DataFrame
    n_cells: int
    n_run: int
    wall_s: float
    notes: list[str] = field(default_factory=list)


def resolve_sizes(sizes, vocab_sizes) -> tuple[list[int], list[str]]:
    """Numbers of terms to evaluate, given the vocabulary size of every fold.

    ``"all"`` is the smallest fold vocabulary; a size above it is clipped to it (and a note
    says so), so that every fold evaluates the same sizes. Sorted, without duplicates.
    """
    v = int(min(vocab_sizes))
    out, notes = [], []
    for s in sizes:
        if s == "all":
            out.append(v)
        elif s > v:
            notes.append(f"size {s:,} is larger than the vocabulary ({v:,} terms"
                         f"{' in the smallest fold' if len(vocab_sizes) > 1 else ''}); "
                         f"clipped to {v:,}")
            out.append(v)
        else:
            out.append(int(s))
    return sorted(set(out)), notes


def method_aggregates(exp: Experiment) -> tuple[list[tuple[str, str]], list[str]]:
    """(method, aggregate) pairs: ``"default"`` is the method's own policy; a policy a method
    does not offer (e.g. ``rr`` for the global ``ig_multi``) is skipped with a note. In
    one-vs-rest tasks a per-class method ranks by the positive class (policy ``"pos"``)."""
    pairs, notes = [], []
    for name in exp.methods:
        m = get_method(name)
        if exp.tasks == "one_vs_rest":
            pairs.append((name, "pos" if len(m.aggregates) > 1 else m.default_aggregate))
            continue
        for a in exp.aggregates:
            a = m.default_aggregate if a == "default" else a
            if a not in m.aggregates:
                notes.append(f"{name} has no '{a}' policy (it offers {', '.join(m.aggregates)});"
                             " skipped")
            elif (name, a) not in pairs:
                pairs.append((name, a))
    return pairs, notes


def plan_cells(exp: Experiment, fold_paths, sizes, pairs, root: Path, tasks=(None,)
               ) -> list[dict]:
    """Every cell of the experiment as a plain dict, ordered fold by fold and ranking by
    ranking (so a worker's memoised ranking serves the cells that follow). ``tasks`` are the
    positive classes of one-vs-rest tasks (``None``: the multi-class task)."""
    ranks = list(exp.corpus.ranks) if exp.corpus.ranks else None
    k = max(sizes)
    cells = []
    for fold, path in enumerate(fold_paths):
        for task, (method, aggregate) in itertools.product(tasks, pairs):
            dataset = exp.corpus.dataset if task is None else f"{exp.corpus.dataset}:{task}"
            for n in sizes:
                for learner in exp.learners:
                    cells.append({
                        "name": cell_name(fold, method, aggregate, n, learner.label, task),
                        "root": str(root), "fold_path": str(path), "fold": fold, "task": task,
                        "dataset": dataset, "method": method, "aggregate": aggregate,
                        "n_features": n, "k": k, "rr_variant": exp.rr_variant,
                        "params": tuple(sorted(exp.params_of(method).items())),
                        "learner": learner, "seed": exp.seed, "ranks": ranks,
                        "metrics": list(exp.metrics)})
    return cells


def _run_and_store(cell: dict) -> str:
    out = run_cell(cell)
    Store(cell["root"]).write_cell(out["name"], out["rows"], out["timing"])
    return out["name"]


def top_terms(fold_path, pairs, top: int = 20) -> pd.DataFrame:
    """The ``top`` terms of every (method, aggregate) on one fold, for the report (for
    one-vs-rest experiments: of the multi-class task, under each method's own policy)."""
    counts = load_fold(str(fold_path)).counts
    frames = []
    for method, aggregate in pairs:
        policy = get_method(method).default_aggregate if aggregate == "pos" else aggregate
        r = rank(counts, method, policy, top=top)
        frames.append(r.assign(method=method, aggregate=aggregate))
    return pd.concat(frames, ignore_index=True)[["method", "aggregate", "rank", "term",
                                                 "score", "group"]]


def _vocab_size(path) -> int:
    with np.load(path, allow_pickle=False) as z:
        return int(z["Xtr_shape"][1])


def run_experiment(exp: Experiment, out, resume: bool = False, n_jobs: int | None = None,
                   console: Console | None = None) -> RunSummary:
    """Run (or resume) ``exp`` into the directory ``out``; return the results table."""
    console = console or Console(stderr=True)
    t0 = time.perf_counter()
    store = Store(out)
    store.open(exp.as_dict(), exp.fingerprint, resume)
    n_jobs = n_jobs or exp.n_jobs
    def log(message):
        console.print(escape(message), highlight=False)

    fold_paths = prepare_folds(exp, store.cache, log=log, n_jobs=n_jobs)
    prepare_s = time.perf_counter() - t0
    sizes, notes = resolve_sizes(exp.sizes, [_vocab_size(p) for p in fold_paths])
    pairs, skipped = method_aggregates(exp)
    notes += skipped
    for note in notes:
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    atomic_write(store.root / "notes.json", lambda fh: fh.write(json.dumps(notes).encode()))
    classes = load_fold(str(fold_paths[0])).counts.classes
    if set(exp.metrics) & set(POSITIVE_METRICS) and exp.tasks == "multiclass" and (
            list(map(str, classes)) != ["neg", "pos"]):
        raise ConfigError(f"{exp.source}: f1_pos, precision_pos and recall_pos need binary "
                          f"labels 'neg'/'pos' or tasks = 'one_vs_rest' (labels: "
                          f"{list(classes)[:5]})")
    tasks = list(classes) if exp.tasks == "one_vs_rest" else [None]
    cells = plan_cells(exp, fold_paths, sizes, pairs, store.root, tasks)
    done = store.finished()
    pending = [c for c in cells if c["name"] not in done]
    if len(cells) - len(pending):
        console.print(f"resuming: {len(cells) - len(pending)} of {len(cells)} cells already "
                      "done", highlight=False)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(escape(exp.name), total=len(cells),
                                 completed=len(cells) - len(pending))
        jobs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
        for _ in jobs(delayed(_run_and_store)(c) for c in pending):
            progress.advance(task)
    results = store.write_tables(top_terms(fold_paths[0], pairs))
    wall = time.perf_counter() - t0
    run = {"wall_s": wall, "prepare_s": prepare_s, "n_jobs": n_jobs, "cells": len(cells),
           "cells_run": len(pending)}
    atomic_write(store.root / "run.json", lambda fh: fh.write(json.dumps(run).encode()))
    return RunSummary(results, len(cells), len(pending), wall, notes)
