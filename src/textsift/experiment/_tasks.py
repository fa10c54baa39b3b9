"""The task of an experiment -- what its labels are -- and the checks of its measures, learners
and methods against it. A nominal file over label lists is a multilabel experiment: the data
decide (:func:`for_labels`), so until the labels are read a nominal file may name the measures
and learners of either task (:func:`possible_tasks`)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import TextsiftError
from ..labels import check_requirement
from ..learners import LEARNERS
from ..metrics import MEASURES
from ..scores import get_method
from ._keys import ConfigError, choice
from .schema import default
from .specs import Experiment, LearnerSpec

__all__ = ["check_learner_task", "check_measure", "for_labels", "possible_tasks"]


def for_labels(exp: Experiment, multilabel: bool) -> Experiment:
    """The experiment for labels that are label sets (``multilabel``) or one per document:
    a nominal experiment over label sets becomes a multilabel one. Every key is checked
    against that task -- a measure, learner or method of another task, the keys of one kind
    of labels given for the other -- each refused with one message naming the file and the
    fix. (Until the labels are read, a nominal file may name the measures of either: the
    data decide.)"""
    src = exp.source
    if multilabel and exp.corpus.task == "ordinal":
        raise ConfigError(
            f"{src}: [corpus] task = 'ordinal' reads one rating per document, but the label "
            f"field {exp.corpus.label_field!r} holds lists (a multi-label corpus); set task = "
            "'multilabel' (or leave it out), or choose the rating field")
    if not multilabel and exp.multilabel:
        raise ConfigError(
            f"{src}: [corpus] task = 'multilabel', but the label field "
            f"{exp.corpus.label_field!r} holds one label per record, not a list; write each "
            "record's labels as a list (or a CSV field with [corpus] label_sep), or set task = "
            "'nominal'")
    if multilabel:
        exp = replace(exp, corpus=replace(exp.corpus, task="multilabel"))
    task = exp.corpus.task
    for measure in exp.metrics:
        check_measure(measure, (task,), src)
    for learner in exp.learners:
        check_learner_task(learner, (task,), f"[[learners]] {learner.label!r}", src)
    if not multilabel:
        if "local" in exp.scope:
            raise ConfigError(
                f"{src}: [selection] scope = 'local' is for label sets (a multilabel task); "
                "with one class per document, [evaluation] tasks = 'one_vs_rest' gives each "
                "class its own terms")
        if exp.label_set != default("evaluation", "label_set"):
            raise ConfigError(f"{src}: [evaluation] label_set is for label sets (a multilabel "
                              "task); remove it, or give the documents label lists")
        return exp
    for name in exp.methods:
        if ":" not in name:
            try:
                check_requirement(get_method(name).requires, exp, name, src)
            except TextsiftError as exc:
                raise ConfigError(str(exc)) from None
    tried = dict(exp.tuning.grids).get("class_weight", ()) if exp.tuning else ()
    for where, weights in [*((f"[[learners]] {lr.label!r}", dict(lr.params).get(
            "class_weight")) for lr in exp.learners), *(("[tuning] class_weight", w)
                                                        for w in tried)]:
        if isinstance(weights, dict):
            raise ConfigError(
                f"{src}: {where}: a class_weight table names classes; with label sets each "
                "label's learner is binary (the label against the documents without it): use "
                'class_weight = "balanced"')
    if exp.tasks == "one_vs_rest":
        raise ConfigError(
            f"{src}: [evaluation] tasks = 'one_vs_rest' is for one class per document; with "
            "label sets each label is already a binary task, and [selection] scope = 'local' "
            "gives each its own terms")
    if exp.scope == ("local",) and exp.aggregates != ("default",):
        raise ConfigError(f"{src}: [selection] aggregates are the policies of scope 'global'; "
                          "add \"global\" to scope, or remove aggregates")
    return exp


def possible_tasks(task: str) -> tuple[str, ...]:
    """The tasks a file's ``[corpus] task`` may turn out to be once the labels are read: a
    nominal file over label lists is multilabel (:func:`for_labels`)."""
    return ("nominal", "multilabel") if task == "nominal" else (task,)


def check_measure(name, tasks: tuple[str, ...], src: str) -> None:
    """An evaluation measure of the registry that applies to one of ``tasks``."""
    choice(name, tuple(MEASURES), "[evaluation] metrics entry", src)
    if not set(tasks) & set(MEASURES[name].tasks):
        fits = [n for n, m in MEASURES.items() if set(tasks) & set(m.tasks)]
        raise ConfigError(f"{src}: metric {name!r} ({MEASURES[name].summary}) is for "
                          f"{' and '.join(MEASURES[name].tasks)} tasks; this task is "
                          f"{_task_is(tasks)}: choose among {', '.join(fits)}")


def check_learner_task(spec: LearnerSpec, tasks: tuple[str, ...], where: str, src: str) -> None:
    """A learner that serves one of ``tasks``."""
    learner = LEARNERS[spec.name]
    if not set(tasks) & set(learner.tasks):
        raise ConfigError(f"{src}: {where}: {spec.name!r} ({learner.summary}) serves "
                          f"{' and '.join(learner.tasks)} tasks; this task is {_task_is(tasks)}")


def _task_is(tasks) -> str:
    if tasks == ("multilabel",):
        return "multilabel (label lists, or [corpus] task)"
    return f"{' or '.join(tasks)} ([corpus] task{', and the labels' if len(tasks) > 1 else ''})"
