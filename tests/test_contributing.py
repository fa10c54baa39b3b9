"""CONTRIBUTING.md's recipes, run as they are written there: a learner, an evaluation measure
and a scoring method are each one registry entry, and a preprocessing option one entry of
the options' definition; each is added here (nothing else edited) and checked end to end --
an experiment file, the command line, the reference pages."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def recipe(heading: str) -> str:
    """The first Python block after ``## heading`` in CONTRIBUTING.md."""
    section = GUIDE.split(f"## {heading}", 1)[1]
    return textwrap.dedent(re.search(r"```python\n(.*?)```", section, re.S).group(1))


@pytest.fixture
def registered():
    """Run the recipes of a learner, a measure and a method; afterwards, the registries as
    they were."""
    from textsift.learners import LEARNERS
    from textsift.learners.metrics import MEASURES
    from textsift.scores import REGISTRY

    before = {id(r): set(r) for r in (LEARNERS, MEASURES, REGISTRY)}
    try:
        for heading in ("A new learner", "A new evaluation measure", "A new scoring method"):
            exec(compile(recipe(heading), f"CONTRIBUTING.md: {heading}", "exec"), {})
        yield
    finally:
        for registry in (LEARNERS, MEASURES, REGISTRY):
            for name in set(registry) - before[id(registry)]:
                del registry[name]


def corpus(path: Path) -> Path:
    """Three classes of 16 documents: each holds its class's first word (apple, boat, cat),
    and four drawn from the class's second word and words every class uses; 1 in 4 a test
    document."""
    rng = np.random.default_rng(0)
    words = {"a": ["apple", "pear"], "b": ["boat", "sail"], "c": ["cat", "dog"]}
    with open(path, "w") as fh:
        for i in range(48):
            label = "abc"[i % 3]
            text = [words[label][0]] + rng.choice(
                [words[label][1], "the", "and", "of", "pear", "sail", "dog"], 4).tolist()
            fh.write(json.dumps({"text": " ".join(text), "label": label,
                                 "split": "test" if i % 4 == 0 else "train"}) + "\n")
    return path


def test_a_learner_a_measure_and_a_method_work_end_to_end(registered, tmp_path):
    """One experiment of the three new entries: its jaccard is scikit-learn's, of a ridge
    classifier (tf-idf input, alpha 0.5) fitted on the fold's 4 terms of the highest tpr; the
    file's [tuning] may try alpha; the command line and the reference pages list them."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import RidgeClassifier
    from sklearn.metrics import jaccard_score

    from textsift import TermSelector
    from textsift.cli import app
    from textsift.experiment import parse_config, run_experiment
    from textsift.experiment.folds import load_fold

    path = corpus(tmp_path / "c.jsonl")
    table = {"corpus": {"path": str(path)},
             "evaluation": {"metrics": ["jaccard", "accuracy"]},
             "selection": {"methods": ["tpr"], "sizes": [4]},
             "learners": [{"name": "ridge", "alpha": 0.5}]}
    results = run_experiment(parse_config(table), tmp_path / "out").results
    fold = load_fold(tmp_path / "out" / "cache" / "fold-0.npz")
    kept = np.sort(TermSelector("tpr", k=4).fit(fold.X_train, fold.y_train).selected_)
    Xtr, Xte = fold.X_train[:, kept], fold.X_test[:, kept]
    tfidf = TfidfTransformer().fit(Xtr)
    pred = RidgeClassifier(alpha=0.5, random_state=0).fit(tfidf.transform(Xtr), fold.y_train)
    expected = jaccard_score(fold.y_test, pred.predict(tfidf.transform(Xte)), average="macro")
    got = results.set_index(["method", "learner", "metric"])["value"]
    assert got["tpr", "ridge", "jaccard"] == pytest.approx(expected, abs=1e-12)
    tuned = parse_config({**table, "learners": [{"name": "ridge"}],
                          "tuning": {"alpha": [0.1, 1.0]}})
    assert dict(tuned.tuning.grids) == {"alpha": (0.1, 1.0)}

    runner = CliRunner()
    listed = runner.invoke(app, ["methods", "--format", "json"])
    assert "tpr" in {m["name"] for m in json.loads(listed.stdout)}
    scored = runner.invoke(app, ["score", str(path), "--method", "tpr", "--class", "a",
                                 "--top", "2", "--format", "csv"])
    assert scored.exit_code == 0, scored.output
    assert scored.stdout.splitlines()[1] == "1,apple,1.0"  # in all 16 documents of a

    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        from generated_pages import experiment_schema, methods_table
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    reference = experiment_schema()
    assert "| `ridge` |" in reference and "| `jaccard` |" in reference
    assert "``tpr``" in methods_table("nominal")


def test_a_preprocessing_option_is_one_entry(tmp_path):
    """The recipe's Option put into the PREPROCESSING tuple of a copy of the package (that
    file alone edited): VectorizerOptions has the field with its default, an experiment
    file's [preprocessing] takes it (and refuses a value of another type), the reference
    lists it, and every command that reads a corpus has its flag, which reaches the
    options the vectorizer reads."""
    package = tmp_path / "src" / "textsift"
    shutil.copytree(ROOT / "src" / "textsift", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    options = package / "_options.py"
    text = options.read_text(encoding="utf-8")
    end = text.rindex("\n)")
    options.write_text(text[:end] + "\n" + recipe("A new key of an experiment file").rstrip()
                       + text[end:], encoding="utf-8")
    probe = textwrap.dedent('''
        import json
        from typer.testing import CliRunner
        from textsift.cli import app
        from textsift.cli import options as cli
        from textsift.experiment import ConfigError, parse_config
        from textsift.experiment.schema import SCHEMA
        from textsift.text.vectorize import VectorizerOptions

        table = {"corpus": {"sample": "20ng"}, "selection": {"methods": ["chi2"],
                 "sizes": [5]}, "learners": [{"name": "nb"}]}
        exp = parse_config({**table, "preprocessing": {"strip_accents": "ascii"}})
        try:
            parse_config({**table, "preprocessing": {"strip_accents": 1}})
            refused = ""
        except ConfigError as exc:
            refused = str(exc)
        seen = {}

        @cli.corpus_options()
        def probe(corpus: cli.CorpusOptions):
            seen["value"] = corpus.vectorizer().strip_accents

        import typer
        one = typer.Typer()
        one.command()(probe)
        open("x.jsonl", "w").close()  # the corpus paths are checked before the command runs
        CliRunner().invoke(one, ["x.jsonl", "--strip-accents", "unicode"])
        helps = [CliRunner().invoke(app, [c, "-h"]).stdout for c in ("score", "explore")]
        print(json.dumps({
            "default": VectorizerOptions().strip_accents, "file": exp.preprocessing.strip_accents,
            "refused": refused, "schema": SCHEMA["preprocessing"]["strip_accents"].doc,
            "cli": seen.get("value"), "help": all("--strip-accents" in h for h in helps)}))
        ''')
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path / "src"), "COLUMNS": "200",
                              "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.splitlines()[-1])
    assert got == {"default": None, "file": "ascii",
                   "refused": "<config>: [preprocessing] strip_accents must be str, got 1",
                   "schema": "Remove accents: ascii or unicode (scikit-learn's strip_accents); "
                             "default none.",
                   "cli": "unicode", "help": True}
