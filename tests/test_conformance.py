"""The conformance grid: every public view x every label kind x every layout of the per-label
table gives the same answer on both layouts, or the same documented refusal.

The grid is generated: the label kinds are :class:`textsift.labels.LabelKind`'s members (each
corpus's labels drawn by its kind, ``LabelKind.example``), the
layouts ``textsift.counting._tables.LAYOUTS`` (less ``auto``), the methods each view runs are read
from the scoring registry (every method serving the kind; the tested ones for the views of
p-values; the ordinal ones for ``OrdinalSelector``; each policy a method takes; every
correction and family), the learner and measure of an experiment
from theirs, so a new kind, layout or method joins it without editing it. A new view is one
``view_...`` function. The layout is forced where every view's counts choose theirs
(``choose_layout``, asked for ``auto``, answers the layout of the case: :func:`force_layout`),
so a view that counts for itself -- a selector's ``fit``, the command line, an experiment's
folds -- runs on the forced layout too; each case checks that its counts took that layout.

The identity of the two layouts is exact for everything but ``sum``/``wavg`` globalised
scores, which add the same values in another order (to rounding: ``rtol=1e-12``); rankings
are compared term for term."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from typer.testing import CliRunner

import textsift.counting._making as making
import textsift.counting._tables as counting
import textsift.counting.counts as counts_stage
from textsift import Counts, OrdinalSelector, TermSelector, rank
from textsift.errors import TextsiftError
from textsift.evidence.corrections import CORRECTIONS, FAMILIES
from textsift.evidence.reference import against_corpus
from textsift.evidence.significant import significant_counts, significant_terms
from textsift.evidence.terms import evidence
from textsift.experiment import parse_config, run_experiment
from textsift.labels import LabelKind
from textsift.learners import LEARNERS
from textsift.learners.metrics import MEASURES
from textsift.scores import REGISTRY
from textsift.selection.ranking import rank_per_class

LAYOUTS = [layout for layout in counting.LAYOUTS if layout != "auto"]
KINDS = list(LabelKind)


def corpus(kind: LabelKind, seed: int = 0, n_docs: int = 60, n_terms: int = 40):
    """A random count matrix, its term names and labels of ``kind`` (its rules' own example:
    ``LabelKind.example``, so a new kind joins the grid by registering only)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=0.15, format="csr", random_state=rng,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(float))
    names = np.array([f"w{i:02d}" for i in range(n_terms)], dtype=object)
    return X, names, kind.example(rng, n_docs)


def force_layout(mp, layout: str) -> list[str]:
    """Every per-label table whose layout is chosen (``auto``) counted in ``layout``; the list
    returned receives each layout so chosen."""
    choose, chosen = counting.choose_layout, []

    def forced(asked, n_cells, n_nonzero):
        chosen.append(choose(layout if asked == "auto" else asked, n_cells, n_nonzero))
        return chosen[-1]

    for module in (counting, counts_stage, making):  # where it is called from
        mp.setattr(module, "choose_layout", forced)
    return chosen


@pytest.fixture(params=LAYOUTS)
def layout(request, monkeypatch):
    """Every per-label table counted in this layout (``choose_layout``'s ``auto``)."""
    force_layout(monkeypatch, request.param)
    return request.param


def serving(kind: LabelKind, tested: bool = False, per_class: bool = False) -> list[str]:
    """The registered methods that serve ``kind`` (with a p-value; scoring each class)."""
    out = []
    for name, m in sorted(REGISTRY.items()):
        if not kind.serves(m) or (tested and m.pvalue is None):
            continue
        if per_class and m.kind.ranks:
            continue  # an ordinal method's groups are ranks or cuts, not one-vs-rest classes
        out.append(name)
    return out


def _counts(kind, layout, seed=0):
    X, names, y = corpus(kind, seed)
    counts = Counts.from_matrix(X, y, feature_names=names)
    assert counts.layout == layout
    return counts


def _ranking(r) -> tuple:
    return (list(r.index), np.asarray(r.scores, dtype=float).round(12).tolist())


def _first_class(counts) -> str:
    return str(counts.classes[np.argmax(counts.class_sizes)])


# ---------------------------------------------------------------- the views
# each: (counts maker's kind, layout) -> a comparable value; a TextsiftError is a refusal


def view_score(kind, layout):
    """``score``: each method's ranking under each policy it takes (its registry entry's
    ``aggregates``), or the refusal."""
    counts = _counts(kind, layout)
    out = {}
    for m in serving(kind):
        for policy in REGISTRY[m].aggregates:
            try:
                out[m, policy] = _ranking(rank(counts, m, policy, top=15))
            except TextsiftError as e:
                out[m, policy] = ("refused", str(e))
    return out


def view_score_class(kind, layout):
    counts = _counts(kind, layout)
    c = _first_class(counts)
    return {m: _ranking(rank(counts, m, class_label=c, top=10, direction="over"))
            for m in serving(kind, per_class=True)}


def view_direction(kind, layout):
    counts = _counts(kind, layout)
    out = {}
    for m in serving(kind, per_class=True):
        for direction in ("over", "under"):
            try:
                out[m, direction] = _ranking(rank(counts, m, "max", top=10,
                                                  direction=direction))
            except TextsiftError as e:
                out[m, direction] = ("refused", str(e))
    return out


def view_per_class(kind, layout):
    counts = _counts(kind, layout)
    return {m: [_ranking(r) for r in rank_per_class(counts, m, top=5)]
            for m in serving(kind, per_class=True)}


def view_evidence(kind, layout):
    counts = _counts(kind, layout)
    c = _first_class(counts)
    out = {}
    for m in serving(kind, per_class=True):
        frame = evidence(counts, rank(counts, m, class_label=c, top=8), m)
        out[m] = frame.round(10).astype(str).to_dict("list")
    return out


def view_alpha(kind, layout):
    """``score --alpha``: each tested method under each correction of the registry
    (``CORRECTIONS``) and family."""
    counts = _counts(kind, layout)
    out = {}
    for m, correction, family in itertools.product(serving(kind, tested=True), CORRECTIONS,
                                                   FAMILIES):
        try:
            index, p = significant_terms(counts, m, alpha=0.5, correction=correction,
                                         family=family)
            out[m, correction, family] = (list(index), np.round(p, 12).tolist())
        except TextsiftError as e:
            out[m, correction, family] = ("refused", str(e))
    return out


def view_per_class_evidence(kind, layout):
    counts = _counts(kind, layout)
    out = {}
    for m in serving(kind, tested=True, per_class=True):
        try:
            out[m] = significant_counts(counts, m, alpha=0.5).to_dict()
        except TextsiftError as e:
            out[m] = ("refused", str(e))
    return out


def view_reference_corpus(kind, layout):
    target = _counts(kind, layout, seed=0)
    X, names, y = corpus(kind, seed=1)
    reference = Counts.from_matrix(X, y, feature_names=names)
    both = against_corpus(target, reference, _first_class(target))
    return {m: _ranking(rank(both, m, class_label=str(both.classes[0]), top=10))
            for m in serving(LabelKind.NOMINAL, per_class=True)
            if not REGISTRY[m].requires}


def view_selector(kind, layout):
    X, names, y = corpus(kind)
    if kind.label_sets:
        from sklearn.preprocessing import MultiLabelBinarizer
        y = MultiLabelBinarizer().fit_transform(y)
    out = {}
    for m in serving(kind, tested=True):
        sel = TermSelector(m, k=7).fit(X, y)
        out[m] = (sel.get_support(indices=True).tolist(),
                  np.round(sel.transform(X).toarray(), 12).tolist(),
                  np.round(sel.pvalues_, 12).tolist())
    return out


def view_permutation(kind, layout):
    from textsift.evidence.permutation import permutation_pvalues

    X, _, y = corpus(kind)
    methods = [m for m in ("chi2", "g2") if m in serving(kind)]
    if not methods:
        pytest.skip("no permuted method serves this kind")
    found = permutation_pvalues(X, y, methods, n_permutations=19, random_state=0)
    return {m: np.round(r.pvalues, 12).tolist() for m, r in found.items()}


def view_explore_data(kind, layout):
    from textsift.report.explore_data import explore_data

    counts = _counts(kind, layout)
    data = explore_data(counts, methods=serving(kind)[:6], k=10, top=5, alpha=0.5)
    return json.loads(json.dumps(data, sort_keys=True, default=str))


def write_corpus(kind, path, split: bool = False) -> str:
    """:func:`corpus` as a JSON Lines file of texts (each term repeated its count) and labels;
    with ``split``, the first two thirds the training part, the rest the test part."""
    X, names, y = corpus(kind)
    rows = []
    for d in range(X.shape[0]):
        text = " ".join(" ".join([names[t]] * int(X[d, t])) for t in X[d].indices)
        rows.append({"text": text, "label": y[d]} |
                    ({"split": "train" if 3 * d < 2 * X.shape[0] else "test"} if split else {}))
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return str(path)


def view_cli_class_evidence(kind, layout, tmp_path):
    """``textsift score FILE --class C --evidence`` (in this process, so the layout holds)."""
    from textsift.cli import app

    path = write_corpus(kind, tmp_path / "c.jsonl")
    counts = _counts(kind, layout)
    c = _first_class(counts)
    out = {}
    for m in serving(kind, per_class=True)[:8]:
        res = CliRunner().invoke(app, ["score", path, "--method", m, "--class", c,
                                       "--evidence", "--top", "5", "-f", "json"])
        out[m] = (res.exit_code, res.stdout if res.exit_code == 0 else res.stderr)
        assert res.exit_code in (0, 2), res.output
        assert "Traceback" not in res.output
    return out


def view_ordinal_selector(kind, layout):
    """``OrdinalSelector`` with each ordinal method of the registry: the kept columns, the
    transformed matrix and ``pvalues_`` (refused for a method without a test); labels that
    are not ranks are refused at ``fit``."""
    X, _, y = corpus(kind)
    out = {}
    for m in sorted(n for n, method in REGISTRY.items() if method.kind.ranks):
        try:
            sel = OrdinalSelector(m, k=7).fit(X, y)
        except TextsiftError as e:
            out[m] = ("refused", str(e))
            continue
        out[m] = [sel.get_support(indices=True).tolist(),
                  np.round(sel.transform(X).toarray(), 12).tolist()]
        try:
            out[m].append(np.round(sel.pvalues_, 12).tolist())
        except TextsiftError as e:
            out[m].append(("refused", str(e)))
    return out


def _first_serving(registry: dict, kind: LabelKind) -> str:
    return next(name for name, entry in registry.items() if kind.serves(entry))


def view_run(kind, layout, tmp_path):
    """``textsift run``: an experiment on a train/test split at 5 and 10 terms of two
    methods, with the first learner and measure of the registries serving the kind, in the
    scope ``global`` and ``local`` (each label's own terms: label sets only, refused for the
    other kinds). The answer is the results table."""
    out = {}
    for scope in ("global", "local"):
        where = tmp_path / f"{layout}-{scope}"
        where.mkdir()
        table = {"corpus": {"path": write_corpus(kind, where / "c.jsonl", split=True),
                            "label_kind": str(kind.declared)},
                 "evaluation": {"metrics": [_first_serving(MEASURES, kind)]},
                 "selection": {"methods": serving(kind)[:2], "sizes": [5, 10],
                               "scope": [scope]},
                 "learners": [{"name": _first_serving(LEARNERS, kind)}]}
        if kind.ranks:
            table["corpus"]["ranks"] = [1, 2, 3, 4, 5]
        try:
            results = run_experiment(parse_config(table), where / "out").results
        except TextsiftError as e:
            out[scope] = ("refused", str(e).replace(str(where), "DIR"))
            continue
        out[scope] = results.drop(columns="dataset").round(10).astype(str).to_dict("list")
    return out


VIEWS = {name[len("view_"):]: fn for name, fn in dict(globals()).items()
         if name.startswith("view_")}


@pytest.mark.parametrize("kind", KINDS, ids=str)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_every_view_is_the_same_on_every_layout(view, kind, tmp_path, monkeypatch):
    """The answer (or the refusal) of ``view`` on ``kind``'s corpus is the same in every
    layout: the dense layout's is the reference."""
    answers = {}
    for layout_name in LAYOUTS:
        with monkeypatch.context() as mp:
            chosen = force_layout(mp, layout_name)
            fn = VIEWS[view]
            args = (kind, layout_name) + ((tmp_path,) if "tmp_path" in fn.__code__.co_varnames
                                          else ())
            try:
                answers[layout_name] = fn(*args)
            except TextsiftError as e:
                answers[layout_name] = ("refused", str(e))
        # the view counted in the layout, unless it was refused before any counting
        assert layout_name in chosen or _refused(answers[layout_name]), (view, kind, chosen)
    reference = answers[LAYOUTS[0]]
    for layout_name in LAYOUTS[1:]:
        assert _same(answers[layout_name], reference), (view, kind, layout_name)


def _refused(answer) -> bool:
    """Whether every part of a view's answer is a refusal."""
    if isinstance(answer, dict):
        return bool(answer) and all(_refused(v) for v in answer.values())
    return isinstance(answer, tuple) and answer[:1] == ("refused",)


def _same(a, b) -> bool:
    """Equality of two answers, floats to 1e-12 relative (the sums of another order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return (np.isnan(a) and np.isnan(b)) or bool(np.isclose(a, b, rtol=1e-12, atol=0))
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return a == b


def test_the_grid_covers_every_kind_with_views_that_apply():
    """Each kind has methods in the grid's views (a kind no method served would pass
    vacuously)."""
    for kind in KINDS:
        assert serving(kind), kind
        assert serving(kind, tested=True), kind


def test_class_evidence_on_the_sparse_layout_of_label_sets(layout):
    """The crash the grid found: ``score --class C --evidence`` on a sparse per-label table
    read ``doc_counts[index, cls]`` as a 1 x n matrix. The evidence of the class's first
    terms: A of each is its documents in the class (the hand count from the matrix)."""
    X, names, y = corpus(LabelKind.MULTILABEL)
    counts = Counts.from_matrix(X, y, feature_names=names)
    assert counts.layout == layout
    frame = evidence(counts, rank(counts, "g2", class_label="joy", top=5), "g2")
    has_joy = np.array(["joy" in labels for labels in y])
    present = (X > 0).toarray()
    index = [int(np.flatnonzero(names == t)[0]) for t in frame["term"]]
    assert frame["A"].tolist() == present[has_joy][:, index].sum(axis=0).tolist()
    assert (frame["A"] + frame["C"]).tolist() == [int(has_joy.sum())] * len(frame)
