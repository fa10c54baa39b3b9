"""The numeric ranges of the parameters that several parts of textsift take, each written once.

A significance level, a fraction of the vocabulary, ``min_df`` and ``max_df`` are taken by the
estimators (their ``_parameter_constraints``, scikit-learn's
:class:`~sklearn.utils._param_validation.Interval`), by the command line (its options' checks,
which run before numpy is loaded) and by an experiment file (its keys' checks). Each reads its
:class:`Bound` from here, so the three cannot disagree: :meth:`Bound.check` and ``value in
bound`` answer in plain Python, and :meth:`Bound.constraints` gives the same ranges as
scikit-learn's ``Interval`` objects (``tests/test_bounds.py`` checks that both answer alike on
any number). Like :mod:`textsift._choices`, this module imports nothing heavy; scikit-learn is
imported only when :meth:`Bound.constraints` is called. An estimator's parameters are checked
against them by :func:`validate_params` (:func:`constraints` gives its constraints), and
:func:`choices_documented` writes its choices into its docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

__all__ = ["ALPHA", "FRACTION", "K", "LEVEL", "MAX_DF", "MIN_DF", "POSITIVE", "RATIO", "Bound",
           "Range"]

_CLOSED = {"left": "[)", "right": "(]", "both": "[]", "neither": "()"}


@dataclass(frozen=True)
class Range:
    """Numbers of type ``kind`` (``Integral`` or ``Real``; ``not_int``: a ``Real`` that is
    not an ``Integral``, scikit-learn's ``RealNotInt``) between ``left`` and ``right``
    (``None``: unbounded), ``closed`` as scikit-learn's ``Interval``: ``"left"``, ``"right"``,
    ``"both"`` or ``"neither"``. Booleans are never numbers here."""

    kind: type
    left: float | None
    right: float | None
    closed: str
    not_int: bool = False

    def __contains__(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        if self.not_int and isinstance(value, Integral):
            return False
        if isinstance(value, Real) and math.isnan(value):
            return False
        low, high = _CLOSED[self.closed]
        if self.left is not None and (value < self.left or low == "(" and value == self.left):
            return False
        return not (self.right is not None and (value > self.right
                                                or high == ")" and value == self.right))

    def interval(self):
        """The same range as scikit-learn's :class:`~sklearn.utils._param_validation.Interval`."""
        from sklearn.utils._param_validation import Interval, RealNotInt

        return Interval(RealNotInt if self.not_int else self.kind, self.left, self.right,
                        closed=self.closed)


@dataclass(frozen=True)
class Bound:
    """The values one parameter takes: any of ``ranges``, said in ``words`` (what an error
    message and a help text print: ``"a significance level in (0, 1], e.g. 0.05"``)."""

    words: str
    ranges: tuple[Range, ...]

    def __contains__(self, value) -> bool:
        return any(value in r for r in self.ranges)

    def check(self, value, name: str):
        """``value`` if it is in the bound, else a :class:`~textsift.errors.TextsiftError`
        naming the parameter, the values it takes and the value given."""
        if value not in self:
            from .errors import TextsiftError

            raise TextsiftError(f"{name} must be {self.words}, got {value!r}")
        return value

    def constraints(self) -> list:
        """The bound as the entries of an estimator's ``_parameter_constraints``."""
        return [r.interval() for r in self.ranges]


#: A significance level: the level an adjusted p-value passes
#: (:mod:`textsift.evidence.corrections`).
ALPHA = Bound("a significance level in (0, 1], e.g. 0.05", (Range(Real, 0, 1, "right"),))
#: A confidence level of the effect sizes' intervals (:mod:`textsift.scores.effects`).
LEVEL = Bound("a confidence level in (0, 1), e.g. 0.95", (Range(Real, 0, 1, "neither"),))
#: A share of the ranked vocabulary to keep (:func:`textsift.selection.policies.n_from_ratio`).
RATIO = Bound("a fraction in (0, 1]", (Range(Real, 0, 1, "right"),))
#: A share of the documents held out (a test or a validation part).
FRACTION = Bound("a fraction in (0, 1)", (Range(Real, 0, 1, "neither"),))
#: A number of terms to keep (``"all"`` is taken besides, where it is meant).
K = Bound("a positive number of terms", (Range(Integral, 1, None, "left"),))
#: A count of at least one (documents per chunk, terms to print, bootstraps, ...).
POSITIVE = Bound("an integer >= 1", (Range(Integral, 1, None, "left"),))
#: The vocabulary's floor, as scikit-learn's ``CountVectorizer`` reads it: an int counts
#: documents, a float is a share of them.
MIN_DF = Bound("a number of documents >= 1 or a fraction in [0, 1)",
               (Range(Integral, 1, None, "left"), Range(Real, 0, 1, "left", not_int=True)))
#: The vocabulary's ceiling (read as ``min_df``).
MAX_DF = Bound("a fraction in (0, 1] or a number of documents >= 1",
               (Range(Integral, 1, None, "left"), Range(Real, 0, 1, "right", not_int=True)))


def constraints(bounds: dict[str, Bound], choices: dict[str, tuple] | None = None,
                **others) -> dict[str, list]:
    """An estimator's ``_parameter_constraints``: the ranges of ``bounds`` (parameter ->
    :class:`Bound`) as scikit-learn's ``Interval`` objects and the values of ``choices``
    (parameter -> its strings, as :mod:`textsift._choices` lists them) as ``StrOptions``, each
    followed by what ``others`` gives the same parameter (``None``, ``StrOptions({"all"})``),
    and the other parameters' constraints as ``others`` gives them. The estimator keeps
    ``bounds`` as ``_parameter_bounds`` and ``choices`` as ``_parameter_choices``: the words
    and the order :func:`validate_params` says them in."""
    from sklearn.utils._param_validation import StrOptions

    out = {name: [*bound.constraints(), *others.pop(name, [])] for name, bound in
           bounds.items()}
    out |= {name: [StrOptions(set(values)), *others.pop(name, [])] for name, values in
            (choices or {}).items()}
    return {**out, **others}


def validate_params(estimator) -> None:
    """Check ``estimator``'s parameters against its ``_parameter_constraints`` with
    scikit-learn's validation (``BaseEstimator._validate_params``'s), one parameter at a
    time so that the error names it, and raise the library's one error type,
    :class:`~textsift.errors.TextsiftError` (a ``ValueError``, as scikit-learn's
    ``InvalidParameterError`` is), instead of scikit-learn's: a parameter of a :class:`Bound`
    (the estimator's ``_parameter_bounds``) is said in the bound's words, a choice among
    strings names the closest one and every one, anything else as scikit-learn says it."""
    from sklearn.utils._param_validation import (
        InvalidParameterError,
        StrOptions,
        validate_parameter_constraints,
    )

    from .errors import TextsiftError, choose

    params = estimator.get_params(deep=False)
    bounds = getattr(estimator, "_parameter_bounds", {})
    choices = getattr(estimator, "_parameter_choices", {})
    for name, allowed in estimator._parameter_constraints.items():
        if name not in params:
            continue
        value = params[name]
        try:
            validate_parameter_constraints({name: allowed}, {name: value},
                                           caller_name=type(estimator).__name__)
        except InvalidParameterError as exc:
            options = [c for c in allowed if isinstance(c, StrOptions)]
            if isinstance(value, str) and options and name not in bounds:
                choose(value, choices.get(name) or sorted(set().union(*(o.options for o in
                                                                        options))), name)
            if name in bounds:
                extra = [_said(c) for c in allowed if c is not None and not _is_range(c)]
                words = " or ".join([bounds[name].words, *extra])
                raise TextsiftError(f"{name} must be {words}, got {value!r}") from None
            raise TextsiftError(str(exc)) from None


def choices_documented(cls):
    """``cls`` (an estimator, as a class decorator) with each ``name : {choices}`` of its
    docstring's parameters written out from its ``_parameter_choices`` (the tuples of
    :mod:`textsift._choices`, which :func:`validate_params` reads too): a new correction, policy
    or family is listed without an edit of the docstring."""
    doc = cls.__doc__
    if doc is None:  # python -OO
        return cls
    for name, values in cls._parameter_choices.items():
        shown = "{" + ", ".join(f'"{v}"' for v in values) + "}"
        doc = doc.replace(f"    {name} : {{choices}}", f"    {name} : {shown}")
    cls.__doc__ = doc
    return cls


def _is_range(constraint) -> bool:
    from sklearn.utils._param_validation import Interval

    return isinstance(constraint, Interval)


def _said(constraint) -> str:
    from sklearn.utils._param_validation import StrOptions

    if isinstance(constraint, StrOptions):
        return " or ".join(repr(o) for o in sorted(constraint.options))
    return str(constraint)
