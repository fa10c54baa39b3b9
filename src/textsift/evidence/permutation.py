"""Permutation p-values for any scoring method, and Westfall-Young max-T adjusted p-values.

Most scores have no textbook null distribution (BNS, IG, RC, DIA, the ordinal Var*IDF,
RR(IGOR), PRP); a permutation test gives each one a p-value. **The null hypothesis** is that
the documents are exchangeable with respect to the labels: the labels (a document's class,
its label set -- a row of the indicator, kept whole -- or its rank) carry no information about
which terms a document has. Under it every permutation of the labels across the documents is
as likely as the observed labelling, so the rank of the observed score among the scores of
``B`` random permutations is a p-value: ``p = (b + 1) / (B + 1)`` with ``b`` the permutations
scoring at least as high (B. V. North, D. Curtis and P. C. Sham, Am. J. Hum. Genet. 71
(2002) 439-441; the + 1 counts the observed labelling, so that no p-value is 0 and the test
is exact at level ``alpha`` for any ``B``). The smallest p-value it can give is ``1 / (B +
1)``: with 999 permutations, 0.001.

Each permutation re-derives the counts from the permuted labels with one sparse product
(``Y^T P``, ``P`` the presence matrix; ``Y^T X`` for the term frequencies), and recomputes
every method's table from them, as :func:`textsift.scores.compute_many` does; the class sizes,
``df`` and ``TF(t)`` do not change under a permutation. "At least as high" is one-sided in the
score's own direction: a two-sided score (chi2, BNS, IG) is large for both kinds of
difference, a signed one (g2, log_odds_dirichlet, acc) for over-representation.

**Max-T** (P. H. Westfall and S. S. Young, *Resampling-Based Multiple Testing*, Wiley 1993,
the single-step max-T procedure): the adjusted p-value of a cell is the share of
permutations whose *largest* score over the family beats it, ``(1 + #{b: max_family S_b >=
s}) / (B + 1)``. It controls the family-wise error and follows the dependence between terms
(which Bonferroni ignores); it is never below the raw p-value. The family is each group's
terms (``family="class"``, as :mod:`textsift.evidence.corrections`) or every cell (``"all"``).
Scores
are not on one scale across terms of very different frequency, so max-T favours the terms
whose null distribution is widest; for scores with a textbook test, the test's own p-values
with a correction are the better tool (docs/guide/evidence.md).

**When they differ from the asymptotic p-values**: for rare terms. A term in 3 documents has
only a few possible tables; the chi-square approximation of ``chi2`` or ``g2`` then gives
p-values far below what the permutation (or Fisher's exact test) allows.
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._bounds import POSITIVE
from ..counting._making import as_csr
from ..counting.counts import Counts
from ..errors import DataWarning, TextsiftError
from ..labels import as_labels
from ..scores import REGISTRY, compute_many
from .corrections import check_alpha, check_family

__all__ = ["PermutationResult", "needed_permutations", "permutation_pvalues", "smallest_pvalue"]


@dataclass(frozen=True, eq=False)
class PermutationResult:
    """The permutation test of one method.

    Attributes
    ----------
    pvalues : ndarray of shape (V, G)
        ``(b + 1) / (B + 1)``; NaN where the observed score is ``-inf`` (no score: an unseen
        term, or "no score in this group").
    maxt : ndarray of shape (V, G) or None
        Westfall-Young max-T adjusted p-values (``max_t=True``), else None.
    groups : ndarray of shape (G,)
    observed : ndarray of shape (V, G)
        The scores of the observed labels.
    n_permutations : int
    """

    pvalues: np.ndarray
    maxt: np.ndarray | None
    groups: np.ndarray
    observed: np.ndarray
    n_permutations: int


def smallest_pvalue(n_permutations: int) -> float:
    """The smallest p-value ``B`` permutations can give: ``1 / (B + 1)``."""
    return 1.0 / (n_permutations + 1)


def _check(n_permutations, alpha, n_tests) -> int:
    if n_permutations not in POSITIVE:
        raise TextsiftError(f"n_permutations must be a whole number >= 1 (999 is usual), got "
                            f"{n_permutations!r}")
    low = smallest_pvalue(int(n_permutations))
    if alpha is not None and low > check_alpha(alpha) / max(n_tests, 1):
        needed = needed_permutations(alpha, n_tests)
        warnings.warn(
            f"no term can pass: {int(n_permutations):,} permutations give p-values of at "
            f"least 1 / ({int(n_permutations):,} + 1) = {low:.3g}, and a term passes the "
            f"correction over {n_tests:,} tests at alpha {alpha:g} only with a p-value of at "
            f"most alpha / {n_tests:,} = {alpha / n_tests:.3g} (Bonferroni's threshold, and "
            f"the smallest of BH's). That takes {needed:,} permutations or more; use the "
            "method's own test instead (drop --permutations / n_permutations), or fewer "
            "tests (a higher --min-df)", DataWarning, stacklevel=3)
    return int(n_permutations)


def needed_permutations(alpha: float, n_tests: int) -> int:
    """The fewest permutations ``B`` whose smallest p-value ``1 / (B + 1)`` is at most
    ``alpha / n_tests``: ``ceil(n_tests / alpha) - 1``."""
    import math

    return max(math.ceil(round(n_tests / alpha, 9)) - 1, 1)


def permutation_pvalues(X, y, methods=None, n_permutations: int = 999, random_state=None, *,
                        classes=None, params: dict | None = None, max_t: bool = False,
                        family: str = "class", alpha: float | None = None, n_jobs=None,
                        progress=None, max_seconds: float | None = None
                        ) -> dict[str, PermutationResult]:
    """Permutation p-values of every term in every group of each of ``methods`` (names, or
    one name; default every nominal method that applies to the labels), from the
    document-term matrix ``X`` and the labels ``y`` (any labelling :meth:`Counts.from_matrix`
    reads), with ``n_permutations`` permutations drawn from ``random_state`` (module
    docstring).

    ``max_t`` adds the Westfall-Young adjusted p-values over ``family``; ``alpha`` (optional)
    warns when ``n_permutations`` is too few to reach it after a correction over the tests;
    ``n_jobs`` runs the permutations in that many processes (the result does not depend on
    it: the permutations are drawn in fixed blocks, each from its own seed);
    ``progress(done, total)`` is called as blocks of permutations finish. With
    ``max_seconds``, the first block (``BLOCK`` permutations) is timed and the whole run
    extrapolated from it (its time x the blocks / the workers): a run estimated to take
    longer is refused with the estimate, after that one block (which the run keeps)."""
    from joblib import delayed, effective_n_jobs

    from .._lock import parallel
    from ..errors import check_n_jobs

    X = as_csr(X)
    family = check_family(family)
    observed_counts = Counts.from_matrix(X, y, classes=classes)
    labels = as_labels(y, classes)
    # the observed scores, once: each method's table in the form it made it (the dense
    # values compared with, the groups, and a per-class table's absent cells all read it)
    tables = dict(compute_many(observed_counts, methods, params, dense=False))
    observed = {n: t.table().values.copy() for n, t in tables.items()}
    names = list(observed)
    width = max(v.shape[1] for v in observed.values()) if family == "all" else 1
    B = _check(n_permutations, alpha, int(observed_counts.seen.sum()) * width)
    n_jobs = check_n_jobs(n_jobs or 1, "n_jobs")
    job = _Job(observed_counts, _Relabel.of(X, labels, any(REGISTRY[n].reads_term_freq
                                                            for n in names)),
               names, params, observed,
               {} if max_t else _absent_beats(tables, observed), max_t, family)
    # lazily: a hundred million permutations are two million blocks, each with its seed
    blocks = zip(_sizes(B), _seeds(random_state), strict=False)  # the seeds do not end
    size0, seed0 = next(blocks)
    started = time.perf_counter()
    first = job(size0, seed0)  # here, timed: the run's estimate
    spent = time.perf_counter() - started
    if max_seconds is not None and B > BLOCK:
        _check_time(B, spent, effective_n_jobs(n_jobs), max_seconds)
    beaten = {n: np.zeros(v.shape, dtype=np.int64) for n, v in observed.items()}
    maxima: dict = {n: [] for n in observed}
    done = 0
    run = parallel(n_jobs, return_as="generator")
    rest = run(delayed(job)(size, seed) for size, seed in blocks) if B > BLOCK else ()
    for size, (part, peaks) in itertools.chain([(size0, first)],
                                               zip(_sizes(B, start=BLOCK), rest, strict=True)):
        for name in names:
            beaten[name] += part[name]
            maxima[name].extend(peaks.get(name, ()))
        done += size
        if progress is not None:
            progress(done, B)
    return {n: _result(observed[n], beaten[n], maxima[n] if max_t else None, B, family,
                       np.asarray(tables[n].groups)) for n in names}


def _sizes(B: int, start: int = 0):
    return (min(BLOCK, B - s) for s in range(start, B, BLOCK))


def _check_time(B: int, block_s: float, workers: int, max_seconds: float) -> None:
    """Refuse ``B`` permutations whose estimate -- one block's ``block_s`` seconds x the
    blocks / the ``workers`` -- is over ``max_seconds``, with the estimate and the most that
    fit."""
    from datetime import timedelta

    estimate = block_s * (B / BLOCK) / max(workers, 1)
    if estimate <= max_seconds:
        return
    fit = int(max_seconds / max(block_s, 1e-9) * BLOCK * max(workers, 1))
    said = timedelta(seconds=round(estimate))
    limit = timedelta(seconds=round(max_seconds))
    raise TextsiftError(
        f"{B:,} permutations would take about {said} here ({BLOCK} of them took "
        f"{block_s:.2f} s, on {workers} worker(s)), more than the {limit} allowed; use "
        f"fewer (about {fit:,} fit; 999 or 9,999 are usual), or the method's own test "
        "(drop --permutations / n_permutations)")


#: Permutations drawn from one seed (a block is the unit of parallel work).
BLOCK = 50


def _seeds(random_state):
    """Independent seeds from ``random_state`` (None, an int or a Generator), one per block,
    drawn as needed: the ``SeedSequence``'s children in order, as ``spawn(n)`` gives them
    at once."""
    if isinstance(random_state, np.random.Generator):
        random_state = int(random_state.integers(2**63))
    root = np.random.SeedSequence(random_state)
    while True:
        yield from root.spawn(1024)


@dataclass(frozen=True, eq=False)
class _Relabel:
    """The counts of a permutation of the labels, re-derived from the document-term matrix.
    One label per document (classes, ranks): ``A`` and ``TF(t, c)`` of every cell are one
    ``bincount`` each over the matrix's non-zeros, keyed by (term, the permuted label of
    their document) -- the keys computed once per permutation and shared by both. Label
    sets: one sparse product each, ``Y_p^T P`` and ``Y_p^T X`` (``P`` the presence
    matrix)."""

    terms: np.ndarray      # the term of each non-zero of X (single label)
    docs: np.ndarray       # the document of each non-zero of X
    weights: np.ndarray | None
    labels: object         # textsift.labels.Labels
    presence: sp.csr_matrix | None = None
    X: sp.csr_matrix | None = None

    @classmethod
    def of(cls, X: sp.csr_matrix, labels, term_freq: bool) -> _Relabel:
        if labels.multilabel:
            P = sp.csr_matrix(((X.data > 0).astype(np.float64), X.indices, X.indptr),
                              shape=X.shape)
            P.eliminate_zeros()
            return cls(np.zeros(0, np.intp), np.zeros(0, np.intp), None, labels, P,
                       X if term_freq else None)
        present = X.data > 0
        docs = np.repeat(np.arange(X.shape[0], dtype=np.int64), np.diff(X.indptr))[present]
        terms = X.indices[present].astype(np.int64)
        return cls(terms * labels.n_classes, docs,
                   X.data[present].astype(np.float64) if term_freq else None, labels)

    def tables(self, perm: np.ndarray, n_terms: int):
        """``(doc_counts, term_freq)`` of the labels permuted by ``perm`` (term_freq None
        when not needed)."""
        m = self.labels.n_classes
        if self.labels.multilabel:
            YT = self.labels.indicator[perm].astype(np.float64).T.tocsr()
            docs = np.ascontiguousarray((YT @ self.presence).toarray().T)
            tf = None if self.X is None else np.ascontiguousarray((YT @ self.X).toarray().T)
            return docs, tf
        keys = self.terms + self.labels.codes[perm][self.docs]
        docs = np.bincount(keys, minlength=n_terms * m).reshape(n_terms, m)
        tf = None if self.weights is None else np.bincount(
            keys, weights=self.weights, minlength=n_terms * m).reshape(n_terms, m)
        return docs, tf


def _absent_beats(tables: dict, observed: dict) -> dict:
    """For each per-class method held once per distinct one-vs-rest table: whether a cell
    with ``A = 0`` scores at least the observed score, as a flat (V * m) int8 array. A
    permutation keeps every term's ``df`` and every class's size, so a cell without a
    document of its class has the same score in every permutation (the ``(df, N_c)`` grid's):
    a permutation changes the count only at its own non-zero cells (:meth:`_Job.compare`);
    ``tables`` are the observed tables in the form the methods made them."""
    out = {}
    for name, values in observed.items():
        table = tables[name]
        absent = table.absent_grid()
        if absent is not None:
            grid = np.empty(values.shape)
            absent.block(0, values.shape[0], grid)
            out[name] = (grid >= values).ravel().view(np.int8)
    return out


@dataclass(frozen=True, eq=False)
class _Job:
    """One block of permutations: for each method, how often a permuted score reached the
    observed one, and the block's maxima for max-T."""

    counts: Counts
    relabel: _Relabel
    names: list
    params: dict | None
    observed: dict
    absent_beats: dict
    max_t: bool
    family: str

    def __call__(self, size: int, seed) -> tuple[dict, dict]:
        rng = np.random.default_rng(seed)
        beaten = {n: np.zeros(v.size, dtype=np.int32) for n, v in self.observed.items()}
        peaks: dict = {n: [] for n in self.names}
        c, buffers = self.counts, {}
        for _ in range(size):
            docs, tf = self.relabel.tables(rng.permutation(c.n_docs), c.n_terms)
            counts = Counts(c.classes, c.class_sizes, docs.astype(c.doc_counts.dtype), tf,
                            c.feature_names, c.n_docs, c.df, c.tf if tf is not None else None,
                            c.multilabel)
            for name, table in compute_many(counts, self.names, self.params, dense=False):
                shape = self.observed[name].shape  # where a sparse form is written
                buffer = buffers.get(shape)
                if buffer is None:
                    buffer = buffers[shape] = np.empty(shape)
                self.compare(name, table, beaten[name], peaks[name], buffer)
        for name, beats in self.absent_beats.items():
            beaten[name] += size * beats.astype(np.int32)
        return {n: b.reshape(self.observed[n].shape) for n, b in beaten.items()}, peaks

    def compare(self, name: str, table, beaten: np.ndarray, peaks: list, buffer) -> None:
        """Add one permutation's ``score >= observed`` to ``beaten`` (flat). A per-class
        method held per distinct table is compared at the permutation's non-zero cells only
        (the others score the ``A = 0`` grid's: :func:`_absent_beats`, added once per
        block), unless max-T asks for each permutation's largest scores."""
        observed = self.observed[name]
        if name in self.absent_beats:
            flat, nz = table.held_cells()
            beaten[flat] += ((nz >= observed.ravel()[flat]).view(np.int8)
                             - self.absent_beats[name][flat])
            return
        values = table.table(buffer).values
        beaten += (values >= observed).ravel()
        if self.max_t:
            peaks.append(values.max() if self.family == "all" else values.max(axis=0))


def _result(observed, beaten, maxima, B, family, groups) -> PermutationResult:
    scored = observed > -np.inf
    p = np.where(scored, (beaten + 1.0) / (B + 1.0), np.nan)
    maxt = None
    if maxima is not None:
        m = np.asarray(maxima)  # (B,) for "all", (B, G) for "class"
        if family == "all":
            ge = np.searchsorted(np.sort(m), observed.ravel(), side="left")
            count = (B - ge).reshape(observed.shape)
        else:
            count = np.empty(observed.shape, dtype=np.int64)
            for j in range(observed.shape[1]):
                ge = np.searchsorted(np.sort(m[:, j]), observed[:, j], side="left")
                count[:, j] = B - ge
        maxt = np.where(scored, np.maximum((count + 1.0) / (B + 1.0), p), np.nan)
    return PermutationResult(p, maxt, groups, observed, B)
