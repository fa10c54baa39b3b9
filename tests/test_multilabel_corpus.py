"""Multi-label corpora in every engine: label lists in JSON Lines and Parquet, a separator in
CSV (--label-sep), the same counts in memory, streamed and on Dask (GoEmotions too), and the
bad input of label lists, each one `error:` line naming the file, the record and the fix."""

import gzip
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import CorpusError

distributed = pytest.importorskip("distributed")
runner = CliRunner()
ENGINES = ["memory", "stream", "dask"]

TEXTS = ["wheat prices rise", "merger of grain traders", "quarterly profit up",
         "acquisition talks", "grain exports fall", "nothing to report", "shares and wheat"]
LABELS = [["grain"], ["acq", "grain", "earn"], ["earn"], ["acq"], ["grain"], [], ["earn", "grain"]]


@pytest.fixture(scope="module")
def client():
    with (distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                   dashboard_address=None, silence_logs=50) as cluster,
          distributed.Client(cluster, set_as_default=False) as c):
        yield c


def count(path, engine, client, **kw):
    extra = {"client": client} if engine == "dask" else {}
    if engine != "memory":
        extra["chunk_size"] = 2  # several chunks per file
    return count_file(path, engine=engine, **extra, **kw)


def jsonl(records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def write(tmp_path, kind):
    if kind == "jsonl":
        (tmp_path / "c.jsonl").write_text(jsonl(
            {"text": t, "topics": v} for t, v in zip(TEXTS, LABELS, strict=True)))
        return tmp_path / "c.jsonl", {}
    if kind == "parquet":
        pd.DataFrame({"text": TEXTS, "topics": LABELS}).to_parquet(tmp_path / "c.parquet",
                                                                   row_group_size=3)
        return tmp_path / "c.parquet", {}
    rows = "".join(f"{t},{';'.join(v)}\n" for t, v in zip(TEXTS, LABELS, strict=True))
    (tmp_path / "c.csv").write_text("text,topics\n" + rows)
    return tmp_path / "c.csv", {"label_sep": ";"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["jsonl", "parquet", "csv"])
def test_label_lists_count_alike_in_every_format_and_engine(tmp_path, client, kind, engine):
    path, kw = write(tmp_path, kind)
    counts = count(path, engine, client, label_field="topics", **kw)
    want = Counts.from_texts(TEXTS, LABELS)
    assert counts.equals(want)
    assert counts.multilabel and counts.n_docs == 7  # the document without a label is counted
    assert counts.class_sizes.tolist() == [2, 3, 4]  # acq, earn, grain


def _files(files):
    def make(d):
        for name, text in files.items():
            (d / name).write_text(text)
        return d if len(files) > 1 else d / name
    return make


CASES = {
    "a list in one record, a label in another": (
        _files({"c.jsonl": jsonl([{"text": "a b", "label": ["x"]}, {"text": "c", "label": "y"}])}),
        r"c\.jsonl: the label 'label' is a list in some records and a single label in others: "
        r"the list \['x'\] at line 1, the string 'y' at line 2\. Give every record a list"),
    "a list in one chunk, a label in the next": (
        _files({"c.jsonl": jsonl([{"text": "a b", "label": ["x"]}] * 2
                                 + [{"text": "c", "label": "y"}] * 2)}),
        r"the label 'label' is a list in some records and a single label in others: (a list at "
        r".*c\.jsonl, line 1, a string at .*c\.jsonl, line 3|the list .* at line 1, the string "
        r"'y' at line 3)"),  # in memory the file is one frame
    "a list in one file, a label in another": (
        _files({"a.jsonl": jsonl([{"text": "a b", "label": "y"}]),
                "b.jsonl": jsonl([{"text": "c", "label": ["x"]}])}),
        r"is a list in some records and a single label in others: a list at .*b\.jsonl.*, "
        r"a string at .*a\.jsonl"),  # Dask names the files (its partitions)
    "a nested list": (
        _files({"c.jsonl": jsonl([{"text": "a b", "label": ["x", ["y"]]}])}),
        r"c\.jsonl, line 1: the label 'label' is the list \['x', \['y'\]\], which holds the list "
        r"\['y'\]; the labels in a list are strings"),
    "empty label lists everywhere": (
        _files({"c.jsonl": jsonl([{"text": "alpha beta", "label": []}] * 3)}),
        r"c\.jsonl: no record has a label \(the 'label' list is empty in every record\)"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", list(CASES))
def test_bad_label_lists_are_refused_alike_in_every_engine(tmp_path, client, case, engine):
    make, message = CASES[case]
    with pytest.raises(CorpusError, match=message):
        count(make(tmp_path), engine, client)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_label_separator_is_for_csv_only(tmp_path, client, engine):
    path, _ = write(tmp_path, "jsonl")
    with pytest.raises(CorpusError, match=r"c\.jsonl: --label-sep splits the label field of a "
                                          r"CSV file, but this is a JSON Lines file"):
        count(path, engine, client, label_field="topics", label_sep=";")


def invoke(*args):
    res = runner.invoke(app, [str(a) for a in args])
    return res


def assert_refused(res, message):
    assert res.exit_code == 2, res.output
    assert res.stdout == ""
    lines = res.stderr.splitlines()  # progress lines may come first, on stderr too
    assert sum(line.startswith("error") for line in lines) == 1, res.stderr
    assert lines[-1].startswith("error: ") and message in lines[-1], res.stderr


def test_the_command_line_reads_label_lists_and_refuses_what_does_not_apply(tmp_path):
    path, _ = write(tmp_path, "csv")
    res = invoke("score", path, "--label-field", "topics", "--label-sep", ";", "--method",
                 "chi2", "--class", "grain", "--format", "csv")
    assert res.exit_code == 0, res.output
    assert [line.split(",")[1] for line in res.stdout.splitlines()[1:3]] == ["grain", "wheat"]
    assert_refused(invoke("score", path, "--label-field", "topics", "--label-sep", ";",
                          "--class", "ship"),
                   f"{path}: no document has the class 'ship' (--class); the classes with "
                   "documents are acq, earn, grain. Choose one of them")
    assert_refused(invoke("score", path, "--label-field", "topics", "--label-sep", ";",
                          "--method", "ig_multi"),
                   f"{path}: ig_multi needs one label per document (one class per document), "
                   "but the documents have label lists")
    assert_refused(invoke("score", path, "--label-field", "topics", "--label-sep", "",
                          "--engine", "stream"),
                   "the label separator (--label-sep) must be one or more characters")
    jpath, _ = write(tmp_path, "jsonl")
    assert_refused(invoke("score", jpath, "--label-field", "topics", "--label-sep", ";"),
                   "--label-sep splits the label field of a CSV file, but this is a JSON Lines "
                   "file")


def test_the_readme_example_runs():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    part = readme.split("## Several labels per document\n", 1)[1].split("\n## ", 1)[0]
    block = part.split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {}
    exec(compile(block, "README: several labels", "exec"), namespace)  # noqa: S102
    counts = namespace["counts"]
    assert counts.multilabel and counts.n_docs == 3 and counts.class_sizes.tolist() == [1, 2]


# --------------------------------------------------------------------------- GoEmotions
@pytest.mark.slow
@pytest.mark.real_data
def test_goemotions_counts_identically_in_memory_stream_and_dask(real_data, client):
    path = real_data / "goemotions" / "train.jsonl.gz"
    memory = count_file(path, label_field="labels", engine="memory")
    assert memory.n_docs == 43410 and memory.n_classes == 28
    sizes = dict(zip(memory.classes, memory.class_sizes.tolist(), strict=True))
    assert (sizes["neutral"], sizes["gratitude"], sizes["grief"]) == (14219, 2662, 77)  # README
    # 36,308 comments with one emotion, 6,541 with two, 532 three, 28 four, 1 five
    assert memory.class_sizes.sum() == 36308 + 2 * 6541 + 3 * 532 + 4 * 28 + 5
    assert count_file(path, label_field="labels", engine="stream").equals(memory)
    assert count_file(path, label_field="labels", engine="dask", client=client,
                      chunk_size=5000).equals(memory)


@pytest.mark.real_data
def test_score_prints_the_words_of_an_emotion(real_data):
    path = real_data / "goemotions" / "train.jsonl.gz"
    res = invoke("score", path, "--label-field", "labels", "--method", "log_odds_dirichlet",
                 "--class", "gratitude", "--top", "10", "--format", "csv")
    assert res.exit_code == 0, res.output
    terms = [line.split(",")[1] for line in res.stdout.splitlines()[1:]]
    assert len(terms) == 10 and terms[:2] == ["thanks", "thank"]
    assert {"appreciate", "sharing"} <= set(terms)
    with gzip.open(path, "rt") as fh:  # the corpus is multi-label: ig_multi does not apply
        assert isinstance(json.loads(fh.readline())["labels"], list)
    assert_refused(invoke("score", path, "--label-field", "labels", "--method", "rr_nc_idf"),
                   "rr_nc_idf needs one label per document (ordered ranks)")
