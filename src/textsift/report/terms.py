"""The report's tables of terms, from the run's ``terms.csv`` and ``class_terms.csv`` (what its
trials ranked on fold 0: :mod:`textsift.experiment.runner`): the top terms of every method side
by side, a note naming the methods whose top terms are rare words, and the best method, whose
terms of each class the report shows; and from ``term_evidence.csv`` (computed by the run on
fold 0 and handed on: ``textsift.experiment._shown``), each top term's evidence and
dispersion in its class, which the side-by-side table links to (:func:`evidence_tables`). The
page's sections of terms, put together from these tables, are ``terms_sections``'.
"""

from __future__ import annotations

import html
import json
import math
from typing import TYPE_CHECKING

import pandas as pd

from ..learners.metrics import lower_is_better
from ..text.vectorize import min_documents
from .plots import BASELINES, label_of, learner_title, method_name, metric_name, one_policy_each

if TYPE_CHECKING:
    from ..experiment.specs import Experiment
    from ..experiment.store import Store

__all__ = ["EVIDENCE_SHOWN", "best_method", "class_evidence", "evidence_tables",
           "linked_terms_table",
           "rare_df", "rare_terms_note", "top_terms_table"]

#: The columns of ``term_evidence.csv`` the report shows, with their headers: the counts, the
#: test, the effect sizes (with their intervals, ``_low`` and ``_high``), the tokens and the
#: dispersion of the term in its class (target) and in the other documents (reference).
EVIDENCE_SHOWN = {
    "class": "class", "A": "A", "B": "B", "C": "C", "D": "D", "p": "p", "q": "q",
    "log_ratio": "log2 ratio [95%]", "lrc": "LRC", "or_haldane": "odds ratio [95%]",
    "prop_diff": "difference of proportions [95%]",
    "n_target": "tokens in class", "n_reference": "tokens in rest",
    "range_target": "range in class", "range_reference": "range in rest",
    "dp_target": "DP in class", "dp_reference": "DP in rest",
    "dp_norm_target": "DPnorm in class", "dp_norm_reference": "DPnorm in rest",
    "cv_target": "CV in class", "cv_reference": "CV in rest"}


def top_terms_table(terms: pd.DataFrame, top: int = 15) -> pd.DataFrame:
    """Top terms of every (method, policy) as side-by-side columns (rows are positions)."""
    single = one_policy_each(terms)
    terms = terms[terms["position"] <= top]
    cols = {label_of(m, a, single): g.set_index("position")["term"]
            for (m, a), g in terms.groupby(["method", "aggregate"], sort=False)}
    return pd.DataFrame(cols).rename_axis("position")


def _anchor(k: int, position) -> str:
    """The id of the evidence row of selection ``k``'s term at ``position``."""
    return f"ev-{k}-{int(position)}"


def linked_terms_table(terms: pd.DataFrame, evidence: pd.DataFrame, top: int = 15
                       ) -> pd.DataFrame:
    """:func:`top_terms_table` as HTML cells: each term (escaped) a link to its row of
    :func:`evidence_tables` where ``evidence`` has one."""
    table = top_terms_table(terms, top)
    evidence = _top(evidence)
    has = set(zip(evidence["method"], evidence["aggregate"], evidence["position"],
                  strict=True))
    keys = list(terms.groupby(["method", "aggregate"], sort=False).groups)
    out = table.copy().astype(object)
    for k, (column, (m, a)) in enumerate(zip(table.columns, keys, strict=True)):
        out[column] = [
            "" if not isinstance(term, str) else
            f'<a href="#{_anchor(k, pos)}">{html.escape(term)}</a>' if (m, a, pos) in has
            else html.escape(term) for pos, term in zip(table.index, table[column],
                                                        strict=True)]
    return out


def _written(row: pd.Series, name: str) -> str:
    """A value of the evidence as the report writes it: counts as integers, the rest to 3
    significant digits, an effect size with its interval, nothing for a missing value."""
    value = row.get(name)
    if isinstance(value, str):
        return html.escape(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if name in ("A", "B", "C", "D", "position") or name.startswith(("n_", "range_")):
        return f"{int(value):,}"
    text = f"{value:.3g}".replace("inf", "\u221e")
    if f"{name}_low" in row.index:
        low, high = (f"{row[f'{name}_{e}']:.3g}".replace("inf", "\u221e")
                     for e in ("low", "high"))
        text += f" [{low}, {high}]"
    return text


def _table(rows: pd.DataFrame, anchors: list[str], first: tuple = ("position",)) -> str:
    """The evidence ``rows`` as an HTML table, row ``i`` with the id ``anchors[i]``: the
    columns ``first``, the term, then those of :data:`EVIDENCE_SHOWN` that have a value."""
    shown = [c for c in EVIDENCE_SHOWN if c in rows.columns and rows[c].notna().any()
             and c not in first]
    head = "".join(f"<th>{html.escape(x)}</th>"
                   for x in (*first, "term", *(EVIDENCE_SHOWN[c] for c in shown)))
    body = "".join(
        f'<tr id="{anchor}">' + "".join(f"<td>{_written(row, c)}</td>" for c in first)
        + f"<td>{html.escape(str(row['term']))}</td>"
        + "".join(f"<td>{_written(row, c)}</td>" for c in shown) + "</tr>"
        for anchor, (_, row) in zip(anchors, rows.iterrows(), strict=True))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _top(evidence: pd.DataFrame) -> pd.DataFrame:
    """The evidence rows of the selections' top terms."""
    return evidence[evidence["list"] == "top"]


def evidence_tables(terms: pd.DataFrame, evidence: pd.DataFrame, top: int = 15) -> list[str]:
    """For each selection of ``terms`` (in its order), a table of its first ``top`` terms'
    evidence rows (:data:`EVIDENCE_SHOWN`), each row with the id the side-by-side table links
    to (:func:`linked_terms_table`)."""
    single = one_policy_each(terms)
    out = []
    evidence = _top(evidence)
    keys = list(terms.groupby(["method", "aggregate"], sort=False).groups)
    for k, (m, a) in enumerate(keys):
        rows = evidence[(evidence["method"] == m) & (evidence["aggregate"] == a)
                        & (evidence["position"] <= top)]
        if not rows.empty:
            out.append(f"<h3>{html.escape(label_of(m, a, single))}</h3>"
                       + _table(rows, [_anchor(k, p) for p in rows["position"]]))
    return out


def class_evidence(classes: pd.Series, evidence: pd.DataFrame) -> tuple[list[str], str]:
    """For the classes of a class-terms table (``classes``, in its rows' order) and one
    selection's ``evidence`` rows: each class's terms as links to their rows (one HTML cell
    per class, ``", "``-joined), and the table of those rows, grouped by class."""
    rows = evidence[evidence["list"] == "class"]
    cells, parts, anchors = [], [], []
    for i, c in enumerate(classes):
        own = rows[rows["class"].astype(str) == str(c)].sort_values("position")
        ids = [f"cev-{i}-{int(p)}" for p in own["position"]]
        cells.append(", ".join(f'<a href="#{a}">{html.escape(str(t))}</a>'
                               for a, t in zip(ids, own["term"], strict=True)))
        parts.append(own)
        anchors += ids
    if not anchors:
        return cells, ""
    return cells, _table(pd.concat(parts), anchors, first=("class", "position"))


def rare_df(min_df: int) -> int:
    """The document frequency at or below which the report calls a term rare: twice the
    vocabulary's floor ``min_df`` (in documents), and at least 3.

    A vocabulary is Zipf-shaped: about half the terms ``min_df`` keeps are within twice the
    floor (on the bundled 20 Newsgroups sample the median df of a fold's training vocabulary
    is 6 with ``min_df = 3`` and 4 with ``min_df = 2``), so a term at or below the limit is
    among the rarer half of the vocabulary; 3 documents are few in any corpus.

    >>> rare_df(1), rare_df(2), rare_df(5)
    (3, 4, 10)
    """
    return max(3, 2 * int(min_df))


def rare_terms_note(terms: pd.DataFrame, min_df: int = 1, top: int = 15) -> str | None:
    """One line naming every method (and policy) of ``terms`` (with its ``df`` column) more
    than half of whose top ``top`` terms are rare (``df <= rare_df(min_df)``), and why; None
    when there is none. The rule reads only document frequencies, never method names."""
    if "df" not in terms:
        return None
    limit = rare_df(min_df)
    single = one_policy_each(terms)
    head = terms[terms["position"] <= top]
    rare = [label_of(m, a, single)
            for (m, a), g in head.groupby(["method", "aggregate"], sort=False)
            if (g["df"] <= limit).sum() * 2 > len(g)]
    if not rare:
        return None
    return (f"{', '.join(rare)}: most of their top {top} terms occur in at most {limit} "
            f"training documents (min_df {min_df}). These scores reward a term for belonging "
            "to one class (or one rank), not for being frequent, and a word seen in a "
            "document or two belongs to one class: it gets the best score there is.")


def best_method(summary: pd.DataFrame, learner: str, metric: str) -> tuple[str, str] | None:
    """The (method, policy) whose mean ``metric`` with ``learner``, averaged over the levels
    below "all" (where every method keeps every term and so ties), is best; the first in
    name order among equals. Baselines are not candidates; None when there is no method, or
    no method has a value (no term passed its alpha in any fold: the run's note says so)."""
    part = summary[(summary["learner"] == learner) & (summary["metric"] == metric)
                   & ~summary["method"].isin(list(BASELINES))]
    if "ratio" in part:
        below = part[~(part["ratio"] == 1)]
        part = below if len(below) else part
    means = part.groupby(["method", "aggregate"])["mean"].mean().dropna()
    if means.empty:
        return None
    best = means.min() if lower_is_better(metric) else means.max()
    return means[means == best].index[0]


def terms_sections(store: Store, exp: Experiment, summary: pd.DataFrame) -> list[str]:
    """The report's sections of terms (HTML fragments, :func:`textsift.report.html.write_report`'s
    page): the top terms of each method side by side (with the note on rare terms), linked to
    their evidence when the run wrote it, then the top terms of each class under the best
    method, both on fold 0, as the run wrote them."""
    out = []
    terms_path = store.root / "terms.csv"
    run_path = store.root / "run.json"
    run = json.loads(run_path.read_text()) if run_path.exists() else {}
    evidence_path = store.root / "term_evidence.csv"
    evidence = None if not evidence_path.exists() else pd.read_csv(  # none: an earlier run's
        evidence_path, keep_default_na=False, na_values=[""], dtype={"class": str, "term": str})
    if terms_path.exists():
        out.append("<h2>Top terms of each method (fold 0)</h2>")
        terms = pd.read_csv(terms_path, keep_default_na=False)
        min_df = min_documents(exp.preprocessing.min_df, run.get("fold_0_documents"))
        note = rare_terms_note(terms, min_df)
        if note:
            out.append(f"<p class='note'>{html.escape(note)}</p>")
        if evidence is None:
            out.append(top_terms_table(terms).to_html(escape=True, index_names=False))
        else:
            out.append(linked_terms_table(terms, evidence).to_html(escape=False,
                                                                    index_names=False))
            out += _evidence_section(terms, evidence)
    learner, metric = exp.learners[0], exp.metrics[0]
    best = best_method(summary, learner.label, metric)
    classes_path = store.root / "class_terms.csv"
    if best is None or not classes_path.exists():
        return out
    method, aggregate = best
    every = pd.read_csv(classes_path, keep_default_na=False, dtype={"class": str})
    part = every[(every["method"] == method) & (every["aggregate"] == aggregate)]
    if part.empty:
        return out
    table = part.set_index("class")[["training documents", "terms"]].rename_axis(None)
    name = method_name(method)
    what = exp.kind.unit
    how = (f"its own column of {name}'s scores (the {what} against the rest)"
           if bool(part["own_column"].iloc[0]) else
           f"the terms of {name}'s ranking (policy {aggregate}) found in the largest share of "
           f"that {what}'s documents")
    out.append(f"<h2>Top terms of each {what}: {html.escape(name)} (fold 0)</h2>")
    out.append("<p>" + html.escape(f"{name} (policy {aggregate}) has the best mean ")
               + metric_name(metric, "html", direction=False) + html.escape(
                   f" of {learner_title(learner)} over the levels below all. A {what}'s "
                   f"terms are {how}.") + "</p>")
    mine = None if evidence is None else evidence[(evidence["method"] == method)
                                                  & (evidence["aggregate"] == aggregate)]
    if mine is None or mine.empty:
        out.append(table.to_html(escape=True))
        return out
    cells, rows = class_evidence(table.index, mine)
    linked = table.assign(terms=[cell or html.escape(str(t)) for cell, t in
                                 zip(cells, table["terms"], strict=True)])
    out.append(linked.to_html(escape=False))
    if rows:
        out.append(f"<h3>Evidence and dispersion of each {what}'s terms: "
                   f"{html.escape(name)}</h3>")
        out.append("<p>" + html.escape(f"Each term in the {what} whose list it is, with the "
                                       "columns above.") + "</p>")
        out.append(rows)
    return out


def _evidence_section(terms: pd.DataFrame, evidence: pd.DataFrame) -> list[str]:
    """Each top term's evidence and dispersion in its class, as the run computed them on
    fold 0 (``term_evidence.csv``), a table per method: the terms above link to their rows."""
    tables = evidence_tables(terms, evidence)
    if not tables:
        return []
    text = ("Each top term in the class that gives it its best score, on fold 0's training "
            "part: A and B, the documents with it in the class and in the rest, C and D "
            "those without it; the method's p and q (Benjamini-Hochberg over the class's terms), "
            "the effect sizes with 95% intervals; its tokens, range (documents with it), "
            "Gries' DP and DPnorm (0: spread over the documents in proportion to their "
            "sizes, near 1: held by a few) and the coefficient of variation of its relative "
            "frequency, in the class and in the rest. `textsift score --evidence` gives the "
            "same columns and the document-level tests.")
    return ["<h2>Evidence and dispersion of the top terms (fold 0)</h2>",
            f"<p>{html.escape(text)}</p>", *tables]
