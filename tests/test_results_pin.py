"""The numbers of two small experiments, pinned: a change of textsift that changes results
must raise ``validity.RESULTS_VERSION`` (so that no run directory resumes into a table that
mixes old and new numbers), and records the new digest beside it.

The experiments: four newsgroups of the shipped 20 Newsgroups sample (the first 30 training
and 30 test documents of each), ranked by chi2 (max), IG (round robin) and BNS (wavg) at 20
and 100 terms, fitted by naive Bayes and the linear SVM; and the shipped reviews' first 400
ratings, ranked by RR(NC*IDF) and Var at 5% and 20% of the vocabulary, fitted by the balanced
ε-SVR. The digest is a SHA-256 of their results tables, values rounded to 10 decimals (the
measures of a few dozen test documents are ratios of small integers, so only a change of a
prediction moves them)."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from textsift.experiment import parse_config, run_experiment
from textsift.experiment.validity import RESULTS_DIGESTS, RESULTS_VERSION
from textsift.reading.corpus import load_sample

NEWSGROUPS = ["comp.graphics", "rec.autos", "sci.space", "talk.politics.guns"]


def _write(frame: pd.DataFrame, path) -> str:
    frame.to_json(path, orient="records", lines=True)
    return str(path)


def _nominal(tmp_path) -> dict:
    frame = load_sample("20ng").frame
    part = frame[frame["label"].isin(NEWSGROUPS)].groupby(["label", "split"]).head(30)
    return {"experiment": {"name": "pin-nominal"},
            "corpus": {"path": _write(part[["text", "label", "split"]], tmp_path / "n.jsonl")},
            "preprocessing": {"min_df": 2},
            "selection": {"methods": ["chi2", "ig", "bns"], "aggregates": ["max", "rr", "wavg"],
                          "sizes": [20, 100]},
            "learners": [{"name": "nb"}, {"name": "linear_svm"}]}


def _ordinal(tmp_path) -> dict:
    frame = load_sample("reviews").frame.head(400)
    return {"experiment": {"name": "pin-ordinal"},
            "corpus": {"path": _write(frame[["text", "rating", "split"]], tmp_path / "o.jsonl"),
                       "label_field": "rating", "label_kind": "ordinal", "ranks": [1, 2, 3, 4, 5]},
            "evaluation": {"metrics": ["mae_macro", "mae_micro"]},
            "preprocessing": {"min_df": 2},
            "selection": {"methods": ["rr_nc_idf", "var"], "ratios": [0.05, 0.2]},
            "learners": [{"name": "svr", "balanced": True}]}


def results_digest(tmp_path) -> str:
    """The SHA-256 (16 hex digits) of both experiments' results, rows sorted."""
    rows = []
    for name, table in (("nominal", _nominal(tmp_path)), ("ordinal", _ordinal(tmp_path))):
        results = run_experiment(parse_config(table), tmp_path / name).results
        results = results.drop(columns=[c for c in results if c in ("dataset",)])
        results["value"] = results["value"].round(10)
        rows += sorted(json.dumps(r, sort_keys=True, default=str)
                       for r in results.to_dict("records"))
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def test_a_change_of_the_numbers_raises_the_results_version(tmp_path):
    digest = results_digest(tmp_path)
    if RESULTS_VERSION not in RESULTS_DIGESTS:  # the version was raised: its digest is due
        pytest.fail(f"record RESULTS_DIGESTS[{RESULTS_VERSION}] = {digest!r} in "
                    "textsift.experiment.validity (the numbers of the new version)")
    assert RESULTS_DIGESTS[RESULTS_VERSION] == digest, (
        f"the pinned experiments' results changed (digest {digest}): if the change of the "
        "numbers is meant, raise textsift.experiment.validity.RESULTS_VERSION and record "
        f"RESULTS_DIGESTS[{RESULTS_VERSION + 1}] = {digest!r}; otherwise it is a regression")


@pytest.mark.parametrize("version", [RESULTS_VERSION])
def test_every_results_version_has_its_digest(version):
    """The digests are a history: one per version, the current one included."""
    assert sorted(RESULTS_DIGESTS) == list(range(1, version + 1))
