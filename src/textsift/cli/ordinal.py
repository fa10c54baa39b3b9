"""``textsift ordinal`` (rank terms for ordinal regression) and ``textsift ordinal-eval``
(the reduction-level experiment, run by :mod:`textsift.experiment`)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import TextsiftError
from . import _catalog
from ._app import app, console, print_note, writes_out
from ._groups import option_group
from ._output import emit, plain
from .core import TOP
from .options import (
    Alpha,
    CorpusOptions,
    Correction,
    FormatOption,
    K,
    NJobs,
    OutDir,
    Top,
    choices,
    corpus_options,
)

ORDINAL = _catalog.ordinal_methods()


def _learner(text: str) -> dict:
    """The ``[[learners]]`` table of ``--learner``: a registered learner that serves ranks
    (:data:`textsift.learners.LEARNERS`), or ``NAME-balanced`` for one with a ``balanced``
    parameter (its rank-balanced loss), labelled as given."""
    from ..errors import did_you_mean
    from ..labels import LabelKind
    from ..learners import LEARNERS

    tables = {}
    for name, learner in LEARNERS.items():
        if LabelKind.ORDINAL in learner.label_kinds:
            tables[name] = {"name": name, "label": name}
            if "balanced" in learner.params:
                tables[f"{name}-balanced"] = {"name": name, "label": f"{name}-balanced",
                                              "balanced": True}
    if text not in tables:
        raise TextsiftError(f"--learner {text!r} is not a learner of ranks"
                            f"{did_you_mean(text, tables)}; choose one of {', '.join(tables)}")
    return tables[text]


def _numbers(text: str | None, what: str, kind=float):
    if text is None:
        return None
    try:
        return [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise TextsiftError(f"{what} must be a comma-separated list of numbers, got "
                            f"{text!r}") from None


def _method(name: str):
    from ..scores import get_method

    m = get_method(name)
    if m.kind != "ordinal":
        raise TextsiftError(f"{name!r} is not an ordinal method; choose one of "
                            f"{', '.join(ORDINAL)}")
    return m


#: What each parameter of the ordinal methods means, for its option's help (a parameter the
#: registry adds later gets an option with a plain help).
PARAM_HELP = {
    "a": "IDF exponent",
    "eps": "Smoothing epsilon added to Var or NC",
    "idf": "The IDF form",
    "s": "PRP's rank similarity s in [0, 1] (S_ij = s^|r_i - r_j|)",
    "base": "Logarithm base of the information gain",
    "balanced": "Rank-balanced associated ranks: each document weighted by the inverse "
                "frequency of its rank, so that every rank gets terms on J-shaped ratings",
}


def _ordinal_params() -> dict[str, list[str]]:
    """Each keyword parameter of the ordinal methods (the registry's, read from its
    catalogue: :mod:`textsift.cli._catalog`) -> the methods that take it, in the order the
    methods list them."""
    takers: dict[str, list[str]] = {}
    for name in ORDINAL:
        for p in _catalog.methods()[name]["params"]:
            takers.setdefault(p, []).append(name)
    return takers


def _param_option(name: str, methods: list[str]):
    """The typer annotation of the option ``--NAME`` for a method parameter: its type from
    the registry's default (a choice when the function's annotation lists the values)."""
    entries = [_catalog.methods()[m] for m in methods]
    default = entries[0]["params"][name]
    kind = (choices(name.capitalize(), entries[0]["choices"][name])
            if name in entries[0]["choices"] else type(default))
    defaults = sorted({str(e["params"][name]) for e in entries})
    help = (f"{PARAM_HELP.get(name, 'A parameter')} ({', '.join(methods)}; "
            f"default {' or '.join(defaults)})")
    return Annotated[kind | None, typer.Option(f"--{name}", help=help, show_default=False)]


def method_options(func):
    """Give the command an option ``--NAME`` for every parameter of the ordinal methods, taken
    from the registry (so that a parameter such as PRP's ``s`` can be set as soon as the method
    has it); the command receives the ones given as one dict, ``params``."""
    takers = _ordinal_params()
    options = {f"param_{n}": (_param_option(n, ms), None) for n, ms in takers.items()}

    def make(**given) -> dict:
        return {n: getattr(v, "value", v) for n, v in
                ((name.removeprefix("param_"), v) for name, v in given.items())
                if v is not None}

    return option_group("params", options, make)(func)


def _check_params(m, params: dict) -> None:
    """Refuse an option of another ordinal method (``--s`` with ``rr_nc_idf``)."""
    takers = _ordinal_params()
    for name in params:
        if name not in m.params:
            raise TextsiftError(f"--{name} is a parameter of {', '.join(takers[name])}, not "
                                f"of {m.name}")


@app.command()
@corpus_options(min_df=5)  # with rr_igor: measured best (docstring)
@method_options
def ordinal(
    corpus: CorpusOptions,
    method: str = typer.Option("rr_igor", "--method", "-m", help=", ".join(ORDINAL)),
    k: K = None,
    ratio: float = typer.Option(None, "--ratio", show_default=False,
                                help="Fraction of the vocabulary to select (instead of -k)"),
    top: Top = None,
    fmt: FormatOption = None,
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5 "
                              "(default: the ratings present)", show_default=False),
    alpha: Alpha = None,
    correction: Correction = None,
    params: dict | None = None,
):
    """Rank terms for ordinal regression (Baccianella, Esuli & Sebastiani) by an ordinal
    method; the labels are integer ratings. As score: without -k (or --ratio, a fraction of
    the vocabulary) the ranking's best --top terms (20) are printed and nothing is selected;
    with it, the terms a selector keeps. With --alpha (instead of -k or --ratio), the terms
    whose p-value, adjusted by --correction (default bh), passes alpha, for the ordinal
    method with a test (mann_whitney).

    The defaults, RR(IGOR) on the words of at least 5 documents, measured best of every
    method (with the papers' associated ranks, and with the rank-balanced ones of RR(Var),
    RR(Var*IDF), RR(NC*IDF) and PRP) at --min-df 1, 2 and 5: mean MAE^M 0.746 over four
    star-rating corpora and the reduction levels 0.5-20%, with the tuned SVR (RR(NC*IDF) at
    --min-df 1, the former default: 0.798; docs/reproductions.md, section 3). --min-df 1 is
    the papers' setting.

    A -k larger than the vocabulary keeps every term, with a note. The selected terms go to
    stdout (a table on a terminal, tab-separated values when piped, or CSV or JSON),
    messages to stderr.

    Example: textsift ordinal reviews.jsonl.gz --label-field rating -k 200 --top 20
    """
    from ..selection.policies import resolve_k, size_note
    from ..selection.ranking import rank

    m = _method(method)
    _check_params(m, params)
    counts = _rating_counts(corpus, ranks)
    if alpha is not None:
        from .core import by_significance

        return by_significance(counts, m, None, alpha, getattr(correction, "value", correction),
                               None, "both", top, fmt, params)
    selecting = k is not None or ratio is not None
    n = resolve_k(counts.n_terms, int(counts.seen.sum()), k, ratio) if selecting else None
    note = size_note(k, counts.n_terms, "-k")
    if note:
        print_note(note)
    shown = (top or TOP) if n is None else n if top is None else min(n, top)
    ranked = rank(counts, m, top=shown, **params)
    rr = ranked.policy == "rr"
    frame = ranked.to_frame().rename(columns={"group": "rank"})  # the rank it was taken for
    if rr:
        frame["rank"] = [plain(g) for g in frame["rank"]]
    if m.provisional:
        frame["provisional"] = True
        print_note(f"{m.label}: the PRP formula is not pinned down (the paper does not give it "
                 "in full); do not report it as a reproduction.")
    if n is not None:
        console.print(f"{m.label}: {n:,} terms selected of {counts.n_terms:,}",
                      highlight=False)
    emit(frame, fmt, f"{m.label} ({'round robin over ranks' if rr else 'top-k'})")


def _rating_counts(corpus: CorpusOptions, ranks: str | None):
    """The corpus's counts over its ratings (``--ranks``: the full scale), read as numbers in
    every format and checked: integers, at least two ranks."""
    from ..labels import label_lists_for_ranks
    from ..labels.ranks import check_ranks

    scale = _numbers(ranks, "--ranks")
    counts = corpus.count(classes=scale, ranks=True)  # "4", CSV's 04: the rank 4
    if counts.multilabel:
        raise label_lists_for_ranks(field=corpus.label_field)
    check_ranks(counts.classes, scale)  # integer ratings, at least two ranks
    return counts


@app.command("ordinal-eval")
@writes_out()
@corpus_options(engine=False, split=False, stdin=False)
def ordinal_eval(
    corpus: CorpusOptions,
    out: OutDir,
    methods: str = typer.Option(",".join(ORDINAL), "--methods", help="Comma-separated"),
    ratios: str = typer.Option("0.005,0.01,0.025,0.05,0.1,0.2,0.3,0.5,0.75,1", "--ratios",
                               help="Fractions of the vocabulary to select"),
    learner: str = typer.Option("svr-balanced", "--learner",
                                help="A learner of ranks of textsift run's registry (svr, "
                                "linear_svm, ...); NAME-balanced for its rank-balanced loss, "
                                "where it has one (svr-balanced)"),
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5 "
                              "(default: the ratings present)", show_default=False),
    a_grid: str = typer.Option("0.25,0.5,1,2,4,8", "--a-grid",
                               help="IDF exponents tried on validation"),
    c_grid: str = typer.Option("0.3,1,3", "--c-grid",
                               help="C values tried on validation (for a learner with C)"),
    n_jobs: NJobs = 1,
):
    """MAE^M of each ordinal method at each reduction level (and FFS, Triv).

    The experiment of examples/ordinal/*.toml, built from these options and run by the
    harness (`textsift run`): OUT gets the same results, summary and report. The test part is
    the records whose --split-field is 'test' (the others, 'train'), or else a random
    stratified 20%. The report's path goes to stdout, progress to stderr.

    Example: textsift ordinal-eval reviews.jsonl.gz --label-field rating --out ordinal-run
    """
    from ..experiment import parse_config
    from ..learners import get_learner
    from ..report.html import write_report
    from .experiment import run_with_progress

    names = [_method(s.strip()).name for s in methods.split(",") if s.strip()]
    learners = [_learner(learner)]
    tuning = {}
    if "C" in get_learner(learners[0]["name"]).params:
        tuning["C"] = _numbers(c_grid, "--c-grid")
    if any("a" in _catalog.methods()[n]["params"] for n in names):
        tuning["a"] = _numbers(a_grid, "--a-grid")
    config = {  # the schema's defaults for the rest, as for a TOML file
        "experiment": {"name": f"ordinal-eval: {corpus.name}", "n_jobs": n_jobs},
        "corpus": _corpus_table(corpus, ranks),
        "evaluation": {"metrics": ["mae_macro", "mae_micro"],
                       **({} if corpus.split_field else {"test_size": 0.2})},
        "preprocessing": corpus.vectorizer(),  # every option, as every command reads them
        "selection": {"methods": names, "ratios": _numbers(ratios, "--ratios"),
                      "baselines": ["ffs", "triv"]},
        "tuning": tuning,
        "learners": learners,
    }
    summary = run_with_progress(parse_config(config, src="textsift ordinal-eval"), out,
                                resume=True, n_jobs=n_jobs)
    report = write_report(out)
    console.print(f"wrote {out / 'results.csv'} ({len(summary.results)} rows)", highlight=False)
    print(report)


def _corpus_table(corpus: CorpusOptions, ranks: str | None) -> dict:
    """The ``[corpus]`` table of ``ordinal-eval``'s experiment."""
    source = {"path": [str(p.absolute()) for p in corpus.data], "label_field": corpus.label_field,
              "label_kind": "ordinal", "text_field": corpus.text_field,
              "skip_bad_lines": corpus.skip_bad_lines, "strip_labels": corpus.strip_labels}
    if corpus.split_field:
        source["split_field"] = corpus.split_field
    for key in ("encoding", "sep", "label_sep"):
        if getattr(corpus, key) is not None:
            source[key] = getattr(corpus, key)
    if ranks:
        source["ranks"] = _numbers(ranks, "--ranks", int)
    return source
