"""Data that are probably wrong (issue 20, item 4): labels that differ only by white space or
case warn (DataWarning; one `warning:` line in the CLI) and `--strip-labels` folds the white
space; a test part whose classes training never has is a note on stderr and in the report;
a file whose every line was skipped, and a corpus whose texts are all empty, are errors that
say so -- in every engine and in experiments."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file
from textsift.errors import CorpusError, DataWarning
from textsift.experiment import parse_config, run_experiment
from textsift.labels import check_label_spelling, similar_labels, strip_labels
from textsift.reading.corpus import read_corpus
from textsift.report.html import write_report

runner = CliRunner()
ENGINES = ["memory", "stream", "dask"]


def count(path, engine, client, **kw):
    extra = {"client": client} if engine == "dask" else {}
    if engine != "memory":
        extra["chunk_size"] = 2  # the pairs are split over chunks
    return count_file(path, engine=engine, **extra, **kw)


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


#: "sci.space " (a trailing space) in 2 of 6 documents: 3 classes where 2 were meant.
SPACED = [{"text": f"orbit moon w{i}", "label": "sci.space " if i % 3 == 0 else "sci.space"}
          for i in range(6)] + [{"text": f"car engine w{i}", "label": "rec.autos"}
                                for i in range(6)]


# --------------------------------------------------------------------------- labels
def test_similar_labels_groups_white_space_and_case():
    assert similar_labels(["sci.space", "sci.space ", " Sci.Space", "rec.autos", 1, 2.0]) == [
        (" Sci.Space", "sci.space", "sci.space ")]
    assert similar_labels(["a", "b", "A b"]) == []


def test_the_warning_names_the_groups_and_the_fix():
    with pytest.warns(DataWarning) as caught:
        check_label_spelling(["sci.space", "sci.space ", "CO", "Co", "x"], "c.jsonl")
    message = str(caught[0].message)
    assert message.startswith("c.jsonl: labels that differ only by white space or case count "
                              "as different classes: 'CO' and 'Co' (case); 'sci.space' and "
                              "'sci.space ' (white space).")
    assert "--strip-labels" in message and "case is not folded" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_label_spelling(["a", "b", 1])  # nothing to say


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_warns_and_strip_labels_folds_the_white_space(tmp_path, client, engine):
    path = write(tmp_path / "c.jsonl", SPACED)
    with pytest.warns(DataWarning, match=r"c\.jsonl: .*'sci\.space' and 'sci\.space ' "
                                         r"\(white space\)"):
        counts = count(path, engine, client)
    assert counts.classes.tolist() == ["rec.autos", "sci.space", "sci.space "]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        folded = count(path, engine, client, strip_labels=True)
    texts = [r["text"] for r in SPACED]
    assert folded.equals(Counts.from_texts(texts, [r["label"].strip() for r in SPACED]))
    assert folded.class_sizes.tolist() == [6, 6]


def test_case_is_warned_about_and_not_folded(tmp_path):
    path = write(tmp_path / "c.jsonl", [{"text": "a b", "label": "Spam"},
                                        {"text": "c d", "label": "spam "},
                                        {"text": "e f", "label": "ham"}])
    with pytest.warns(DataWarning, match=r"'Spam' and 'spam' \(case\)\. If each group is one "
                                         r"class, write one spelling"):
        corpus = read_corpus(path, strip_labels=True)
    assert sorted(corpus.labels) == ["Spam", "ham", "spam"]


def test_label_lists_are_checked_and_stripped_label_by_label(tmp_path):
    path = write(tmp_path / "c.jsonl", [{"text": "a b", "label": ["joy", "love "]},
                                        {"text": "c d", "label": ["love", "joy "]}])
    with pytest.warns(DataWarning, match="'joy' and 'joy '.*'love' and 'love '"):
        read_corpus(path)
    assert strip_labels(read_corpus(path, strip_labels=True).frame["label"]).tolist() == [
        ["joy", "love"], ["love", "joy"]]


def test_the_cli_prints_one_warning_line_and_strip_labels_silences_it(tmp_path):
    path = write(tmp_path / "c.jsonl", SPACED)
    for command in (["score", str(path), "--method", "chi2"],
                    ["explore", str(path), "--out", str(tmp_path / "e.html")]):
        res = runner.invoke(app, command)
        assert res.exit_code == 0, res.output
        lines = [ln for ln in res.stderr.splitlines() if ln.startswith("warning:")]
        assert len(lines) == 1 and "'sci.space' and 'sci.space '" in lines[0], res.stderr
        res = runner.invoke(app, [*command, "--strip-labels"])
        assert res.exit_code == 0 and "warning:" not in res.stderr, res.stderr
    res = runner.invoke(app, ["score", str(path), "--method", "chi2", "--strip-labels",
                              "--class", "sci.space", "--format", "json"])
    # folded, sci.space is 6 of 12 documents, each with "moon": chi2 of a perfect
    # association, N = 12
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["score"] == 12.0


def toml(tmp_path, corpus, extra=""):
    path = tmp_path / "x.toml"
    path.write_text(f'[corpus]\npath = "{corpus}"\n{extra}[selection]\nmethods = ["chi2"]\n'
                    'sizes = [2]\n[[learners]]\nname = "nb"\n')
    return path


def test_an_experiment_warns_once_over_its_files_and_strips_when_told(tmp_path):
    """The train file has 'sci.space', the test file 'sci.space ': only the two together show
    the pair."""
    train = write(tmp_path / "train.jsonl", [r for r in SPACED if r["label"] != "sci.space "])
    test = write(tmp_path / "test.jsonl", [r for r in SPACED if r["label"] != "sci.space"])
    config = {"corpus": {"path": str(train), "test_path": str(test)},
              "selection": {"methods": ["chi2"], "sizes": [2]}, "learners": [{"name": "nb"}]}
    with pytest.warns(DataWarning) as caught:
        run_experiment(parse_config(config, src="x.toml"), tmp_path / "a")
    spelling = [w for w in caught if "white space" in str(w.message)]
    assert len(spelling) == 1 and str(spelling[0].message).startswith("x.toml: labels")
    config["corpus"]["strip_labels"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        summary = run_experiment(parse_config(config), tmp_path / "b")
    assert summary.notes == []  # sci.space is in both parts now
    with np.load(tmp_path / "b" / "cache" / "fold-0.npz") as z:
        assert z["classes"].tolist() == ["rec.autos", "sci.space"]


# --------------------------------------------------------------------------- unseen classes
def split_corpus(tmp_path, test_labels):
    records = [{"text": f"orbit moon w{i}", "label": "space", "split": "train"} for i in range(8)]
    records += [{"text": f"car engine w{i}", "label": "autos", "split": "train"}
                for i in range(8)]
    records += [{"text": f"orbit car w{i}", "label": lab, "split": "test"}
                for i, lab in enumerate(test_labels)]
    return write(tmp_path / "c.jsonl", records)


def test_test_classes_absent_from_training_are_a_note_on_stderr_and_in_the_report(tmp_path):
    path = split_corpus(tmp_path, ["SPACE", "SPACE", "AUTOS", "space"])
    res = runner.invoke(app, ["run", str(toml(tmp_path, path)), "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    note = ("the test part: 3 of its 4 documents have classes that no training document has "
            "('AUTOS' (1), 'SPACE' (2)); no learner has seen an example of them")
    assert note in " ".join(res.stderr.split())  # (rich wraps the line)
    assert json.loads((tmp_path / "o" / "notes.json").read_text())[0].startswith(note)
    html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert note.replace("'", "&#x27;") in html


def test_a_test_part_of_unseen_classes_only_says_every_prediction_is_wrong(tmp_path):
    path = split_corpus(tmp_path, ["SPACE", "AUTOS"])
    exp = parse_config({"corpus": {"path": str(path)}, "learners": [{"name": "nb"}],
                        "selection": {"methods": ["chi2"], "sizes": [2]}})
    with pytest.warns(DataWarning):  # SPACE and space: case
        summary = run_experiment(exp, tmp_path / "o")
    assert summary.results["value"].tolist() == [0.0, 0.0]  # accuracy and macro-F1
    assert summary.notes == [
        "the test part: 2 of its 2 documents have classes that no training document has "
        "('AUTOS' (1), 'SPACE' (1)); that is every test document, so every prediction is "
        "wrong; no learner has seen an example of them, and a classifier never predicts them. "
        "Check the split and the label field"]
    write_report(tmp_path / "o")  # resumed runs and reports keep the note
    assert run_experiment(exp, tmp_path / "o", resume=True).notes == summary.notes


# --------------------------------------------------------------------------- empty corpora
@pytest.mark.parametrize("engine", ENGINES)
def test_every_line_skipped_is_said(tmp_path, client, engine):
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "a b", "label": "x"\n{bad\n\n')
    with pytest.raises(CorpusError, match=r"c\.jsonl: every line was skipped as malformed "
                                          r"\(2 line\(s\), the first line 1\), so the corpus is "
                                          r"empty; check that the file is JSON Lines"):
        count(path, engine, client, on_bad_line="skip")


@pytest.mark.parametrize("engine", ENGINES)
def test_texts_all_empty_are_said(tmp_path, client, engine):
    path = tmp_path / "c.csv"
    path.write_text("text,label\n,a\n  ,b\n,a\n")
    with pytest.raises(CorpusError, match=r"c\.csv: every text is empty \(the text field "
                                          r"'text' is empty or white space in every record\); "
                                          r"choose the field that holds the text"):
        count(path, engine, client)


def test_a_corpus_of_stop_words_does_not_blame_min_df():
    with pytest.raises(ValueError, match=r"the vocabulary is empty: no document has a term "
                                         r"\(the texts are empty, or hold only stop words"):
        Counts.from_texts(["the of", "and"], ["a", "b"], stop_words="english")


@pytest.mark.parametrize("case", ["bad lines", "empty texts"])
def test_the_cli_and_experiments_say_it_in_one_line(tmp_path, case):
    if case == "bad lines":
        path, args, message = tmp_path / "c.jsonl", ["--skip-bad-lines"], "every line was skipped"
        path.write_text("{bad\n{worse\n")
        extra = "skip_bad_lines = true\n"
    else:
        path, args, message = tmp_path / "c.csv", [], "every text is empty"
        path.write_text("text,label,split\n,a,train\n,b,test\n")
        extra = ""
    res = runner.invoke(app, ["score", str(path), *args])
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and message in res.stderr
    res = runner.invoke(app, ["run", str(toml(tmp_path, path, extra)), "--out",
                              str(tmp_path / "o")])
    assert res.exit_code == 2 and message in res.stderr and not (tmp_path / "o").exists()
