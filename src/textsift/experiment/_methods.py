"""The methods of an experiment file: a registered name or a user's scoring function
(``"package.module:function"``), their policies and parameters, and the checks of the
parameters a file gives methods and learners before any trial runs."""

from __future__ import annotations

import importlib

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError

from ..counting.counts import Counts
from ..errors import TextsiftError
from ..learners import class_weight_codes
from ..scores import compute, get_method, with_pvalues
from ..selection.policies import AGGREGATES
from ._keys import ConfigError, typed

__all__ = ["check_alpha_levels", "check_class_weights", "check_learner", "check_method_params",
           "method_name",
           "method_param_names", "offered_aggregates", "resolve_method", "untested"]


def resolve_method(name: str):
    """What :class:`~textsift.selection.selectors.TermSelector` takes for a method of the file: the
    registered name, or the function ``"package.module:function"`` names."""
    if ":" not in name:
        return name
    module, _, attr = name.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def offered_aggregates(name: str) -> tuple[str, tuple[str, ...]]:
    """(default policy, policies offered) of a method; a user's function offers them all."""
    if ":" in name:
        return "max", AGGREGATES
    m = get_method(name)
    return m.default_aggregate, m.aggregates


def untested(name: str, kind) -> str | None:
    """Why the method ``name`` has no p-value on labels of ``kind`` (a
    :class:`~textsift.labels.LabelKind`), or None when it has one (an alpha level selects by
    it): it is not a test (a user's function is not), or its test needs other labels
    (``Method.test_requires``)."""
    if ":" in name or get_method(name).pvalue is None:
        return "it is not a statistical test"
    if not kind.meets(get_method(name).test_requires):
        return "its test needs one label per document"
    return None


def check_alpha_levels(methods, kinds, src: str) -> None:
    """Alphas as the only levels select by p-values: refused when no method of ``methods``
    has one for labels of any of ``kinds`` (:func:`untested`), as no trial would run and the
    results table would be empty; the message names the methods that have one."""
    if any(untested(name, k) is None for name in methods for k in kinds):
        return
    tested = [n for n in with_pvalues()
              if any(k.serves(get_method(n)) and untested(n, k) is None for k in kinds)]
    raise ConfigError(f"{src}: [selection] alphas are the only levels, and none of the methods "
                      f"({', '.join(methods)}) has a p-value to select by; add a method with "
                      f"one for these labels ({', '.join(tested)}), or sizes or ratios")


def method_param_names(name: str) -> tuple[str, ...]:
    return () if ":" in name else tuple(get_method(name).params)


def method_name(entry, src: str) -> str:
    """The name a method entry is recorded under, checked: a registered method, a
    ``module:function`` string that imports, or (from Python) an importable function (whether
    it serves the labels: ``_tasks.check_method_kind``)."""
    if callable(entry):
        name = f"{entry.__module__}:{entry.__qualname__}"
        try:
            same = resolve_method(name) is entry
        except (ImportError, AttributeError):
            same = False
        if not same:
            raise ConfigError(f"{src}: [selection] methods: {name} cannot be imported back; "
                              "define the scoring function at the top level of a module")
        return name
    typed(entry, str, "[selection] methods entry", src)
    if ":" in entry:
        try:
            func = resolve_method(entry)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"{src}: [selection] methods: cannot import {entry!r} ({exc}); "
                              "write 'package.module:function'") from None
        if not callable(func):
            raise ConfigError(f"{src}: [selection] methods: {entry!r} is not a function")
        return entry
    try:
        get_method(entry)
    except ValueError as exc:
        raise ConfigError(f"{src}: [selection] methods: {exc}") from None
    return entry


def check_learner(spec, where: str, src: str, **params) -> None:
    """The estimator's own parameter check (scikit-learn's constraints: ``C = "one"``,
    ``alpha = -1``; ``class_weight``: :func:`~textsift.learners.check_class_weight`) of a
    :class:`~.specs.LearnerSpec` now, rather than when the first trial fits it (a learner
    given no parameter is the registry's own estimator: nothing to check)."""
    if not spec.params and not params:
        return
    try:
        model = spec.pipeline(0, multilabel=spec.threshold is not None or bool(spec.per_label),
                              **params)
        if spec.threshold is not None or spec.per_label:  # the cut's keys, then the learner's
            model._validate_params()
            model = model.estimator
        estimator = model[-1]
        getattr(estimator, "estimator", estimator)._validate_params()  # inside one-vs-rest
    except (InvalidParameterError, TextsiftError) as exc:
        raise ConfigError(f"{src}: {where}: {exc}") from None


def check_class_weights(exp, labels) -> None:
    """Every class a ``[[learners]]`` ``class_weight`` table names is a class of ``labels``
    (the corpus's), or, in one-vs-rest tasks, ``"pos"`` or ``"neg"`` (the labels of each
    binary task)."""
    classes = ["neg", "pos"] if exp.tasks == "one_vs_rest" else np.unique(labels)
    tried = dict(exp.tuning.grids).get("class_weight", ()) if exp.tuning else ()
    given = [(f"[[learners]] {spec.label}", dict(spec.params).get("class_weight"))
             for spec in exp.learners] + [("[tuning] class_weight", w) for w in tried]
    for where, weights in given:
        if isinstance(weights, dict):
            try:
                class_weight_codes(weights, classes)
            except TextsiftError as exc:
                raise ConfigError(f"{exp.source}: {where}: {exc}"
                                  + (" (the labels of each one-vs-rest task)" if
                                     exp.tasks == "one_vs_rest" else "")) from None


def check_method_params(name: str, params: dict, where: str, src: str) -> None:
    """A registered method's parameters, tried on a two-document corpus: a value it refuses
    (``a = -1``, ``a = "x"``) is an error now, not in a trial. (A user's own function is
    called as it is, when its trials run.)"""
    if ":" in name or not params:
        return
    tiny = Counts.from_matrix(np.eye(2, dtype=np.int64), np.array([1, 2]),
                              feature_names=np.array(["a", "b"], dtype=object))
    try:
        compute(tiny, name, **params)
    except (TextsiftError, TypeError) as exc:
        raise ConfigError(f"{src}: {where}: {exc}") from None
