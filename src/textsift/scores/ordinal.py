"""Feature selection for ordinal text classification (Baccianella, Esuli & Sebastiani, SAC
2010 / Neural Computation 2014).

Every method reads the per-rank presence counts ``doc_counts`` of a :class:`Counts` whose
classes are the ranks of the scale (numeric, integer-valued; pass ``classes=`` the whole
scale to keep ranks that have no documents). From them :func:`rank_stats` derives, for each
term ``t_k``, the distribution of the ranks ``Y_k`` of the training documents containing it:
``df_k``, ``mean_k``, ``Var(t_k)`` -- additive across chunks because the counts are.

* ``var`` -- ``-Var(t_k)`` (population, not sample, variance of ``Y_k``: our choice); top-k.
* ``var_idf`` -- ``-(Var(t_k) + eps) * IDF(t_k)^a``, the paper's Var*IDF; top-k.
* ``rr_var`` -- ``-Var``, listed under the rank nearest ``mean_k`` (RR(Var)); round robin.
* ``rr_var_idf`` -- the ``var_idf`` score, listed under the rank nearest ``mean_k``; round
  robin.
* ``rr_igor`` -- binary IG (bits) of ``y <= r_j`` vs ``y > r_j``, one list per cut
  (RR(IGOR)); round robin.
* ``rr_nc_idf`` -- ``-(NC(t_k, R(t_k)) + eps) * IDF^a``, listed under ``R(t_k)``
  (RR(NC*IDF)); round robin.
* ``prp`` -- IG on class distributions smoothed over neighbouring ranks (Mukras et al.
  2007, in our provisional form); top-k.

Each method's formula and paper are also in its registry entry (:data:`textsift.scores.REGISTRY`),
which the documentation renders. Every ordinal method requires ``ranks`` and ``single_label``
(``Method.requires``): it reads the distribution of the one rating of each document
containing a term. ``eps`` is the one smoothing constant of ``var_idf``, ``rr_var_idf`` and
``rr_nc_idf`` (the papers' epsilon).

``IDF = ln(N / df)`` (``idf="standard"``, the paper's IDF) or ``ln((1 + N) / (1 + df)) + 1``
(``idf="smooth"``). With the standard form a term in every document has IDF 0 and so the
best possible score 0 -- literal, and the reason to tune ``a``.

The RR methods return a (V, G) table with ``-inf`` outside a term's group, and declare
``default_aggregate="rr"``: :func:`textsift.selection.policies.round_robin` does the picking, so a
rank
(or split) takes turns exactly as a class does in the nominal ``rr`` policy. The groups are
the ranks of the scale, except for ``rr_igor``, whose groups are the cuts, labelled
``"<=r"``.

Tie rules (our choices; the papers state none): a mean exactly between two ranks goes to the
lower rank; ``R(t_k)`` is the lowest rank minimising ``NC``; score ties break by index.

**Rank-balanced variant** (``balanced=True`` for ``rr_var``, ``rr_var_idf``, ``rr_nc_idf`` and
``prp``; ours, not the papers'). On J-shaped ratings (most reviews 5 stars) the associated rank
of the paper's rules -- the rank nearest the mean of ``Y_k``, or its median for NC -- is pulled
towards the majority rank, so a word over-represented in 1-star reviews whose documents are
still mostly 5-star is listed under rank 4 or 5, and the low ranks' lists can be empty. The
balanced variant weights each document of rank ``r_j`` by ``w_j = N / (n' N_j)`` (``N_j`` its
rank's training documents, ``n'`` the number of ranks with documents; the weights sum to
``N``, as scikit-learn's ``"balanced"`` class weights do) and takes the mean, the variance and
``NC`` over the weighted documents: the statistics of a corpus in which every rank is equally
frequent, so a term's associated rank is where it is over-represented relative to each rank's
size. The IDF factor keeps the plain document frequency (rarity is not a matter of ranks). For
PRP the multi-class IG is taken under the same weights: ranks of ``N / n'`` documents each,
with expected counts ``P'(t | r_j) N / n'``. Everything still derives from the per-rank counts
and the rank sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from ..counting.counts import Counts
from ..errors import TextsiftError
from ..labels.ranks import check_ranks, nearest_index
from ._registry import ScoreTable, global_table, register
from .information import ig_multi_from_counts

__all__ = ["RankStats", "idf", "nc_at_best", "rank_stats", "rank_weights"]

ORDINAL_RR = ("rr",)
BES = ("S. Baccianella, A. Esuli and F. Sebastiani, \"Feature selection for ordinal regression\", "
       "ACM SAC 2010; Neural Computation 26(3) (2014) 557-591")
_IDF = r"\mathrm{IDF}(t_k)^a"

#: The IDF forms of :func:`idf`.
IdfForm = Literal["standard", "smooth"]


# ----------------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class RankStats:
    """Distribution of the ranks of the documents containing each term (the paper's ``Y_k``).

    scale : (n,) rank values; n_docs : (n,) documents per rank; counts : (V, n) documents of
    each rank containing each term (each weighted by :func:`rank_weights` when balanced); df :
    (V,) document frequency; mean, var : (V,) over ``counts`` (NaN where df = 0); mass : (V,)
    the row sums of ``counts`` (``df`` unless balanced).
    """

    scale: np.ndarray
    n_docs: np.ndarray
    counts: np.ndarray
    df: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    mass: np.ndarray


def rank_weights(counts: Counts) -> np.ndarray:
    """``w_j = N / (n' N_j)`` per rank, 0 for a rank without documents (``n'`` ranks have
    some): each document weighted by the inverse frequency of its rank, the weights summing
    to ``N`` (module docstring, rank-balanced variant)."""
    sizes = counts.class_sizes.astype(np.float64)
    has = sizes > 0
    w = np.zeros(len(sizes))
    w[has] = sizes.sum() / (has.sum() * sizes[has])
    return w


def rank_stats(counts: Counts, balanced: bool = False) -> RankStats:
    """Per-term rank statistics from per-rank presence counts.

    ``Var`` is the population variance ``(1/df) sum (y - mean)^2`` (our choice of ``1/df``),
    computed from the centred ranks so that a term on one rank has variance exactly 0. With
    ``balanced`` each document counts ``w_j`` (:func:`rank_weights`), and the means divide by
    the term's total weight ``mass`` instead of ``df``.
    """
    if not isinstance(counts, Counts):
        raise TypeError(f"expected textsift.counting.counts.Counts, got {type(counts).__name__}")
    _, scale = check_ranks(counts.classes)
    n = counts.presence_table().astype(np.float64)
    df = mass = n.sum(axis=1)
    if _check_balanced(balanced):
        n = n * rank_weights(counts)[None, :]
        mass = n.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = n @ scale / mass
        var = (n * (scale[None, :] - mean[:, None]) ** 2).sum(axis=1) / mass
    return RankStats(scale, counts.class_sizes, n, df, mean, var, mass)


def _check_balanced(balanced) -> bool:
    if not isinstance(balanced, bool | np.bool_):
        raise TextsiftError(f"balanced must be True or False, got {balanced!r}")
    return bool(balanced)


def idf(df, n_docs: int, form: IdfForm = "standard") -> np.ndarray:
    """``ln(N / df)`` (``"standard"``, the paper's IDF) or ``ln((1 + N) / (1 + df)) + 1``
    (``"smooth"``, scikit-learn's form, always >= 1). ``df = 0`` gives ``inf`` (such terms are
    unranked)."""
    df = np.asarray(df, dtype=np.float64)
    with np.errstate(divide="ignore"):
        if form == "standard":
            return np.log(n_docs / df)
        if form == "smooth":
            return np.log((1.0 + n_docs) / (1.0 + df)) + 1.0
    forms = " or ".join(map(repr, get_args(IdfForm)))
    raise TextsiftError(f"unknown IDF form {form!r}; use {forms}")


def _idf_power(st: RankStats, a: float, form: str) -> np.ndarray:
    if not a > 0:
        raise TextsiftError(f"the IDF exponent a must be positive, got {a!r}")
    return idf(st.df, float(st.n_docs.sum()), form) ** a


def _check_eps(eps, name):
    if not eps >= 0:
        raise TextsiftError(f"{name} must be >= 0, got {eps!r}")


def _by_group(score: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """A (V, G) table with ``score[t]`` in column ``group[t]`` and ``-inf`` elsewhere."""
    table = np.full((len(score), n_groups), -np.inf)
    ok = group >= 0
    table[np.flatnonzero(ok), group[ok]] = score[ok]
    return table


def _rank_table(st: RankStats, score: np.ndarray, group: np.ndarray, counts) -> ScoreTable:
    return ScoreTable(_by_group(score, group, len(st.scale)), counts.classes, counts.seen, None)


def _nearest_mean_rank(st: RankStats) -> np.ndarray:
    """Column of the rank nearest each term's mean (lower on a tie); -1 where df = 0."""
    return np.where(st.df > 0, nearest_index(np.nan_to_num(st.mean), st.scale), -1)


def _var_idf(st, a, eps, form):
    _check_eps(eps, "eps")
    return 0.0 - (st.var + eps) * _idf_power(st, a, form)


# ----------------------------------------------------------------------------- methods
@register("var", "ordinal", "minus the variance of the ranks of the documents with the term",
          aggregates=("max",),
          formula=r"-\operatorname{Var}(Y_k) = -\frac{1}{\mathrm{df}_k} \sum_{y \in Y_k} "
                  r"(y - \bar y_k)^2",
          reference=BES)
def _var(counts):
    return global_table(counts, 0.0 - rank_stats(counts).var)  # 0.0 - x: no "-0.0"


@register("var_idf", "ordinal", "-(Var + eps) * IDF^a: low rank variance, not rare",
          aggregates=("max",),
          formula=r"-(\operatorname{Var}(Y_k) + \epsilon)\, " + _IDF
                  + r", \quad \mathrm{IDF}(t_k) = \ln(N / \mathrm{df}_k), \ \epsilon = 0.1",
          reference=BES)
def _var_idf_method(counts, a=1.0, eps=0.1, idf: IdfForm = "standard"):
    return global_table(counts, _var_idf(rank_stats(counts), a, eps, idf))


@register("rr_var", "ordinal", "-Var, round robin over the rank nearest each term's mean",
          default_aggregate="rr", aggregates=ORDINAL_RR,
          formula=r"-\operatorname{Var}(Y_k) \text{ in the list of rank } "
                  r"\arg\min_j \lvert r_j - \bar y_k \rvert",
          reference=BES)
def _rr_var(counts, balanced=False):
    st = rank_stats(counts, balanced)
    return _rank_table(st, 0.0 - st.var, _nearest_mean_rank(st), counts)


@register("rr_var_idf", "ordinal", "Var*IDF, round robin over the rank nearest each term's mean",
          default_aggregate="rr", aggregates=ORDINAL_RR,
          formula=r"-(\operatorname{Var}(Y_k) + \epsilon)\, " + _IDF
                  + r" \text{ in the list of rank } \arg\min_j \lvert r_j - \bar y_k \rvert",
          reference=BES)
def _rr_var_idf(counts, a=1.0, eps=0.1, idf: IdfForm = "standard", balanced=False):
    st = rank_stats(counts, balanced)
    return _rank_table(st, _var_idf(st, a, eps, idf), _nearest_mean_rank(st), counts)


@register("rr_igor", "ordinal", "information gain of y<=r vs y>r, round robin over the n-1 splits",
          default_aggregate="rr", aggregates=ORDINAL_RR,
          formula=r"\mathrm{IG}(t_k, \{y \le r_j\}) \text{ (the binary IG of ig) in the list "
                  r"of cut } j = 1, \dots, n - 1",
          reference=BES)
def _rr_igor(counts, base=2.0):
    """One binary problem per cut ``y <= r_j`` vs ``y >= r_{j+1}`` (RR(IGOR)), scored by the
    binary IG of presence. A cut with an empty side is skipped (our choice: its IG is 0); so
    is a cut that splits the documents exactly as the previous one did (it happens only when
    rank ``r_j`` has no documents), so that no partition takes two turns per round."""
    _, scale = check_ranks(counts.classes)
    N = counts.n_docs
    below = np.cumsum(counts.class_sizes)[:-1]  # N_{<= r_j}, j = 1..n-1
    keep = (below > 0) & (below < N) & np.r_[True, below[1:] != below[:-1]]
    if not keep.any():
        raise TextsiftError(
            "RR(IGOR) needs documents on both sides of some cut; all training documents have "
            f"the same rank ({scale[counts.class_sizes > 0].tolist()})"
        )
    A = np.cumsum(counts.presence_table(), axis=1)[:, :-1][:, keep]
    labels = np.array([f"<={_fmt(r)}" for r in scale[:-1][keep]], dtype=object)
    return ScoreTable(_ig_cuts(A, counts.df, below[keep], N, base), labels, counts.seen, None)


def _ig_cuts(A, df, below, N, base):
    """Binary IG of presence against every cut at once: the formula of
    :func:`textsift.scores.information.ig` (``sum n log n`` over the four cells minus the row
    and column margins plus ``N log N``, over ``N log base``). Every cell is an integer count
    ``<= N``, so ``n log n`` is read from a table of ``N + 1`` values, and each term's and
    cut's margin is computed once: RR(IGOR) then costs about what chi2 does
    (``bench/ordinal.py``)."""
    k = np.arange(N + 1, dtype=np.float64)
    nlogn = k * np.log(np.maximum(k, 1.0))  # 0 log 0 = 0 (entropy's convention); 1 log 1 = 0
    B = df[:, None] - A
    C = below[None, :] - A
    D = (N - below)[None, :] - B
    cells = nlogn[A] + nlogn[B] + nlogn[C] + nlogn[D]
    rows = (nlogn[df] + nlogn[N - df])[:, None]
    cols = (nlogn[below] + nlogn[N - below])[None, :]
    return np.maximum((cells - rows - cols + nlogn[N]) / (N * np.log(base)), 0.0)


@register("rr_nc_idf", "ordinal",
          "-(NC + eps) * IDF^a, NC = mean |r - y| at the best rank R; round robin over R",
          default_aggregate="rr", aggregates=ORDINAL_RR,
          formula=r"-(\mathrm{NC}(t_k, R_k) + \epsilon)\, " + _IDF + r", \quad "
                  r"\mathrm{NC}(t_k, r) = \frac{1}{\mathrm{df}_k} \sum_{y \in Y_k} "
                  r"\lvert r - y \rvert, \ R_k = \arg\min_r \mathrm{NC}(t_k, r) "
                  r"\text{ (its list)}",
          reference=BES)
def _rr_nc_idf(counts, a=1.0, eps=0.1, idf: IdfForm = "standard", balanced=False):
    """``NC(t_k, r_j) = (1/df_k) sum_{d in Tr_k} |r_j - y(d)|`` (RR(NC*IDF); the paper leaves
    the error open, MAE is our choice): the MAE on ``Tr_k`` of the trivial classifier that
    always says ``r_j``. ``R(t_k)`` is the lowest rank of least ``NC`` (a median of ``Y_k``;
    with ``balanced``, the weighted median and the weighted mean error, module docstring)."""
    _check_eps(eps, "eps")
    st = rank_stats(counts, balanced)
    nc_best, best = nc_at_best(st)
    score = 0.0 - (nc_best + eps) * _idf_power(st, a, idf)
    return _rank_table(st, score, best, counts)


def nc_at_best(st: RankStats) -> tuple[np.ndarray, np.ndarray]:
    """``NC(t_k, R(t_k))`` and the column of ``R(t_k)`` in ``st.scale`` for every term
    (Baccianella, Esuli & Sebastiani 2014): ``NC(t_k, r) = (1/df_k) sum_{y in Y_k} |r - y|``,
    the MAE on the documents containing ``t_k`` of always saying ``r``, and ``R(t_k)`` the
    lowest rank minimising it (a median of ``Y_k``). ``NaN`` and column -1 where df = 0.
    From balanced statistics (``rank_stats(counts, balanced=True)``) the mean is over the
    weighted documents (divided by ``st.mass``): the weighted median and mean error."""
    dist = np.abs(st.scale[:, None] - st.scale[None, :])  # (n, n): |r_i - r_j|
    with np.errstate(divide="ignore", invalid="ignore"):
        nc = st.counts @ dist / st.mass[:, None]
    best = np.where(st.df > 0, np.argmin(np.nan_to_num(nc, nan=np.inf), axis=1), -1)
    return nc[np.arange(len(best)), np.maximum(best, 0)], best


@register("prp", "ordinal",
          "IG after spreading each term's rank distribution over neighbouring ranks",
          aggregates=("max",), provisional=True,
          formula=r"\mathrm{IG}_{\mathrm{multi}} \text{ of } P'(t \mid r_j) N_j, \quad "
                  r"P'(t \mid r_j) = \frac{\sum_i S_{ij} P(t \mid r_i)}{\sum_i S_{ij}}, \ "
                  r"S_{ij} = s^{\lvert r_i - r_j \rvert}",
          reference="R. Mukras, N. Wiratunga, R. Lothian, S. Chakraborti and D. Harper, "
                    "\"Information gain feature selection for ordinal text classification using "
                    "probability re-distribution\", IJCAI 2007 Textlink workshop (provisional "
                    "form: the paper does not give it in full)")
def _prp(counts, s=0.5, base=2.0, balanced=False):
    """PRP, provisional form (the paper does not give it in full: this is our reading).

    ``P'(t|r_j) = sum_i S_ij P(t|r_i) / sum_i S_ij`` with ``S_ij = s^|r_i - r_j|`` over the
    ranks with documents (a rank with none has no ``P(t|r)``); the expected presence counts
    ``P'(t|r_j) N_j`` then feed the multi-class IG of presence (``ig_multi``). With
    ``balanced`` every rank weighs alike: counts ``P'(t|r_j) N / n'`` in ranks of ``N / n'``
    documents.
    """
    _check_balanced(balanced)
    if not 0 <= s <= 1:
        raise TextsiftError(f"the rank similarity s must be in [0, 1], got {s!r}")
    _, scale = check_ranks(counts.classes)
    has = counts.class_sizes > 0
    sizes = counts.class_sizes[has].astype(np.float64)
    scale = scale[has]
    S = s ** np.abs(scale[:, None] - scale[None, :])
    p = counts.presence_table()[:, has] / sizes[None, :]
    p_revised = p @ (S / S.sum(axis=0, keepdims=True))
    if balanced:
        sizes = np.full(len(sizes), sizes.sum() / len(sizes))
    return global_table(counts, ig_multi_from_counts(p_revised * sizes[None, :], sizes, base))


def _fmt(r: float) -> str:
    return str(int(r)) if float(r).is_integer() else str(r)
