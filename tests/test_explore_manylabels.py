"""The explore page of many labels: a search box among the labels, the page holding what
the labels share, each label's own ranking and counts in shard files beside it (loaded when
the label is chosen) -- the rankings of ``textsift score --class`` and the counts."""

from __future__ import annotations

import base64
import gzip
import json
import re

import numpy as np
import pytest
from test_manylabels_doors import tagged
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.report.explore import explore, labels_folder
from textsift.report.explore_data import page_parts
from textsift.report.explore_labels import LABEL_CAP, MANY, SHARD
from textsift.selection.ranking import rank

runner = CliRunner()


@pytest.fixture(scope="module")
def counts():
    X, tags = tagged(3, n_docs=700, n_terms=800, n_tags=400)
    names = np.array([f"w{i}" for i in range(X.shape[1])], dtype=object)
    return Counts.from_matrix(X, [[f"tag{t}" for t in ts] for ts in tags],
                              feature_names=names)


def test_the_page_of_many_labels_holds_what_they_share(counts):
    assert counts.n_classes > MANY
    data, shards = page_parts(counts)
    assert [m["name"] for m in data["methods"]] == ["chi2"]  # the one method, unless asked
    assert data["methods"][0]["per_class"]
    assert "c" not in data["views"]["chi2"]  # no label's own list in the page
    assert set(data["views"]["chi2"]["p"]) == {"max", "sum", "wavg", "rr"}
    assert data["counts"] == {"ptr": [0] * (len(data["terms"]) + 1), "cls": [], "n": []}
    assert data["many"] == {"shard": SHARD, "label_cap": LABEL_CAP, "folder": None}
    assert len(list(shards)) == -(-counts.n_classes // SHARD)


def test_each_label_shard_is_its_own_ranking_and_counts(counts):
    """A shard's label: its chi2 top terms over- and under-represented in it, and their
    scores, as `score --class --direction over` (and under) ranks them (to the page's four
    significant digits), and its document count of each of its terms."""
    _, shards = page_parts(counts)
    docs = counts.doc_counts.toarray() if counts.layout == "sparse" else counts.doc_counts
    names = list(counts.feature_names)
    for number, payload in shards:
        for i in (0, len(payload["a"]) - 1):
            j = payload["first"] + i
            label = counts.classes[j]
            for key, way in (("c", "over"), ("cu", "under")):
                ids, scores = payload["views"]["chi2"][key][i]
                want = rank(counts, "chi2", class_label=label, top=LABEL_CAP, direction=way)
                want = want.index[want.scores > -np.inf], want.scores[want.scores > -np.inf]
                assert [payload["terms"][x] for x in ids] == list(counts.feature_names[want[0]])
                np.testing.assert_allclose(scores, want[1], rtol=1e-3)
            both = payload["views"]["chi2"]["cd"][i]
            assert set(both) <= {"+", "-"} and len(both) <= LABEL_CAP
            held, n = payload["a"][i]
            for x, a in zip(held, n, strict=True):
                assert docs[names.index(payload["terms"][x]), j] == a
            assert all(docs[names.index(t), j] == 0 for x, t in enumerate(payload["terms"])
                       if x not in held)
        assert payload["first"] == number * SHARD


def test_explore_writes_the_shards_beside_a_page_of_its_own_size(tmp_path, counts):
    page = explore(counts, tmp_path / "tags.html")
    folder = labels_folder(page)
    assert folder == tmp_path / "tags_labels"
    files = sorted(folder.iterdir())
    assert len(files) == -(-counts.n_classes // SHARD)
    text = page.read_text(encoding="utf-8")
    payload = re.search(r'<script type="application/octet-stream" id="textsift-data">(.*?)'
                        r"</script>", text, re.S).group(1)
    data = json.loads(gzip.decompress(base64.b64decode(payload)))
    assert data["many"]["folder"] == "tags_labels"
    shard = files[0].read_text(encoding="utf-8")
    assert shard.startswith('window.textsift.shard(0, "') and shard.endswith('");\n')
    # the page: Bokeh and the shared data; the labels' own data is in the shards
    assert page.stat().st_size < 2_000_000


def test_the_command_line_writes_the_page_and_its_labels_folder(tmp_path):
    X, tags = tagged(4, n_docs=300, n_terms=300, n_tags=200)
    path = tmp_path / "tags.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for d, ts in enumerate(tags):
            fh.write(json.dumps({"text": " ".join(f"w{j}" for j in X[d].indices),
                                 "labels": [f"tag{t}" for t in ts]}) + "\n")
    out = tmp_path / "page.html"
    res = runner.invoke(app, ["explore", str(path), "--label-field", "labels", "--out",
                              str(out)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == f"explore: {out.resolve()}"
    assert (tmp_path / "page_labels" / "shard-0.js").exists()


def test_each_label_shard_carries_the_evidence_of_its_lists(counts):
    """A shard's label: the p and q of its chi2 lists (BH over the label's terms, 3 digits)
    and the log ratio of their terms (3 digits) are what `score --class LABEL --evidence` prints
    (:func:`textsift.evidence.terms.evidence`); the page names the tests, and its lists fill from
    the shards."""
    from textsift.evidence.terms import evidence

    data, shards = page_parts(counts)
    ev = data["evidence"]
    assert (ev["top"], ev["correction"], ev["family"], ev["rule"]) == (LABEL_CAP, "bh",
                                                                        "class", "<=")
    assert ev["methods"] == {"chi2": {"c": {}, "cu": {}}} and ev["lr"] == {}
    number, payload = next(iter(shards))
    for i in (0, len(payload["a"]) - 1):
        label = counts.classes[payload["first"] + i]
        for key, way in (("c", "over"), ("cu", "under")):
            ids = payload["views"]["chi2"][key][i][0]
            p, q = payload["evidence"]["methods"]["chi2"][key][i]
            want = evidence(counts, rank(counts, "chi2", class_label=label, top=LABEL_CAP,
                                         direction=way), "chi2")
            want = want[np.isfinite(want["score"])]
            assert len(p) == len(q) == len(ids) == len(want)
            np.testing.assert_allclose(p, want["p"], rtol=5e-3)
            np.testing.assert_allclose(q, want["q"], rtol=5e-3)
            lr = dict(zip(*payload["evidence"]["lr"][i][:2], strict=True))
            # an absent term's log ratio is -inf, written "-inf" as the scores are
            got = [float(lr[x]) if lr[x] is not None else np.nan for x in ids]
            np.testing.assert_allclose(got, want["log_ratio"], rtol=5e-3)


def test_alpha_keeps_in_each_label_what_score_alpha_selects(counts):
    """--alpha 0.05 --correction bonferroni on many labels: the terms of a label's list
    whose embedded q passes (q < 0.05, Bonferroni's rule) are those
    evidence.significant_terms keeps for the label (`score --class LABEL --alpha`), in its
    order, up to the label's list of LABEL_CAP terms; on this corpus each label keeps
    from 6 to 27 terms in the first shard (so the check is not empty)."""
    from textsift.evidence.significant import significant_terms

    data, shards = page_parts(counts, alpha=0.05, correction="bonferroni")
    assert (data["evidence"]["alpha"], data["evidence"]["rule"]) == (0.05, "<")
    sizes = []
    for _, payload in list(shards)[:1]:  # the first shard's 64 labels (the others alike)
        for i, (ids, _) in enumerate(payload["views"]["chi2"]["c"]):
            label = counts.classes[payload["first"] + i]
            q = payload["evidence"]["methods"]["chi2"]["c"][i][1]
            kept = [payload["terms"][x] for x, y in zip(ids, q, strict=False)
                    if y is not None and y < 0.05]
            order, _ = significant_terms(counts, "chi2", 0.05, "bonferroni", "class", "over",
                                         class_label=label)
            assert kept == list(counts.feature_names[order])[:LABEL_CAP], label
            sizes.append(len(kept))
    assert (min(sizes), max(sizes)) == (6, 27)
