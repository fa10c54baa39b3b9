"""The method registry: canonical name -> scoring function over
:class:`~textsift.counting.counts.Counts`.

A scoring function is pure: it reads counts and returns a :class:`ScoreTable`, a (V, G) array
with one column per group (a class for one-vs-rest scores, a rank or an ordinal split for the
ordinal methods, a single column for global scores), or, for a per-class score, the same
table in sparse form (:class:`PerClass`), which :func:`compute` writes out (the two forms:
:mod:`textsift.scores._tables`). Selection policies (:mod:`textsift.selection.policies`) turn a
table
into a ranking. :func:`compute_many` scores one :class:`Counts` with many methods.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..counting._tables import check_fits
from ..counting.counts import Counts
from ..errors import TextsiftError, did_you_mean
from ..labels import REQUIREMENTS, LabelKind, check_requirement
from ..selection.policies import AGGREGATES
from ._tables import (  # noqa: F401  (the scoring modules import them from here too)
    PerClass,
    ScoreTable,
    binary_method,
    binary_scores,
    clean,
    global_table,
    nonempty_classes,
    per_class,
)

__all__ = ["ABSENT_ORDERS", "REGISTRY", "SIGNED_POLICIES", "Method", "compute", "compute_many",
           "get_method", "policy_refusal", "register"]


@dataclass(frozen=True)
class Method:
    """A registered scoring method. ``params`` maps each keyword parameter of ``func`` (after
    the counts) to its default, e.g. ``{"a": 1.0, "eps": 0.1, "idf": "standard"}``, and
    ``choices`` gives the values a parameter takes when its annotation lists them
    (``Literal["standard", "smooth"]``): callers (the CLI, experiment grids) read which
    parameters a method takes from them. ``formula`` is the score in LaTeX (in the notation of
    the contingency table: ``A``, ``B``, ``C``, ``D``, ``tpr``, ``fpr``, ``TF``; the
    documentation renders it) and ``reference`` the paper it comes from.

    ``kind`` is what its scores read, a :class:`~textsift.labels.LabelKind`: classes
    (``nominal``) or the ranks of a scale (``ordinal``); the kinds of labels it serves follow
    (:meth:`LabelKind.serves <textsift.labels.LabelKind.serves>`).
    ``requires`` lists what the method needs of a labelling, from
    :data:`textsift.labels.REQUIREMENTS`: ``"ranks"`` (every ordinal method: ``kind ==
    "ordinal"`` exactly when it is there) and ``"single_label"`` (the method reads the classes
    as a partition of the documents); :func:`textsift.labels.check_requirement` checks them,
    once, where :func:`compute` meets the counts. Each method's docstring says why it has its
    own.
    ``reads_term_freq`` says whether it reads ``Counts.term_freq`` (so that a caller counting
    for this method alone can leave the term frequencies out).

    ``signed`` says that a negative score is an association against the group (the term is
    under-represented in the class: a log-odds z-score, a pointwise MI, a difference of
    rates): adding such scores over the classes lets a term's lack in some classes cancel its
    lead in another, so the policies ``sum`` and ``wavg`` are not offered, and are refused
    with that reason (:data:`SIGNED_POLICIES`, :func:`policy_refusal`).

    ``absent`` says, for a per-class method, how its scores of the cells with ``A = 0`` (a
    term that no document of the class has) order the terms within a class: one of
    :data:`~textsift.scores.ABSENT_ORDERS` (``"rises with df"``: a class's best absent terms
    are its most frequent ones). A one-vs-rest metric's absent score depends on ``(df,
    N_c)`` alone, and the policies find a class's best absent terms from the distinct ``(df,
    N_c)`` whatever its shape; a term-frequency method's rule says what it relies on
    (:class:`~textsift.scores.Absent`). A test checks each statement on random counts.

    ``test`` names the statistical test whose p-value the method has (empty when it has
    none) and ``pvalue`` computes it, ``pvalue(counts, **params)`` with the method's own
    parameters, a table of p-values made as the scores are
    (:func:`textsift.scores.pvalues` reads it); ``test_requires`` what the test needs of the
    labels besides ``requires`` (scikit-learn's chi2 p-value: one label per document)."""

    name: str
    func: Callable[..., ScoreTable]
    kind: LabelKind
    summary: str
    default_aggregate: str = "max"
    aggregates: tuple[str, ...] = AGGREGATES
    provisional: bool = False
    params: dict = field(default_factory=dict)
    formula: str = ""
    reference: str = ""
    requires: tuple[str, ...] = ()
    choices: dict = field(default_factory=dict)
    reads_term_freq: bool = False
    test: str = ""
    pvalue: Callable | None = field(default=None, repr=False)
    test_requires: tuple[str, ...] = ()
    absent: str = ""
    signed: bool = False

    @property
    def label(self) -> str:
        return f"{self.name} (provisional)" if self.provisional else self.name


#: Every registered method: canonical name -> :class:`Method` (``textsift methods`` lists them).
REGISTRY: dict[str, Method] = {}
#: The policies that add a term's scores over the groups: meaningless for signed scores.
SIGNED_POLICIES = ("sum", "wavg")


def policy_refusal(aggregate: str) -> str:
    """Why ``aggregate`` (``sum``, ``wavg``) is refused for signed scores, naming them."""
    signed = ", ".join(n for n, m in REGISTRY.items() if m.signed)
    return (f"the policy {aggregate!r} adds a term's scores over the classes, but these scores "
            f"are signed ({signed}: a negative score means the term is under-represented in "
            "the class), so a term's lack in some classes would cancel its lead in another; "
            "rank by 'max' or 'rr', by one class's scores (class_label, --class), or add only "
            "the classes where a term is over-represented (direction='over', --direction "
            "over)")

#: How a per-class method's scores of the cells with ``A = 0`` order the terms within a class
#: (``Method.absent``): the statement -> the quantity of the term they follow and the
#: direction (``+1`` rising, ``-1`` falling, ``0`` the same for every term).
ABSENT_ORDERS = {
    "rises with df": ("df", 1),
    "falls with df": ("df", -1),
    "the same for every term": (None, 0),
    "rises with TF(t)": ("TF(t)", 1),
    "falls with TF(t)": ("TF(t)", -1),
    "falls with sum_j p(t|c_j)": ("sum_j p(t|c_j)", -1),
}


def register(name, kind, summary, default_aggregate="max", aggregates=AGGREGATES,
             provisional=False, *, formula="", reference="", requires=(),
             reads_term_freq=False, absent="", test="", pvalue=None, test_requires=(),
             signed=False):
    """Decorator adding a scoring function to :data:`REGISTRY` under ``name``; ``kind`` (a
    :class:`~textsift.labels.LabelKind` or its name) is what its scores read, ``formula``
    (LaTeX) and ``reference`` document it (every built-in method has both); ``test`` and
    ``pvalue`` give the test of a method that is one (:class:`Method`). An ordinal
    method requires ``"ranks"`` and ``"single_label"`` (a document has one rating) besides
    ``requires``. The parameters are those of the function's signature after its counts.
    A ``signed`` method does not offer :data:`SIGNED_POLICIES`."""
    if signed:
        aggregates = tuple(a for a in aggregates if a not in SIGNED_POLICIES)
    if default_aggregate not in aggregates:
        raise RuntimeError(f"method {name!r}: its default policy {default_aggregate!r} is not "
                           f"among those it offers ({', '.join(aggregates)})")
    kinds = LabelKind.method_kinds()
    if kind not in kinds:
        raise RuntimeError(f"method {name!r}: kind must be one of {', '.join(kinds)}")
    kind = LabelKind(kind)
    requires = tuple(dict.fromkeys(
        (("ranks", "single_label") if kind.ranks else ()) + tuple(requires)))
    unknown = (set(requires) | set(test_requires)) - set(REQUIREMENTS)
    if unknown:
        raise RuntimeError(f"method {name!r}: unknown requirements {sorted(unknown)}")
    if bool(test) != (pvalue is not None):
        raise RuntimeError(f"method {name!r}: give both test and pvalue, or neither")
    if absent and absent not in ABSENT_ORDERS:
        raise RuntimeError(f"method {name!r}: absent must be one of {sorted(ABSENT_ORDERS)}")

    def deco(func):
        if name in REGISTRY:
            raise RuntimeError(f"method {name!r} is registered twice")
        params, choices = _parameters(func)
        REGISTRY[name] = Method(name, func, kind, summary, default_aggregate, tuple(aggregates),
                                provisional, params, formula, reference, requires, choices,
                                reads_term_freq, absent=absent, test=test, pvalue=pvalue,
                                test_requires=tuple(test_requires), signed=signed)
        return func

    return deco


def _parameters(func) -> tuple[dict, dict]:
    """``(defaults, choices)`` of the keyword parameters of ``func`` after its counts; choices
    from ``Literal`` annotations."""
    import inspect
    import typing

    params = list(inspect.signature(func).parameters.values())[1:]
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    hints = typing.get_type_hints(func)
    choices = {n: typing.get_args(hints[n]) for n in defaults
               if typing.get_origin(hints.get(n)) is typing.Literal}
    return defaults, choices


def get_method(name: str) -> Method:
    """The registered method ``name``; an unknown name raises with the closest matches."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise TextsiftError(
            f"unknown method {name!r}{did_you_mean(name, REGISTRY)}; `textsift methods` lists "
            f"them all: {', '.join(sorted(REGISTRY))}"
        ) from None


def compute(counts: Counts, method, *, dense: bool = True, **params) -> ScoreTable | PerClass:
    """Score every term of ``counts`` with ``method`` (keyword ``params`` go to the method).

    ``method`` is a registered name, a :class:`Method`, or a user's scoring function
    ``method(counts, **params)`` returning one score per term (shape ``(V,)``: a global
    score), one per term and class (``(V, m)``, columns in ``counts.classes`` order), or a
    :class:`ScoreTable`. Whatever made it, the table follows one rule: never NaN, unseen terms
    ``-inf`` (:func:`clean`). ``dense=False`` returns a per-class table in the sparse form
    the method made it (:class:`PerClass`, whose rows, columns or whole table are written
    when asked for: a ranking by blocks of rows never holds the (V, m) table). Several
    methods at once are :func:`compute_many`'s (a list here is an error that says so)."""
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counting.counts.Counts, got {type(counts).__name__}")
    if isinstance(method, list | tuple | set | frozenset):
        raise TextsiftError(
            f"compute scores with one method, got {len(method)}: {', '.join(map(str, method))}; "
            "for several, compute_many(counts, methods) yields (name, ScoreTable) for each "
            "(the tables they share are computed once)")
    if callable(method) and not isinstance(method, Method):
        return _from_function(counts, method, params)
    m = _method(method)
    check_requirement(m.requires, counts, m.name)
    table = _call(m, counts, params)
    if m.signed:
        table = replace(table, signed=True)
    table = table.cleaned()
    return table.table() if dense else table


def _method(method) -> Method:
    return method if isinstance(method, Method) else get_method(method)


def _call(m: Method, counts: Counts, params: dict):
    """``m.func(counts, **params)``, a parameter the method does not take refused by name, and
    counts without the term frequencies the method reads."""
    if m.reads_term_freq and counts.term_freq is None:
        raise TextsiftError(f"{m.name} reads term frequencies, which these counts do not have "
                            "(counted with term_freq=False); count with term_freq=True")
    unknown = sorted(set(params) - set(m.params))
    if unknown and not _takes_any_keyword(m.func):
        raise TextsiftError(f"{m.name} has no parameter {', '.join(unknown)}; it takes "
                            f"{', '.join(m.params) or 'none'}")
    return m.func(counts, **params)


def _takes_any_keyword(func) -> bool:
    import inspect

    return any(p.kind is inspect.Parameter.VAR_KEYWORD
               for p in inspect.signature(func).parameters.values())


def _from_function(counts: Counts, func, params: dict) -> ScoreTable:
    """The table of a user's scoring function (see :func:`compute`), its shape checked."""
    out = func(counts, **params)
    name = getattr(func, "__name__", repr(func))
    if isinstance(out, ScoreTable):
        values, groups, weights = out.values, out.groups, out.weights
    else:
        values = np.asarray(out, dtype=np.float64)
        if values.ndim == 1:
            values, groups, weights = values[:, None], np.array(["all"], dtype=object), None
        elif values.ndim == 2 and values.shape[1] == counts.n_classes:
            groups, weights = counts.classes, counts.priors
        else:
            raise TextsiftError(
                f"scoring function {name} returned shape {values.shape}; return one score per "
                f"term ({counts.n_terms},) or per term and class ({counts.n_terms}, "
                f"{counts.n_classes})")
    if values.shape[0] != counts.n_terms:
        raise TextsiftError(f"scoring function {name} returned {values.shape[0]} scores for "
                            f"{counts.n_terms} terms")
    return clean(ScoreTable(np.asarray(values, dtype=np.float64), np.asarray(groups),
                            counts.seen, weights))


def compute_many(counts: Counts, methods=None, params: dict | None = None,
                 reuse: bool = False, dense: bool = True):
    """Score ``counts`` with each of ``methods`` (names; default every nominal method that
    applies to the labelling, sorted), yielding ``(name, ScoreTable)`` in that order;
    ``params`` maps a name to its keyword parameters.

    Every name is checked before any work. The per-class methods share one evaluation set
    (module docstring) and the cached derived counts; each table is built when the caller
    asks for it. With ``reuse=True`` the per-class tables are all written into one (V, m)
    buffer, so a table is valid only until the next one is asked for: for a caller that
    reduces each table (a ranking, a column) before going on, which then costs one table's
    memory instead of one per method (fresh memory pages cost, on some machines, as much as
    the scores themselves). With ``dense=False`` a per-class table comes in the sparse form
    the method made it (:class:`PerClass`, as ``compute(..., dense=False)``), never written.
    """
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counting.counts.Counts, got {type(counts).__name__}")
    if methods is None:
        labels = LabelKind.MULTILABEL if counts.multilabel else LabelKind.NOMINAL
        methods = sorted(n for n, m in REGISTRY.items() if labels.serves(m))
    methods = [get_method(name).name for name in methods]
    for name in methods:
        check_requirement(REGISTRY[name].requires, counts, name)
    params = params or {}
    unknown = set(params) - set(methods)
    if unknown:
        raise TextsiftError(f"parameters given for {sorted(unknown)}, which are not among the "
                            f"methods asked for ({', '.join(methods)})")
    if len(methods) > 1:  # one evaluation set of distinct tables for them all
        try:
            _ = nonempty_classes(counts).cells.evaluation_set
        except TextsiftError:  # no per-class score applies: each method says why
            pass
    buffer = None
    for name in methods:
        out = _call(get_method(name), counts, params.get(name, {}))
        if REGISTRY[name].signed:
            out = replace(out, signed=True)
        out = out.cleaned()
        if not dense or out.is_dense:
            yield name, out
            continue
        shape = out.counts.n_terms, out.counts.n_classes
        if reuse and (buffer is None or buffer.shape != shape):
            check_fits(*shape, 8, "a dense score table", "ask for the tables in sparse form "
                       "(dense=False), which the rankings read without writing them")
            buffer = np.empty(shape)
        yield name, out.table(buffer if reuse else None)
