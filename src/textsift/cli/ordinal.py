"""``textsift ordinal`` (rank terms for ordinal regression) and ``textsift ordinal-eval``
(the reduction-level experiment, run by :mod:`textsift.experiment`)."""

from __future__ import annotations

from enum import StrEnum

import typer

from ..corpus import numeric_labels
from ..errors import TextsiftError
from ..ranks import check_ranks
from ..scores import REGISTRY, get_method
from ..selectors import rank, resolve_k
from ._app import Format, app, console, emit, plain
from .options import CorpusOptions, K, NJobs, OutDir, TopOrAll, corpus_options

ORDINAL = sorted(n for n, m in REGISTRY.items() if m.kind == "ordinal")


class Learner(StrEnum):
    svr = "svr"
    svr_balanced = "svr-balanced"


def _numbers(text: str | None, what: str, kind=float):
    if text is None:
        return None
    try:
        return [kind(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise TextsiftError(f"{what} must be a comma-separated list of numbers, got "
                            f"{text!r}") from None


def _method(name: str):
    m = get_method(name)
    if m.kind != "ordinal":
        raise TextsiftError(f"{name!r} is not an ordinal method; choose one of "
                            f"{', '.join(ORDINAL)}")
    return m


def _method_params(m, a, eps, idf) -> dict:
    """The options a method takes (``--eps`` is ``eps`` or ``eps_nc``, whichever it has)."""
    given = {"a": a, "eps": eps, "eps_nc": eps, "idf": idf}
    return {k: v for k, v in given.items() if v is not None and k in m.params}


class Idf(StrEnum):
    standard = "standard"
    smooth = "smooth"


@app.command()
@corpus_options(min_df=5)  # with rr_igor: measured best (docstring)
def ordinal(
    corpus: CorpusOptions,
    method: str = typer.Option("rr_igor", "--method", "-m", help=", ".join(ORDINAL)),
    k: K = None,
    ratio: float = typer.Option(None, "--ratio", show_default=False,
                                help="Fraction of the vocabulary to select (instead of -k)"),
    top: TopOrAll = None,
    fmt: Format = typer.Option(Format.table, "--format", "-f", help="How to print the terms"),
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5 "
                              "(default: the ratings present)", show_default=False),
    a: float = typer.Option(None, "--a", help="IDF exponent (IDF methods; default 1)",
                            show_default=False),
    eps: float = typer.Option(None, "--eps", help="Smoothing eps / eps_nc (default 0.1)",
                              show_default=False),
    idf: Idf = typer.Option(None, "--idf", help="The IDF form (default standard)",
                            show_default=False),
):
    """Rank terms for ordinal regression (Baccianella, Esuli & Sebastiani): select -k terms (or
    a --ratio of the vocabulary) by an ordinal method; the labels are integer ratings.

    The defaults, RR(IGOR) on the words of at least 5 documents, measured best of every
    method (with the papers' associated ranks, and with the rank-balanced ones of RR(Var),
    RR(Var*IDF), RR(NC*IDF) and PRP) at --min-df 1, 2 and 5: mean MAE^M 0.746 over four
    star-rating corpora and the reduction levels 0.5-20%, with the tuned SVR (RR(NC*IDF) at
    --min-df 1, the former default: 0.798; docs/reproductions.md, section 3). --min-df 1 is
    the papers' setting.

    The selected terms go to stdout (a table, CSV or JSON), messages to stderr.

    Example: textsift ordinal reviews.jsonl.gz --label-field rating -k 200 --top 20
    """
    m = _method(method)
    if (k is None) == (ratio is None):
        raise TextsiftError("give exactly one of -k (a number of terms) and --ratio (a "
                            "fraction in (0, 1])")
    scale = _numbers(ranks, "--ranks")
    counts = corpus.count(classes=scale)
    if counts.classes.dtype.kind not in "biuf":  # names the field and its values
        numeric_labels(counts.classes, corpus.label_field)
        raise TextsiftError(f"the ratings of {corpus.label_field!r} are written as strings "
                            f"({counts.classes[0]!r}); write them as numbers")
    check_ranks(counts.classes, scale)  # integer ratings, at least two ranks
    n = resolve_k(counts.n_terms, int(counts.seen.sum()), k, ratio)
    shown = n if top is None else min(n, top)
    ranked = rank(counts, method, top=shown,
                  **_method_params(m, a, eps, idf and idf.value))
    rr = m.default_aggregate == "rr"
    ranked = ranked.rename(columns={"group": "rank_assigned"})
    cols = ["rank", "term", "score"] + (["rank_assigned"] if rr else [])
    ranked = ranked[cols]
    if rr:
        ranked["rank_assigned"] = [plain(g) for g in ranked["rank_assigned"]]
    if m.provisional:
        ranked["provisional"] = True
        console.print(f"[yellow]note:[/] {m.label}: the PRP formula is not pinned down "
                      "(METHODS.md §A.7); do not report it as a reproduction.")
    console.print(f"{m.label}: {n} terms selected of {counts.n_terms}", highlight=False)
    emit(ranked, fmt, f"{m.label} ({'round robin over ranks' if rr else 'top-k'})")


@app.command("ordinal-eval")
@corpus_options(engine=False, split=False)
def ordinal_eval(
    corpus: CorpusOptions,
    out: OutDir,
    methods: str = typer.Option(",".join(ORDINAL), "--methods", help="Comma-separated"),
    ratios: str = typer.Option("0.005,0.01,0.025,0.05,0.1,0.2,0.3,0.5,0.75,1", "--ratios",
                               help="Fractions of the vocabulary to select"),
    learner: Learner = typer.Option(Learner.svr_balanced, "--learner",
                                    help="epsilon-SVR on the ranks, balanced or not"),
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5 "
                              "(default: the ratings present)", show_default=False),
    a_grid: str = typer.Option("0.25,0.5,1,2,4,8", "--a-grid",
                               help="IDF exponents tried on validation"),
    c_grid: str = typer.Option("0.3,1,3", "--c-grid", help="SVR C values tried on validation"),
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
    from ..report.html import write_report
    from .experiment import run_with_progress

    names = [_method(s.strip()).name for s in methods.split(",") if s.strip()]
    tuning = {"val_size": 0.25, "C": _numbers(c_grid, "--c-grid")}
    if any("a" in get_method(n).params for n in names):
        tuning["a"] = _numbers(a_grid, "--a-grid")
    source = {"path": [str(p.absolute()) for p in corpus.data], "label_field": corpus.label_field,
              "task": "ordinal", "text_field": corpus.text_field}
    if corpus.split_field:
        source["split_field"] = corpus.split_field
    if corpus.skip_bad_lines:
        source["skip_bad_lines"] = True
    if ranks:
        source["ranks"] = _numbers(ranks, "--ranks", int)
    opts = corpus.vectorizer()
    config = {
        "experiment": {"name": f"ordinal-eval: {corpus.name}", "seed": 0,
                       "n_jobs": n_jobs},
        "corpus": source,
        "evaluation": {"protocol": "split", "metrics": ["mae_macro", "mae_micro"],
                       **({} if corpus.split_field else {"test_size": 0.2})},
        "preprocessing": {"min_df": opts.min_df, "max_df": opts.max_df, "stem": opts.stem,
                          "strip_headers": opts.strip_headers,
                          **({"stop_words": opts.stop_words} if opts.stop_words else {})},
        "selection": {"methods": names, "ratios": _numbers(ratios, "--ratios"),
                      "baselines": ["ffs", "triv"]},
        "tuning": tuning,
        "learners": [{"name": "svr", "label": learner.value,
                      "balanced": learner is Learner.svr_balanced}],
    }
    summary = run_with_progress(parse_config(config, src="textsift ordinal-eval"), out,
                                resume=True, n_jobs=n_jobs)
    report = write_report(out)
    console.print(f"wrote {out / 'results.csv'} ({len(summary.results)} rows)", highlight=False)
    print(report)
