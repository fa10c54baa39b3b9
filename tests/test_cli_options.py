"""One consistent command line: a walk over every command's options. The same option means
the same everywhere; the commands that read a corpus share its options; choices are choices,
flags are flags, required options are required; -h, --version and an example everywhere; bad
options are one `error:` line; results on stdout, messages on stderr."""

import io
import json
import types
from enum import Enum

import pandas as pd
import pytest
import typer.main
from typer.testing import CliRunner

from textsift import __version__
from textsift.cli import app
from textsift.reading.corpus import sample_path

runner = CliRunner()
GROUP = typer.main.get_command(app)
COMMANDS = dict(GROUP.commands)
SAMPLE = str(sample_path("20ng"))
REVIEWS = str(sample_path("reviews"))

#: The commands that read a corpus, and the corpus options every one of them has ...
CORPUS_COMMANDS = ("score", "ordinal", "ordinal-eval", "explore", "adabag", "pca-lda")
CORPUS_OPTIONS = ("--text-field", "--label-field", "--split-field", "--split", "--min-df",
                  "--max-df", "--stop-words", "--stem", "--strip-headers", "--skip-bad-lines",
                  "--engine", "--scheduler", "--chunk-size")
#: ... but for these, each for the reason given.
LEARNERS_NEED_THE_MATRIX = "fits learners on the document-term matrix, read in memory"
NOT_ON = {
    ("ordinal-eval", "--split"): "its --split-field marks the train and test parts",
    **{(c, o): LEARNERS_NEED_THE_MATRIX for c in ("ordinal-eval", "adabag", "pca-lda")
       for o in ("--engine", "--scheduler", "--chunk-size")},
}
#: Options whose default differs between commands, and why.
OWN_DEFAULTS = {
    ("adabag", "--min-df"): "the AdaBag paper keeps the words of at least 5 documents",
    ("pca-lda", "--min-df"): "the baseline of AdaBag, on the same vocabulary",
    ("ordinal", "--min-df"): "with RR(IGOR), measured best on four star-rating corpora "
                             "(docs/reproductions.md, section 3)",
}


def annotation(p):
    """The Python type typer built a parameter from (``int`` for ``int | None``)."""
    ann = p.type_descriptor.annotation
    args = [a for a in getattr(ann, "__args__", ()) if a is not type(None)]
    return args[0] if isinstance(ann, types.UnionType) and len(args) == 1 else ann


def choices(p) -> list | None:
    ann = annotation(p)
    return [m.value for m in ann] if isinstance(ann, type) and issubclass(ann, Enum) else None


def options(command) -> dict:
    """Long name -> click parameter, for the options of a command."""
    return {next(o for o in p.opts if o.startswith("--")): p for p in command.params
            if p.param_type_name == "option" and any(o.startswith("--") for o in p.opts)}


def test_every_corpus_command_has_the_corpus_options():
    for name in CORPUS_COMMANDS:
        have = options(COMMANDS[name])
        for option in CORPUS_OPTIONS:
            assert (option in have) != ((name, option) in NOT_ON), (name, option)
        data = next(p for p in COMMANDS[name].params if p.param_type_name == "argument")
        assert data.name == "data" and data.nargs == -1  # one or more sources, read as one
        assert data.required == (name not in ("adabag", "pca-lda"))  # those: or --simulate


def test_an_option_means_the_same_in_every_command():
    seen: dict = {}
    for name, command in COMMANDS.items():
        for long, p in options(command).items():
            seen.setdefault(long, []).append((name, p))
    shared = {long: uses for long, uses in seen.items() if len(uses) > 1}
    assert {"--label-field", "--min-df", "--out", "--n-jobs", "--top", "--k"} <= set(shared)
    for long, uses in shared.items():
        first_name, first = uses[0]
        for name, p in uses[1:]:
            where = (long, first_name, name)
            assert sorted(p.opts) == sorted(first.opts), where  # the same short names
            assert p.is_flag == first.is_flag, where
            assert annotation(p) == annotation(first), where
            if long in CORPUS_OPTIONS and (name, long) not in OWN_DEFAULTS and (
                    first_name, long) not in OWN_DEFAULTS:
                assert p.default == first.default, where
                assert p.help == first.help, where


def test_label_field_everywhere():
    """One name for the label of every command (the unreleased --rating-field is gone)."""
    for name in CORPUS_COMMANDS:
        have = options(COMMANDS[name])
        assert not have["--label-field"].hidden and have["--label-field"].default == "label"
        assert "--rating-field" not in have, name


def test_k_selects_and_top_prints():
    for name, command in COMMANDS.items():
        have = options(command)
        if "--k" in have:
            assert sorted(have["--k"].opts) == ["--k", "-k"]
            assert "select" in have["--k"].help, name
        if "--top" in have:
            assert have["--top"].opts == ["--top"], name  # not -k any more
            assert "print" in have["--top"].help or "label" in have["--top"].help, name
    for name in ("score", "ordinal", "explore"):  # every command that selects terms
        assert "--k" in options(COMMANDS[name]), name


def test_min_df_has_one_default_but_for_adabag():
    for name in CORPUS_COMMANDS:
        default = options(COMMANDS[name])["--min-df"].default
        assert default == (5 if (name, "--min-df") in OWN_DEFAULTS else 1), name


def test_choices_are_choices_and_flags_are_flags():
    for name, command in COMMANDS.items():
        for long, p in options(command).items():
            if annotation(p) is bool:
                assert p.is_flag, (name, long)
            alternatives = " | " in (p.help or "") and long != "--polarity"  # or a FILE
            assert not alternatives or choices(p), (name, long, p.help)
    assert choices(options(COMMANDS["score"])["--engine"]) == ["memory", "stream", "dask"]
    assert choices(options(COMMANDS["ordinal"])["--idf"]) == ["standard", "smooth"]
    assert choices(options(COMMANDS["adabag"])["--scheme"]) == [f"ws{i}" for i in range(1, 7)]


def test_required_options_are_required():
    for name in ("run", "ordinal-eval", "explore", "adabag", "pca-lda"):
        assert options(COMMANDS[name])["--out"].required, name
    assert not options(COMMANDS["demo"])["--out"].required  # it has a default folder


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_with_an_example(name):
    for flag in ("-h", "--help"):
        res = runner.invoke(app, [name, flag])
        assert res.exit_code == 0, res.output
        text = " ".join(res.stdout.split())
        assert "Example: textsift " + name in text, text[:300]


def test_version_and_short_help():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout == f"textsift {__version__}\n"
    res = runner.invoke(app, ["-h"])
    assert res.exit_code == 0 and all(name in res.stdout for name in COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_bad_option_is_one_error_line(name):
    res = runner.invoke(app, [name, "--no-such-option"])
    assert res.exit_code == 2
    assert res.stderr == f"error: No such option: --no-such-option (see 'textsift {name} -h')\n"


@pytest.mark.parametrize("args, message", [
    (["score"], "Missing argument 'DATA...'"),
    (["score", SAMPLE, "--engine", "spark"], "Invalid value for '--engine'"),
    (["score", SAMPLE, "--min-df", "0"], "Invalid value for '--min-df': a number of documents"),
    (["score", SAMPLE, "--chunk-size", "0"], "Invalid value for '--chunk-size'"),
    (["ordinal", SAMPLE, "-k", "0"],
     "Invalid value for '-k' / '--k': a positive number of terms; got 0"),
    (["run", "x.toml", "--out", "o", "--n-jobs", "-3"], "Invalid value for '--n-jobs'"),
    (["scroe"], "No such command 'scroe'. Did you mean 'score'?"),
    (["score", SAMPLE, "--label-field", "x", "--rating-field", "y"], "--rating-field"),
])
def test_usage_errors_are_one_line(args, message):
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, res.stderr
    assert message in res.stderr


def test_min_df_takes_a_fraction_as_an_experiment_file_does(tmp_path):
    """--min-df 0.05 was a raw "'0.05' is not a valid integer" though the help says a
    fraction is allowed and an experiment file's min_df = 0.05 is one. One range for both
    (textsift._bounds.MIN_DF); the command's terms are those of
    VectorizerOptions(min_df=0.05)."""
    from textsift.reading.corpus import read_corpus
    from textsift.text.vectorize import VectorizerOptions, vectorize

    res = runner.invoke(app, ["score", SAMPLE, "--min-df", "0.05", "--method", "all",
                              "--format", "csv"])
    assert res.exit_code == 0, res.output
    corpus = read_corpus(SAMPLE)
    _, names, _ = vectorize(corpus.texts, VectorizerOptions(min_df=0.05))
    every = pd.read_csv(io.StringIO(res.stdout))
    assert sorted(every["term"].astype(str)) == sorted(map(str, names))
    assert 0 < len(names) < len(vectorize(corpus.texts)[1])  # the fraction dropped terms
    for bad in ("0", "1.5", "abc"):
        res = runner.invoke(app, ["score", SAMPLE, "--min-df", bad])
        assert res.exit_code == 2 and res.stderr.startswith(
            "error: Invalid value for '--min-df': "), res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        if bad != "abc":
            assert f"a number of documents >= 1 or a fraction in [0, 1); got {bad}" in res.stderr


def test_several_sources_are_read_as_one_corpus(tmp_path):
    # (as ratings: the ordinal command reads every file's labels as numbers, CSV's too)
    frame = pd.read_json(REVIEWS, lines=True)
    frame.iloc[:1000].to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    frame.iloc[1000:].to_csv(tmp_path / "b.csv", index=False)
    args = ["--label-field", "rating", "--top", "10", "-f", "csv"]
    one = runner.invoke(app, ["ordinal", REVIEWS, *args])
    two = runner.invoke(app, ["ordinal", str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv"),
                              *args, "--engine", "stream"])
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    assert one.stdout == two.stdout


def test_results_on_stdout_messages_on_stderr(tmp_path):
    res = runner.invoke(app, ["score", SAMPLE, "--top", "3", "-f", "json", "--skip-bad-lines"])
    assert res.exit_code == 0 and len(json.loads(res.stdout)) == 3 and res.stderr == ""
    res = runner.invoke(app, ["ordinal", REVIEWS, "--label-field", "rating", "-k", "30",
                              "--top", "4", "-f", "json"])
    assert res.exit_code == 0 and len(json.loads(res.stdout)) == 4
    assert "30 terms selected" in res.stderr
    res = runner.invoke(app, ["methods"])
    assert res.exit_code == 0 and "chi2" in res.stdout and res.stderr == ""
    toml = tmp_path / "exp.toml"
    toml.write_text('[corpus]\nsample = "20ng"\n[selection]\nmethods = ["chi2"]\n'
                    'sizes = [50]\n[[learners]]\nname = "nb"\n')
    out = tmp_path / "run"
    res = runner.invoke(app, ["run", str(toml), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [str(out / "results.csv"), str(out / "report.html")]
    assert "trials run" in res.stderr
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0 and res.stdout == f"{out / 'report.html'}\n"


#: The grid of the options that apply only to some views (``textsift.cli._applies``): each
#: case given where it does not apply, in every command that has the option, and the start
#: of what the error says instead (what does apply). DATA does not exist: the check comes
#: before anything is read, so that an ignored option costs nothing.
NOT_APPLYING = [
    ("score", ["--per-class", "--alpha", "0.05"], "--alpha with --per-class is the level of "
     "each class's count of passing terms, which --evidence shows: add --evidence"),
    ("score", ["--method", "all", "--alpha", "0.05"], "--alpha selects the terms of one "
     "method by their adjusted p-values, and --method all prints every method's score"),
    ("score", ["--evidence", "--alpha", "0.05"], "--evidence of one ranking shows every "
     "term's adjusted p-value (q) and selects none, so --alpha does nothing there"),
    ("score", ["--method", "bns", "--alpha", "0.05"], "--alpha selects the terms whose "
     "adjusted p-value passes it, and bns has no p-value (it is not a statistical test): "
     "choose a method that is a test (chi2, chi2_multi, chi2_sklearn, fisher, g2, ig_multi, "
     "log_odds_dirichlet), or -k, or --evidence --permutations N"),
    ("score", ["-k", "3", "--alpha", "0.05"], "give one of -k (a number of terms) and --alpha"),
    ("score", ["--correction", "holm"], "--correction adjusts the p-values for --alpha or "
     "--evidence, and none is given: add --alpha or --evidence, or drop --correction"),
    ("score", ["--family", "all"], "--family adjusts the p-values for --alpha or --evidence"),
    ("score", ["--level", "0.9"], "--level is the confidence level of --evidence's intervals"),
    ("score", ["--evidence", "--per-class", "--level", "0.9"], "--per-class --evidence shows "
     "each class's p and q, no interval"),
    ("score", ["--permutations", "9"], "--permutations gives the p-values of --evidence: add "
     "--evidence"),
    ("score", ["--evidence", "--per-class", "--permutations", "9"], "--per-class --evidence "
     "shows each method's own p-values"),
    ("score", ["--seed", "1"], "--seed seeds the permutations of --evidence --permutations N"),
    ("score", ["--min-range", "3"], "--min-range keeps the terms of --evidence found in "
     "enough of their class's documents: add --evidence"),
    ("score", ["--evidence", "--per-class", "--min-range", "3"], "--min-range filters the "
     "terms of one ranking's --evidence: drop --per-class"),
    ("score", ["--bootstrap", "99"], "--bootstrap adds the bootstrap test of the documents to "
     "--evidence: add --evidence"),
    ("score", ["--evidence", "--per-class", "--bootstrap", "99"], "--bootstrap tests the "
     "documents of one ranking's terms: drop --per-class"),
    ("score", ["--evidence", "--per-class", "--method", "bns"], "--per-class --evidence shows "
     "each class's p-values and how many terms pass --alpha, and bns has no p-value"),
    ("score", ["--evidence", "--method", "all"], "--evidence shows one method's evidence"),
    ("score", ["--method", "all", "-k", "3"], "-k selects the terms of one ranking; --method "
     "all prints every method"),
    ("score", ["--per-class", "-k", "3"], "-k selects the terms of one ranking; --per-class"),
    ("score", ["--per-class", "--class", "x"], "--per-class ranks every class by its own"),
    ("score", ["--per-class", "--reference-corpus", "x"], "--per-class compares every class "
     "with the rest"),
    ("score", ["--method", "all", "--aggregate", "rr"], "--method all prints a score per "
     "method; the round robin gives an order"),
    ("score", ["--reference", "b"], "--reference b compares a class with it: give the target "
     "class with --class"),
    ("score", ["--class", "a", "--reference", "b", "--reference-corpus", "x"], "give one "
     "reference"),
    ("score", ["--method", "ig", "--yates"], "--yates is Yates' continuity correction of "
     "chi2's 2 x 2 tables, and ig has none: rank by --method chi2 --yates, or drop --yates"),
    ("score", ["--method", "all", "--yates"], "--yates is Yates' continuity correction of "
     "chi2, and --method all prints every method's score"),
    ("score", ["--yates", "--evidence", "--permutations", "9"], "--yates corrects chi2's own "
     "p-values, which --permutations replaces"),
    ("ordinal", ["--alpha", "0.05"], "--alpha selects the terms whose adjusted p-value passes "
     "it, and rr_igor has no p-value (it is not a statistical test): choose a method that is a "
     "test (mann_whitney), or -k\n"),  # ordinal has no --evidence --permutations to suggest
    ("ordinal", ["--correction", "holm"], "--correction adjusts the p-values for --alpha, and "
     "none is given: add --alpha, or drop --correction"),
    ("ordinal", ["-k", "3", "--ratio", "0.1"], "give one of -k (a number of terms), --ratio"),
    ("ordinal", ["--method", "mann_whitney", "--alpha", "0.05", "--ratio", "0.1"],
     "give one of -k (a number of terms), --ratio"),
    ("explore", ["--method", "bns", "--alpha", "0.05"], "--alpha selects the terms whose "
     "adjusted p-value passes it, and bns has no p-value"),
    ("explore", ["--correction", "holm"], "--correction adjusts the p-values for --alpha, and "
     "none is given"),
    ("explore", ["--family", "all"], "--family adjusts the p-values for --alpha, and none"),
    ("explore", ["-k", "3", "--alpha", "0.05"], "give one of -k (a number of terms) and "),
]


@pytest.mark.parametrize("name, args, message", NOT_APPLYING)
def test_an_option_that_does_not_apply_is_refused(tmp_path, name, args, message):
    """Each: exit 2, one `error:` line naming what the option applies to (it was accepted
    and ignored: `--alpha` with `--per-class`, `--correction` without `--alpha`, ...), before
    DATA is even looked at and with --out left as it was."""
    out = tmp_path / "out.html"
    res = runner.invoke(app, [name, str(tmp_path / "nope.jsonl"), *args,
                              *(["--out", str(out)] if name == "explore" else [])])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("error: " + message.rstrip("\n")), res.stderr
    assert res.stderr.count("\n") == 1 and (not message.endswith("\n") or
                                             res.stderr.endswith(message))
    assert not out.exists()


def test_every_rule_of_where_an_option_applies_is_in_the_grid():
    """Every declared rule is of a parameter some command has (none stale), and the grid
    refuses each declared option, and --alpha, --correction and --family in every command
    that has them."""
    from textsift.cli._applies import APPLIES

    params = {n: {p.name for p in c.params} for n, c in COMMANDS.items()}
    assert all(any(name in p for p in params.values()) for name in APPLIES)
    flags = {(name, a) for name, args, _ in NOT_APPLYING for a in args if a.startswith("-")}
    dest = {o: p.name for c in COMMANDS.values() for p in c.params for o in p.opts}
    refused = {dest[a] for _, a in flags}
    assert set(APPLIES) - {"per_class"} <= refused | {"ratio"}, set(APPLIES) - refused
    for name, p in params.items():
        for option in {"alpha", "correction", "family"} & p:
            assert (name, f"--{option}") in flags, (name, option)
