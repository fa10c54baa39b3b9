"""The task of an experiment -- the kind of its labels, a :class:`~textsift.labels.LabelKind`
-- and the checks of its measures, learners and methods against it. A nominal file over label
lists is a multilabel experiment: the labels decide (:func:`textsift.labels.decide_kind`), so
until they are read a nominal file may name the measures and learners of either kind
(:meth:`LabelKind.possible <textsift.labels.LabelKind.possible>`)."""

from __future__ import annotations

from dataclasses import replace

from ..errors import TextsiftError
from ..labels import LabelKind, refuse_label_lists
from ..learners import LEARNERS
from ..learners.metrics import MEASURES
from ..scores import get_method
from ._keys import ConfigError, choice
from .schema import default
from .specs import Experiment, LearnerSpec

__all__ = ["check_learner_task", "check_measure", "check_method_kind", "for_labels"]


def for_labels(exp: Experiment, kind) -> Experiment:
    """The experiment for labels of ``kind`` (decided by
    :func:`~textsift.labels.decide_kind` from the file's ``[corpus] label_kind`` and the labels
    read): its task set to ``kind``, and every key checked against it -- a measure, learner
    or method that does not serve it, a scope, ``label_set``, binary tasks or a
    ``class_weight`` table it does not take -- each refused with one message naming the file
    and the fix."""
    src, kind = exp.source, LabelKind(kind)
    exp = replace(exp, corpus=replace(exp.corpus, label_kind=kind))
    for measure in exp.metrics:
        check_measure(measure, (kind,), src)
    for learner in exp.learners:
        check_learner_task(learner, (kind,), f"[[learners]] {learner.label!r}", src)
        if learner.threshold is not None and not kind.label_sets:
            raise ConfigError(
                f"{src}: [[learners]] {learner.label!r}: threshold = {learner.threshold!r} "
                "sets a threshold per label, for label sets (a multilabel task); this "
                f"{kind} task gives each document one {kind.unit}, which the learner picks: "
                "remove threshold")
        if learner.per_label and not kind.label_sets:
            raise ConfigError(
                f"{src}: [[learners]] {learner.label!r}: {', '.join(learner.per_label)} "
                "choose each label's own terms, for label sets (a multilabel task); this "
                f"{kind} task gives each document one {kind.unit}: remove them")
        if learner.per_label and "local" in exp.scope:
            raise ConfigError(
                f"{src}: [[learners]] {learner.label!r}: {', '.join(learner.per_label)} "
                "choose each label's own terms on inner folds, which [selection] scope = "
                "'local' already chose: use scope 'global' (or baselines = [\"ffs\"], every "
                "term) with them")
    if "local" in exp.scope and "local" not in kind.scopes:
        raise ConfigError(
            f"{src}: [selection] scope = 'local' is for label sets (a multilabel task); "
            "with one class per document, [evaluation] tasks = 'one_vs_rest' gives each "
            "class its own terms")
    if not kind.label_sets and exp.label_set != default("evaluation", "label_set"):
        raise ConfigError(f"{src}: [evaluation] label_set is for label sets (a multilabel "
                          "task); remove it, or give the documents label lists")
    for name in exp.methods:
        check_method_kind(name, (kind,), src)
    if kind.label_sets:
        _no_class_weight_tables(exp)
    if exp.tasks == "one_vs_rest" and not kind.one_vs_rest:
        raise ConfigError(
            f"{src}: [evaluation] tasks = 'one_vs_rest' is for one class per document; " + (
                "with label sets each label is already a binary task, and [selection] scope = "
                "'local' gives each its own terms" if kind.label_sets else
                f"the {kind.unit}s of a {kind} task are not learned one against the rest: set "
                "[corpus] label_kind = 'nominal', or remove tasks"))
    if exp.scope == ("local",) and exp.aggregates != ("default",):
        raise ConfigError(f"{src}: [selection] aggregates are the policies of scope 'global'; "
                          "add \"global\" to scope, or remove aggregates")
    return exp


def _no_class_weight_tables(exp: Experiment) -> None:
    """Label sets: each label's learner is binary, so a ``class_weight`` table (which names
    classes) is refused, in ``[[learners]]`` and in ``[tuning]``."""
    tried = dict(exp.tuning.grids).get("class_weight", ()) if exp.tuning else ()
    for where, weights in [*((f"[[learners]] {lr.label!r}", dict(lr.params).get(
            "class_weight")) for lr in exp.learners), *(("[tuning] class_weight", w)
                                                        for w in tried)]:
        if isinstance(weights, dict):
            raise ConfigError(
                f"{exp.source}: {where}: a class_weight table names classes; with label sets "
                "each label's learner is binary (the label against the documents without it): "
                'use class_weight = "balanced"')


def check_method_kind(name: str, kinds: tuple[LabelKind, ...], src: str) -> None:
    """A registered method (a user's ``module:function`` is not checked) that serves labels
    of one of ``kinds`` (:meth:`LabelKind.serves <textsift.labels.LabelKind.serves>`): a
    method of another kind of labels names the task it needs; one that requires one label
    per document is refused for label sets."""
    if ":" in name:
        return
    m = get_method(name)
    if any(k.serves(m) for k in kinds):
        return
    if not any(m.kind in k.scored_by for k in kinds):
        fits = dict.fromkeys(str(k.declared) for k in LabelKind if k.serves(m))
        raise ConfigError(f"{src}: method {name!r} is {m.kind}; set [corpus] label_kind = "
                          f"{' or '.join(map(repr, fits))}")
    try:
        refuse_label_lists(m.requires, name, src)
    except TextsiftError as exc:
        raise ConfigError(str(exc)) from None


def check_measure(name, kinds: tuple[LabelKind, ...], src: str) -> None:
    """An evaluation measure of the registry that serves one of ``kinds``."""
    choice(name, tuple(MEASURES), "[evaluation] metrics entry", src)
    measure = MEASURES[name]
    if not any(k.serves(measure) for k in kinds):
        fits = [n for n, m in MEASURES.items() if any(k.serves(m) for k in kinds)]
        raise ConfigError(f"{src}: metric {name!r} ({measure.summary}) is for "
                          f"{_kinds(measure.label_kinds)}; these labels are "
                          f"{_kind_is(kinds)}: choose among {', '.join(fits)}")


def check_learner_task(spec: LearnerSpec, kinds: tuple[LabelKind, ...], where: str,
                       src: str) -> None:
    """A learner that serves one of ``kinds``."""
    learner = LEARNERS[spec.name]
    if not any(k.serves(learner) for k in kinds):
        raise ConfigError(f"{src}: {where}: {spec.name!r} ({learner.summary}) serves "
                          f"{_kinds(learner.label_kinds)}; these labels are {_kind_is(kinds)}")


def _kinds(kinds) -> str:
    """``the label kind ordinal``, ``the label kinds nominal and ordinal``."""
    return f"the label kind{'s' if len(kinds) > 1 else ''} {' and '.join(kinds)}"


def _kind_is(kinds) -> str:
    if len(kinds) == 1 and kinds[0].declared is not kinds[0]:  # the labels decided it
        return f"{kinds[0]} (label lists, or [corpus] label_kind)"
    labels = ", and the labels" if len(kinds) > 1 else ""
    return f"{' or '.join(kinds)} ([corpus] label_kind{labels})"
