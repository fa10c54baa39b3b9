"""The plan of an experiment: its levels, its selections and its trials.

A *level* (:class:`~.specs.Level`) says how many terms a trial keeps, per fold: a number, a
fraction of the vocabulary, every term, or those whose adjusted p-value passes an alpha. A
*selection*
(:class:`Selection`) says how a trial ranks the terms it keeps: a method, and a policy over
every class's scores (the scope ``global``) or a column of the scores -- each label's own
(the scope ``local``, label sets) or the positive class's of a one-vs-rest task. A *trial*
(:class:`~.specs.Trial`) is one of three kinds:

* ``select``: (fold, binary task, selection, level, learner) -- select, fit, measure; at an
  alpha level (fold, binary task, method and scope or class column, alpha, learner), its rows
  those of every policy of the method (the same terms pass whatever the policy);
* ``all``: (fold, binary task, learner) -- the learner on every term; its rows are those of
  every method at level "all" and of the FFS baseline, which are one and the same fit;
* ``triv``: (fold, binary task) -- the trivial predictor (the middle rank of an ordinal scale, the
  majority class of a nominal task), one row per learner for the figures.

(The binary task, in one-vs-rest experiments, is named by its positive class; otherwise
there is one, multi-class, task. Label sets are one task of a binary learner per label; their
trials carry the experiment's ``label_set``.)

The results name a selection's rows by its method and, in the ``aggregate`` column, its
policy, or ``local`` (each label's own column), ``pos`` (the positive class's column) or
``none`` (the rows of FFS and Triv, which select nothing): :attr:`Selection.row`.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

from ..scores import SIGNED_POLICIES, get_method, policy_refusal, with_pvalues
from ._methods import method_param_names, offered_aggregates, untested
from .specs import ALL, Experiment, FoldRef, LearnerSpec, Level, Trial, TrialTuning

__all__ = ["NO_SELECTION", "Selection", "trial_name", "plan_trials", "resolve_levels",
           "selections"]

#: The ``aggregate`` of the rows of a baseline that selects nothing (FFS, Triv).
NO_SELECTION = "none"


class Selection(NamedTuple):
    """How a trial ranks the terms it keeps: ``method`` and ``aggregate``, the policy over
    every class's scores (``None`` when one column ranks), in the ``scope`` ``"global"``; or
    each label's own column of the scores, in the scope ``"local"`` (label sets); or the
    column of ``class_label``, the positive class ``"pos"`` of a one-vs-rest task."""

    method: str
    aggregate: str | None
    scope: str = "global"
    class_label: str | None = None

    @property
    def row(self) -> tuple[str, str]:
        """Its rows' names in the results: the method and the ``aggregate`` column -- the
        policy, ``"local"`` or the class whose column ranks (``"pos"``)."""
        column = self.aggregate or ("local" if self.scope == "local" else self.class_label)
        return self.method, column


def resolve_levels(exp: Experiment, vocab_sizes) -> tuple[list[Level], list[str]]:
    """The levels of ``exp`` given every fold's vocabulary size, and notes for the user.

    A size at or above every fold's vocabulary keeps all terms: it is the level "all". A
    size between the smallest and the largest fold vocabulary is clipped to the smallest, so
    that every fold evaluates the same number of terms. A ratio of 1 is "all"."""
    lo, hi = int(min(vocab_sizes)), int(max(vocab_sizes))
    several = len(vocab_sizes) > 1
    levels, notes = {Level("alpha", a) for a in exp.alphas}, []
    for r in exp.ratios:
        levels.add(ALL if r >= 1 else Level("ratio", r))
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
            levels.add(Level("n", lo))
        else:
            levels.add(Level("n", int(s)))
    order = {"n": 0, "ratio": 1, "alpha": 2, "all": 3}
    return sorted(levels, key=lambda lv: (order[lv.kind], lv.value or 0)), notes


def selections(exp: Experiment) -> tuple[list[Selection], list[str]]:
    """The selections of ``exp``, and notes: a method under each policy, ``"default"`` its
    own; a policy a method does not offer (e.g. ``rr`` for the global ``ig_multi``) is
    skipped with a note. In one-vs-rest tasks a per-class method ranks by the positive
    class's column (a method of one score per term, by its own policy); with label sets,
    scope "global" gives the selections of the policies and scope "local" one more: each
    label's binary learner on the label's own ranking."""
    out, notes = [], []
    for name in exp.methods:
        own, offered = offered_aggregates(name)
        if exp.tasks == "one_vs_rest":
            out.append(Selection(name, None, class_label="pos") if len(offered) > 1
                       else Selection(name, own))
            continue
        for a in exp.aggregates if "global" in exp.scope else ():
            a = own if a == "default" else a
            if a not in offered:
                why = f": {policy_refusal(a)}" if a in SIGNED_POLICIES else ""
                notes.append(f"{name} has no '{a}' policy (it offers {', '.join(offered)});"
                             f" skipped{why}")
            elif Selection(name, a) not in out:
                out.append(Selection(name, a))
        if "local" in exp.scope:
            out.append(Selection(name, None, "local"))
    return out, notes + (_untested_notes(exp) + _small_count_notes(exp) if exp.alphas else [])


def _small_count_notes(exp: Experiment) -> list[str]:
    """A note for the alpha levels of chi2 without Yates' correction: its p-values are too
    small for terms in few documents (``textsift.evidence.significant.check_expected_counts`` warns
    where one selection is made; an experiment's folds select without it, and the run says so once,
    here)."""
    from ..evidence.significant import SMALL_COUNT_TESTS

    return [f"{name}'s alpha levels keep terms by Pearson's large-sample p-values, which are "
            "far too small for terms in few documents (an expected count below 5 in the 2 x 2 "
            "table: a term in one document of a class of 5% passes with p = 2e-5, where "
            "Fisher's exact test gives 0.05); for p-values that hold there, add fisher to "
            f"methods, or set [selection.method_params.{name}] yates = true"
            for name in exp.methods
            if name in SMALL_COUNT_TESTS and not exp.params_of(name).get("yates")]


def _untested_notes(exp: Experiment) -> list[str]:
    """A note for each method of ``exp`` that has no alpha level (no p-value for its
    labels), naming those that have one."""
    tested = [n for n in with_pvalues() if exp.kind.serves(get_method(n))
              and untested(n, exp.kind) is None]
    return [f"{name} has no p-value ({why}), so no alpha level; the methods with one for "
            f"these labels: {', '.join(tested)}"
            for name in exp.methods if (why := untested(name, exp.kind))]


def _safe(text) -> str:
    return "".join(c if c.isalnum() or c in "._" else "-" for c in str(text))


def trial_name(fold: int, method, aggregate, level: Level | None, learner, positive=None) -> str:
    """The file name of a trial: unique per key, the same in every run of the experiment."""
    prefix = "" if positive is None else "t" + _safe(positive)
    if method == "triv":
        return f"{prefix}f{fold}__triv.json"
    if method is None:
        return f"{prefix}f{fold}__all__{_safe(learner)}.json"
    return (f"{prefix}f{fold}__{_safe(method)}__{aggregate}__{level.name}__"
            f"{_safe(learner)}.json")


def _tuning(exp: Experiment, method: str | None, learner: LearnerSpec) -> TrialTuning | None:
    """The tuning grid of one trial: the method's own parameters (none at level "all"), then
    the learner's, in the order of the file."""
    if exp.tuning is None:
        return None
    own = set(method_param_names(method)) if method else set()
    accepted = set(learner.tunable)
    grid = [(k, v) for k, v in exp.tuning.grids if k in own]
    grid += [(k, v) for k, v in exp.tuning.grids if k in accepted]
    return TrialTuning(exp.tuning.val_size, tuple(grid), tuple(k for k, _ in grid if k in own))


def _tested(exp: Experiment, chosen: list[Selection]) -> dict:
    """The alpha levels' selections: (method, scope, class column) -> the rows they give (a
    method's global selections share one: the terms that pass an alpha in any class are the
    same whatever the policy), for the methods with a p-value."""
    out: dict = {}
    for sel in chosen:
        if untested(sel.method, exp.kind) is None:
            out.setdefault((sel.method, sel.scope, sel.class_label), []).append(sel.row)
    return out


def plan_trials(exp: Experiment, folds: list[FoldRef], levels: list[Level],
                chosen: list[Selection], positives=(None,)) -> list[Trial]:
    """Every trial of the experiment, ordered fold by fold and ranking by ranking (so the
    trials a worker runs in a row share its fold and its ranking). ``chosen`` are the
    selections (:func:`selections`), ``positives`` the positive classes of one-vs-rest
    tasks (``None``: the multi-class task)."""
    selected = [lv for lv in levels if lv.kind in ("n", "ratio")]
    alphas = [lv for lv in levels if lv.kind == "alpha"]
    tested = _tested(exp, chosen) if alphas else {}
    longest = max(selected, key=lambda lv: lv.value) if selected else None
    at_all = (*([s.row for s in chosen] if ALL in levels else []),
              *([("ffs", NO_SELECTION)] if "ffs" in exp.baselines else []))
    names = tuple(lr.label for lr in exp.learners)  # the results' learner names
    trials = []
    for (fold, ref), positive in itertools.product(enumerate(folds), positives):
        dataset = exp.corpus.dataset if positive is None else f"{exp.corpus.dataset}:{positive}"
        base = {"fold": fold, "fold_ref": ref, "dataset": dataset, "positive": positive,
                "measures": exp.metrics, "seed": exp.seed,
                "label_kind": exp.kind,
                "label_set": exp.label_set if exp.kind.label_sets else None}
        if "triv" in exp.baselines:
            trials.append(Trial(kind="triv", rows=(("triv", NO_SELECTION),), learner_names=names,
                                name=trial_name(fold, "triv", None, None, None, positive), **base))
        for learner in exp.learners if at_all else ():
            trials.append(Trial(kind="all", rows=at_all, learner_names=(learner.label,),
                                learner=learner, tuning=_tuning(exp, None, learner),
                                name=trial_name(fold, None, None, ALL, learner.label, positive),
                                **base))
        for sel, level, learner in itertools.product(chosen, selected, exp.learners):
            trials.append(Trial(kind="select", rows=(sel.row,), learner_names=(learner.label,),
                                learner=learner, method=sel.method, aggregate=sel.aggregate,
                                scope=sel.scope, class_label=sel.class_label,
                                params=tuple(sorted(exp.params_of(sel.method).items())),
                                rr_variant=exp.rr_variant, level=level, max_level=longest,
                                tuning=_tuning(exp, sel.method, learner),
                                name=trial_name(fold, *sel.row, level, learner.label, positive),
                                **base))
        for ((method, scope, column), rows), level, learner in itertools.product(
                tested.items(), alphas, exp.learners):
            trials.append(Trial(kind="select", rows=tuple(rows), learner_names=(learner.label,),
                                learner=learner, method=method, scope=scope, class_label=column,
                                params=tuple(sorted(exp.params_of(method).items())), level=level,
                                tuning=_tuning(exp, method, learner), correction=exp.correction,
                                family=exp.family,
                                name=trial_name(fold, method, column or scope, level,
                                               learner.label, positive),
                                **base))
    return trials
