"""``textsift ordinal`` (rank terms for ordinal regression) and ``textsift ordinal-eval``
(the reduction-level experiment, run by :mod:`textsift.experiment`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from ..corpus import CorpusError, numeric_labels, read_corpus
from ..counts import Counts
from ..ranks import check_ranks
from ..scores import REGISTRY, get_method
from ..selectors import rank, resolve_k
from ..vectorize import VectorizerOptions
from ._app import Format, app, console, emit, fail, plain

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
        fail(f"{what} must be a comma-separated list of numbers, got {text!r}")


def _method(name: str):
    try:
        m = get_method(name)
    except ValueError as exc:
        fail(str(exc))
    if m.kind != "ordinal":
        fail(f"{name!r} is not an ordinal method; choose one of {', '.join(ORDINAL)}")
    return m


def _method_params(m, a, eps, idf) -> dict:
    """The options a method takes (``--eps`` is ``eps`` or ``eps_nc``, whichever it has)."""
    given = {"a": a, "eps": eps, "eps_nc": eps, "idf": idf}
    return {k: v for k, v in given.items() if v is not None and k in m.params}


@app.command()
def ordinal(
    data: Path = typer.Argument(..., help="Corpus file (.jsonl[.gz], .csv, .parquet)"),
    rating_field: str = typer.Option(..., "--rating-field", help="Field with integer ranks"),
    method: str = typer.Option("rr_nc_idf", "--method", "-m", help=", ".join(ORDINAL)),
    k: int = typer.Option(None, "--k", help="Number of terms to select"),
    ratio: float = typer.Option(None, "--ratio", help="Fraction of the vocabulary to keep"),
    top: int = typer.Option(None, "--top", help="Print only the first N selected terms"),
    fmt: Format = typer.Option(Format.table, "--format", "-f"),
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5"),
    a: float = typer.Option(None, "--a", help="IDF exponent (IDF methods; default 1)"),
    eps: float = typer.Option(None, "--eps", help="Smoothing eps / eps_nc (default 0.1)"),
    idf: str = typer.Option(None, "--idf", help="standard | smooth"),
    text_field: str = typer.Option("text", "--text-field"),
    split_field: str = typer.Option(None, "--split-field"),
    split: str = typer.Option(None, "--split", help="Use only this split (e.g. train)"),
    min_df: int = typer.Option(1, "--min-df"),
    stop_words: str = typer.Option(None, "--stop-words"),
):
    """Rank terms for ordinal regression (Baccianella, Esuli & Sebastiani)."""
    m = _method(method)
    if (k is None) == (ratio is None):
        fail("give exactly one of --k (a number of terms) and --ratio (a fraction in (0, 1])")
    if top is not None and top <= 0:
        fail(f"--top must be a positive number of terms, got {top}")
    scale = _numbers(ranks, "--ranks")
    opts = VectorizerOptions(min_df=min_df, stop_words=stop_words)
    try:
        corpus = read_corpus(data, text_field, rating_field, split_field, split)
        y, scale = check_ranks(numeric_labels(corpus.labels, rating_field), scale)
        counts = Counts.from_texts(corpus.texts, y, opts, classes=scale)
        n = resolve_k(counts.n_terms, int(counts.seen.sum()), k, ratio)
        shown = n if top is None else min(n, top)
        ranked = rank(counts, method, top=shown, **_method_params(m, a, eps, idf))
    except (CorpusError, ValueError) as exc:
        fail(str(exc))
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
def ordinal_eval(
    data: Path = typer.Argument(..., help="Corpus file (.jsonl[.gz], .csv, .parquet)"),
    rating_field: str = typer.Option(..., "--rating-field", help="Field with integer ranks"),
    out: Path = typer.Option(..., "--out", help="Output directory (resumes if it exists)"),
    split_field: str = typer.Option(None, "--split-field",
                                    help="Field marking train/test (default: a 80/20 split)"),
    methods: str = typer.Option(",".join(ORDINAL), "--methods", help="Comma-separated"),
    ratios: str = typer.Option("0.005,0.01,0.025,0.05,0.1,0.2,0.3,0.5,0.75,1", "--ratios"),
    learner: Learner = typer.Option(Learner.svr_balanced, "--learner"),
    ranks: str = typer.Option(None, "--ranks", help="The full scale, e.g. 1,2,3,4,5"),
    a_grid: str = typer.Option("0.25,0.5,1,2,4,8", "--a-grid",
                               help="IDF exponents tried on validation"),
    c_grid: str = typer.Option("0.3,1,3", "--c-grid", help="SVR C values tried on validation"),
    text_field: str = typer.Option("text", "--text-field"),
    min_df: int = typer.Option(1, "--min-df"),
    n_jobs: int = typer.Option(1, "--n-jobs", help="Parallel workers"),
):
    """MAE^M of each ordinal method at each reduction level (and FFS, Triv).

    The experiment of examples/ordinal/*.toml, built from these options and run by the
    harness (`textsift run`): OUT gets the same results, summary and report."""
    from ..experiment import parse_config
    from ..report.html import write_report
    from .experiment import run_with_progress

    names = [_method(s.strip()).name for s in methods.split(",") if s.strip()]
    tuning = {"val_size": 0.25, "C": _numbers(c_grid, "--c-grid")}
    if any("a" in get_method(n).params for n in names):
        tuning["a"] = _numbers(a_grid, "--a-grid")
    corpus = {"path": str(data.resolve()), "label_field": rating_field, "task": "ordinal",
              "text_field": text_field}
    if split_field:
        corpus["split_field"] = split_field
    if ranks:
        corpus["ranks"] = _numbers(ranks, "--ranks", int)
    config = {
        "experiment": {"name": f"ordinal-eval: {data.name}", "seed": 0, "n_jobs": n_jobs},
        "corpus": corpus,
        "evaluation": {"protocol": "split", "metrics": ["mae_macro", "mae_micro"],
                       **({} if split_field else {"test_size": 0.2})},
        "preprocessing": {"min_df": min_df},
        "selection": {"methods": names, "ratios": _numbers(ratios, "--ratios"),
                      "baselines": ["ffs", "triv"]},
        "tuning": tuning,
        "learners": [{"name": "svr", "label": learner.value,
                      "balanced": learner is Learner.svr_balanced}],
    }
    summary = run_with_progress(parse_config(config, src="textsift ordinal-eval"), out,
                                resume=True, n_jobs=n_jobs)
    report = write_report(out)
    console.print(f"wrote {out / 'results.csv'} ({len(summary.results)} rows) and {report}",
                  highlight=False)
