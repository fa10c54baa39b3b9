"""Experiments read from a table in memory (a pandas or Polars DataFrame, a Hugging Face
Dataset) given as ``[corpus] path`` from Python: the data key hashes the table's texts,
labels and split values, so a resumed run accepts the same content (whatever the table's
kind) and refuses a changed one with the fix; an experiment of files keeps its fingerprint
and data key."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import polars as pl
import pytest

from textsift.errors import TextsiftError
from textsift.experiment import StoreError, parse_config, run_experiment
from textsift.experiment.validity import DataKey, table_digest
from textsift.reading.corpus import load_sample


class FakeDataset:
    """A Hugging Face ``Dataset`` as textsift sees one (``datasets`` is not installed here):
    its class is ``Dataset`` of a ``datasets`` module, with ``column_names``, a column as a
    list by name, ``len`` and ``to_pandas``."""

    def __init__(self, frame: pd.DataFrame):
        self._frame = frame

    @property
    def column_names(self) -> list[str]:
        return list(self._frame.columns)

    def __getitem__(self, name: str) -> list:
        return self._frame[name].tolist()

    def __len__(self) -> int:
        return len(self._frame)

    def to_pandas(self) -> pd.DataFrame:
        return self._frame.copy()


FakeDataset.__name__ = "Dataset"
FakeDataset.__module__ = "datasets.arrow_dataset"


def config(table) -> dict:
    return {"experiment": {"name": "frames", "seed": 0},
            "corpus": {"path": table},
            "preprocessing": {"min_df": 2},
            "selection": {"methods": ["chi2"], "sizes": [20], "baselines": []},
            "learners": [{"name": "nb"}]}


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Three newsgroups of the shipped sample: 420 posts, half train and half test."""
    sample = load_sample("20ng").frame
    three = sorted(sample["label"].unique())[:3]
    return sample[sample["label"].isin(three)].reset_index(drop=True)


@pytest.fixture(scope="module")
def first_run(frame, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    return out, run_experiment(parse_config(config(frame)), out)


def test_a_dataframe_experiment_runs_and_says_its_table(first_run, frame):
    out, summary = first_run
    assert summary.n_trials == summary.n_run == 1  # one method at one size, no baseline
    assert set(summary.results["dataset"]) == {"DataFrame"}  # the table's type names it
    manifest = json.loads((out / "experiment.json").read_text())
    assert manifest["config"]["corpus"]["table"] == "in memory"
    assert manifest["config"]["corpus"]["paths"] == []
    (entry,) = manifest["data"]["corpus"]
    assert (entry["path"], entry["rows"]) == ("the DataFrame", len(frame))


@pytest.mark.parametrize("kind", ["pandas", "polars", "dataset"])
def test_the_same_content_resumes_whatever_the_table(first_run, frame, kind):
    out, summary = first_run
    table = {"pandas": frame.copy(), "polars": pl.from_pandas(frame),
             "dataset": FakeDataset(frame)}[kind]
    again = run_experiment(parse_config(config(table)), out, resume=True)
    assert again.n_run == 0  # every trial kept
    # the rows are named after the table's type as the experiment now names it
    assert set(again.results["dataset"]) == {"Dataset" if kind == "dataset" else "DataFrame"}
    pd.testing.assert_frame_equal(again.results.drop(columns="dataset"),
                                  summary.results.drop(columns="dataset"))


def test_one_changed_text_is_refused_with_the_fix(first_run, frame):
    out, _ = first_run
    changed = frame.copy()
    changed.loc[7, "text"] += " and one more word"
    with pytest.raises(StoreError) as info:
        run_experiment(parse_config(config(changed)), out, resume=True)
    message = str(info.value)
    assert isinstance(info.value, TextsiftError)
    assert "the DataFrame: 420 rows" in message
    assert "pass the table the run was made from" in message
    assert "start afresh" in message


def test_reordered_rows_or_a_changed_label_change_the_digest(frame):
    fields = ("text", "label", "split")
    same = table_digest(frame, fields)
    assert table_digest(frame.assign(id=0), fields) == same  # other columns are not hashed
    assert table_digest(frame.iloc[::-1].reset_index(drop=True), fields) != same
    relabelled = frame.copy()
    relabelled.loc[0, "label"] = "misc.forsale"
    assert table_digest(relabelled, fields)["sha256"] != same["sha256"]


def test_the_digest_is_the_canonical_json_of_the_fields_in_order():
    table = pd.DataFrame({"label": ["b", "a"], "text": ["caf\u00e9 au lait", "tea"],
                          "other": [1, 2]})
    blobs = [json.dumps(["text", ["caf\u00e9 au lait", "tea"]], ensure_ascii=False),
             json.dumps(["label", ["b", "a"]])]
    data = "".join(b + "\n" for b in blobs).encode("utf-8")
    # a missing split field is left out; the text's é is two UTF-8 bytes
    assert table_digest(table, ("text", "label", "split")) == {
        "path": "the DataFrame", "files": 1, "rows": 2, "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest()}
    assert len(data) == len('["text", ["café au lait", "tea"]]\n["label", ["b", "a"]]\n') + 1


def test_label_lists_of_pandas_and_polars_have_one_digest():
    lists = pd.DataFrame({"text": ["a b", "c d"], "label": [["x", "y"], []]})
    fields = ("text", "label")
    assert table_digest(lists, fields) == table_digest(pl.from_pandas(lists), fields)


def test_an_experiment_of_files_keeps_its_fingerprint_and_data_key():
    """The sample's experiment hashes as before tables were read: the fingerprint of the code
    this change started from, and the data key of results version 5 (the key holds
    RESULTS_VERSION, moved from 4 when a run's trials went from ``cells/`` to ``trials/``;
    version 4's was 4044e8d2771dc582)."""
    exp = parse_config({**config(None), "corpus": {"sample": "20ng"},
                        "selection": {"methods": ["chi2"], "sizes": [20]},
                        "experiment": {"name": "pin", "seed": 0}})
    assert "table" not in exp.as_dict()["corpus"]
    assert (exp.fingerprint, DataKey.of(exp).key) == ("a62f66f7fa57782d", "8ead345bafd2f02d")


def test_a_table_without_the_text_field_is_one_error_naming_the_fields(frame, tmp_path):
    cfg = config(frame.rename(columns={"text": "body"}))
    with pytest.raises(TextsiftError, match=r"'text'.*body"):
        run_experiment(parse_config(cfg), tmp_path / "out")
    assert not (tmp_path / "out" / "experiment.json").exists()
