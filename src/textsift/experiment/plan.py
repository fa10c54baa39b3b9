"""The plan of an experiment: its levels, its (method, policy) pairs and its cells.

A *level* says how many terms a cell keeps, per fold: ``("n", 300)`` (a number of terms, the
same in every fold), ``("ratio", 0.1)`` (a fraction of the fold's training vocabulary) or
``("all", None)`` (every term of the fold's own vocabulary, whatever the method). A *cell*
is a plain dict (cheap to send to a worker) of one of three kinds:

* ``select``: (fold, task, method, policy, level, learner) -- select, fit, measure;
* ``all``: (fold, task, learner) -- the learner on every term; its rows are those of every
  method at level "all" and of the FFS baseline, which are one and the same fit;
* ``triv``: (fold, task) -- the trivial predictor (the middle rank of an ordinal scale, the
  majority class of a nominal task), one row per learner for the figures.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from ..policies import n_from_ratio
from ._methods import method_param_names, method_policies
from .config import Experiment
from .schema import LEARNERS

__all__ = ["cell_name", "level_name", "method_aggregates", "n_kept", "plan_cells",
           "resolve_levels"]

ALL = ("all", None)


def resolve_levels(exp: Experiment, vocab_sizes) -> tuple[list[tuple], list[str]]:
    """The levels of ``exp`` given every fold's vocabulary size, and notes for the user.

    A size at or above every fold's vocabulary keeps all terms: it is the level "all". A
    size between the smallest and the largest fold vocabulary is clipped to the smallest, so
    that every fold evaluates the same number of terms. A ratio of 1 is "all"."""
    lo, hi = int(min(vocab_sizes)), int(max(vocab_sizes))
    several = len(vocab_sizes) > 1
    levels, notes = set(), []
    for r in exp.ratios:
        levels.add(ALL if r >= 1 else ("ratio", r))
    for s in exp.sizes:
        if s == "all" or s >= hi:
            levels.add(ALL)
            if s != "all" and s > hi:
                notes.append(f"size {s:,} is larger than the vocabulary ({hi:,} terms"
                             f"{' in the largest fold' if several else ''}); it keeps every "
                             "term, as \"all\" does")
        elif s > lo:
            notes.append(f"size {s:,} is larger than the vocabulary of the smallest fold "
                         f"({lo:,} terms); clipped to {lo:,}")
            levels.add(("n", lo))
        else:
            levels.add(("n", int(s)))
    order = {"n": 0, "ratio": 1, "all": 2}
    return sorted(levels, key=lambda lv: (order[lv[0]], lv[1] or 0)), notes


def level_name(level: tuple) -> str:
    """How a level reads in cell names: ``"all"``, a number of terms, or ``r<ratio>``."""
    kind, value = level
    return "all" if kind == "all" else str(value) if kind == "n" else f"r{value:g}"


def n_kept(level: tuple, n_seen: int, n_terms: int) -> int | None:
    """Terms a level keeps in a part with ``n_seen`` ranked terms out of ``n_terms``
    (``None``: every column)."""
    kind, value = level
    if kind == "all":
        return None
    if kind == "ratio":
        return n_from_ratio(value, max(n_seen, 1))
    return min(value, n_terms)


def method_aggregates(exp: Experiment) -> tuple[list[tuple[str, str]], list[str]]:
    """(method, aggregate) pairs: ``"default"`` is the method's own policy; a policy a method
    does not offer (e.g. ``rr`` for the global ``ig_multi``) is skipped with a note. In
    one-vs-rest tasks a per-class method ranks by the positive class (policy ``"pos"``)."""
    pairs, notes = [], []
    for name in exp.methods:
        default, offered = method_policies(name)
        if exp.tasks == "one_vs_rest":
            pairs.append((name, "pos" if len(offered) > 1 else default))
            continue
        for a in exp.aggregates:
            a = default if a == "default" else a
            if a not in offered:
                notes.append(f"{name} has no '{a}' policy (it offers {', '.join(offered)});"
                             " skipped")
            elif (name, a) not in pairs:
                pairs.append((name, a))
    return pairs, notes


def _safe(text) -> str:
    return "".join(c if c.isalnum() or c in "._" else "-" for c in str(text))


def cell_name(fold, method, aggregate, level, learner, task=None) -> str:
    """The file name of a cell: unique per key, the same in every run of the experiment."""
    prefix = "" if task is None else "t" + _safe(task)
    if method == "triv":
        return f"{prefix}f{fold}__triv.json"
    if method is None:
        return f"{prefix}f{fold}__all__{_safe(learner)}.json"
    return (f"{prefix}f{fold}__{_safe(method)}__{aggregate}__{level_name(level)}__"
            f"{_safe(learner)}.json")


def _grids(exp: Experiment, method: str | None, learner) -> dict | None:
    """The tuning grid of one cell: the method's own parameters (none at level "all"), then
    the learner's, in the order of the file."""
    if exp.tuning is None:
        return None
    own = set(method_param_names(method)) if method else set()
    accepted = set(LEARNERS[learner.name][1])
    grid = [(k, v) for k, v in exp.tuning.grids if k in own]
    grid += [(k, v) for k, v in exp.tuning.grids if k in accepted]
    return {"val_size": exp.tuning.val_size, "method": [k for k, _ in grid if k in own],
            "grid": grid}


def plan_cells(exp: Experiment, fold_paths, levels, pairs, root: Path, tasks=(None,)
               ) -> list[dict]:
    """Every cell of the experiment, ordered fold by fold and ranking by ranking (so a
    worker's memoised ranking serves the cells that follow). ``tasks`` are the positive
    classes of one-vs-rest tasks (``None``: the multi-class task)."""
    selected = [lv for lv in levels if lv != ALL]
    top = max(selected, key=lambda lv: lv[1]) if selected else None
    at_all = [*(pairs if ALL in levels else []), *([("ffs", "none")] if "ffs" in
                                                  exp.baselines else [])]
    common = {"root": str(root), "seed": exp.seed, "metrics": list(exp.metrics),
              "ranks": list(exp.corpus.ranks) if exp.corpus.ranks else None,
              "ordinal": exp.corpus.task == "ordinal", "rr_variant": exp.rr_variant,
              "top": top}
    cells = []
    for (fold, path), task in itertools.product(enumerate(fold_paths), tasks):
        dataset = exp.corpus.dataset if task is None else f"{exp.corpus.dataset}:{task}"
        base = {**common, "fold_path": str(path), "fold": fold, "task": task,
                "dataset": dataset}
        if "triv" in exp.baselines:
            cells.append({**base, "kind": "triv", "name": cell_name(fold, "triv", None, None,
                                                                    None, task),
                          "rows": [("triv", "none")], "learners": [lr.label for lr in
                                                                   exp.learners]})
        if at_all:
            for learner in exp.learners:
                cells.append({**base, "kind": "all", "rows": at_all, "learner": learner,
                              "level": ALL, "method": None, "aggregate": None, "params": (),
                              "tuning": _grids(exp, None, learner),
                              "name": cell_name(fold, None, None, ALL, learner.label, task)})
        for (method, aggregate), level, learner in itertools.product(pairs, selected,
                                                                     exp.learners):
            cells.append({**base, "kind": "select", "rows": [(method, aggregate)],
                          "method": method, "aggregate": aggregate, "level": level,
                          "learner": learner,
                          "params": tuple(sorted(exp.params_of(method).items())),
                          "tuning": _grids(exp, method, learner),
                          "name": cell_name(fold, method, aggregate, level, learner.label,
                                            task)})
    return cells
