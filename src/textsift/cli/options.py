"""The options the commands share, each defined once, so that an option means the same in
every command (``tests/test_cli_options.py`` walks the commands and checks it).

The options that describe a corpus -- the source, its fields, its split, its preprocessing,
bad lines, the counting engine -- are gathered by :func:`corpus_options` into one
:class:`CorpusOptions` value: a command declares ``corpus: CorpusOptions`` and gets them all,
typed and checked (``--min-df 0`` or ``--max-df 0`` are usage errors naming the option).

Where the same name could mean two things, it is settled here:

* ``--label-field`` is the label of every command: a class, or a rating for the ordinal
  commands; its value may be a list of labels (a multi-label corpus), which ``--label-sep``
  splits out of a CSV field;
* ``-k/--k`` is how many terms to select, ``--top`` how many to print;
* ``--min-df`` defaults to 1 (every term), except for the AdaBag commands, whose paper keeps
  the words of at least 5 documents;
* ``--engine`` (with ``--scheduler`` and ``--chunk-size``) exists on the commands that only
  count a corpus (score, ordinal, explore); the commands that fit learners need the
  document-term matrix, so they read the corpus in memory.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .._bounds import ALPHA, LEVEL, MAX_DF, MIN_DF, POSITIVE, Bound
from .._bounds import K as K_TERMS
from .._choices import CORRECTION as DEFAULT_CORRECTION
from .._choices import (
    CORRECTION_NAMES,
    CORRECTIONS,
    DEFAULT_ALPHA,
    DEFAULT_LEVEL,
    DIRECTIONS,
    ENGINES,
    FAMILIES,
)
from .._choices import ENGINE as DEFAULT_ENGINE
from .._options import PREPROCESSING, Option
from ..errors import check_n_jobs
from ._data import STDIN, check_paths, from_stdin
from ._groups import option_group
from ._output import Format

if TYPE_CHECKING:
    from ..text.vectorize import VectorizerOptions

CORPUS = "Corpus"
ENGINE = "Engine"


def choices(name: str, values) -> type[StrEnum]:
    """The choice type of an option whose values the library lists (``ENGINES``,
    ``AGGREGATES``, ...): typer offers and checks exactly the values the library accepts, so
    the two cannot drift apart."""
    return StrEnum(name, [(v, v) for v in values])


Engine = choices("Engine", ENGINES)


def _ngrams(value: str | None) -> tuple[int, int] | None:
    """``MIN-MAX`` (``1-2``: words and pairs of words) as ``(min_n, max_n)``."""
    if value is None:
        return value
    low, sep, high = value.partition("-")
    if not (sep and low.strip().isdigit() and high.strip().isdigit()):
        raise typer.BadParameter(f"MIN-MAX, e.g. 1-2 for words and pairs of words; got "
                                 f"{value!r}")
    low, high = int(low), int(high)
    if not 1 <= low <= high:
        raise typer.BadParameter(f"MIN-MAX with 1 <= MIN <= MAX, e.g. 1-2; got {value!r}")
    return low, high


def _within(bound: Bound, value, shown=None):
    """``value`` if it is in ``bound`` (``textsift._bounds``: the ranges the library
    checks), else a usage error naming the values the option takes."""
    if value is not None and value not in bound:
        raise typer.BadParameter(f"{bound.words}; got {shown or value}")
    return value


def _min_df(value: float) -> int | float:
    """A whole number of documents (read as an int, which is how scikit-learn tells a count
    from a fraction), or a fraction in [0, 1)."""
    if value is not None and float(value).is_integer():
        value = int(value)
    return _within(MIN_DF, value, f"{value:g}" if value is not None else None)


def _max_df(value: float) -> int | float:
    """A fraction in (0, 1], or a whole number of documents above 1 (read as an int, which
    is how scikit-learn tells a count from a fraction)."""
    if value is not None and value > 1 and float(value).is_integer():
        value = int(value)
    return _within(MAX_DF, value, f"{value:g}" if value is not None else None)


def _positive(value: int | None) -> int | None:
    return _within(POSITIVE, value)


def _k(value: int | None) -> int | None:
    return _within(K_TERMS, value)


def _n_jobs(value: int | None) -> int | None:
    if value is not None:
        try:
            check_n_jobs(value, "--n-jobs")
        except ValueError as exc:
            raise typer.BadParameter(f"a positive number of workers, or -1 for every core; "
                                     f"got {value}") from exc
    return value


# ------------------------------------------------------------------ the shared options
_DATA_HELP = ("The corpus: .jsonl(.gz), .csv(.gz) or .parquet files, directories of them, "
              "quoted globs ('data/*.jsonl.gz'), or aclImdb / 20news-bydate trees; several are "
              "read as one corpus; - reads it from standard input")
Data = Annotated[list[Path], typer.Argument(help=_DATA_HELP, metavar="DATA...",
                                            show_default=False)]
OptionalData = Annotated[list[Path] | None, typer.Argument(
    help=_DATA_HELP + " (none with --simulate)", metavar="[DATA...]", show_default=False)]
TextField = Annotated[str, typer.Option(
    "--text-field", help="The field holding the text", rich_help_panel=CORPUS)]
LabelField = Annotated[str, typer.Option(
    "--label-field", help="The field holding the label: a class, or a rating for the ordinal "
    "commands", rich_help_panel=CORPUS)]
LabelSep = Annotated[str | None, typer.Option(
    "--label-sep", help="CSV only: the label field joins several labels with this separator "
    "(e.g. ';' for earn;acq); JSON Lines and Parquet give label lists as lists",
    rich_help_panel=CORPUS, show_default=False)]
Encoding = Annotated[str | None, typer.Option(
    "--encoding", help="The encoding of JSON Lines and CSV files (default UTF-8), e.g. "
    "latin-1, cp1252, utf-16", rich_help_panel=CORPUS, show_default=False)]
Sep = Annotated[str | None, typer.Option(
    "--sep", help="CSV only: the character separating the fields (default ',' for .csv, a "
    "tab for .tsv), e.g. ';'", rich_help_panel=CORPUS, show_default=False)]
SplitField = Annotated[str | None, typer.Option(
    "--split-field", help="The field holding the split (default: split)",
    rich_help_panel=CORPUS, show_default=False)]
Split = Annotated[str | None, typer.Option(
    "--split", help="Use only the records of this split, e.g. train", rich_help_panel=CORPUS,
    show_default=False)]
StripLabels = Annotated[bool, typer.Option(
    "--strip-labels", help="Remove the white space around each label ('sci.space ' is "
    "'sci.space'); case is kept", rich_help_panel=CORPUS)]
SkipBadLines = Annotated[bool, typer.Option(
    "--skip-bad-lines", help="Skip malformed JSONL lines (and say how many) instead of "
    "stopping at the first", rich_help_panel=CORPUS)]
EngineOption = Annotated[Engine, typer.Option(
    "--engine", help="Count in memory, in chunks of bounded memory (stream), or on a Dask "
    "cluster", rich_help_panel=ENGINE)]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", help="Dask scheduler address tcp://HOST:PORT (dask engine; default: a "
    "local cluster)", rich_help_panel=ENGINE, show_default=False)]
ChunkSize = Annotated[int | None, typer.Option(
    "--chunk-size", help="Documents per chunk (stream and dask engines; default 10,000)",
    callback=_positive, rich_help_panel=ENGINE, show_default=False)]

Top = Annotated[int | None, typer.Option(
    "--top", help="How many terms to print (default 20; with -k, every selected term)",
    callback=_positive, show_default=False)]


def _alpha(value: float | None) -> float | None:
    return _within(ALPHA, value, f"{value:g}" if value is not None else None)


def _level(value: float | None) -> float | None:
    return _within(LEVEL, value, f"{value:g}" if value is not None else None)


CorrectionChoice = choices("Correction", CORRECTIONS)
FamilyChoice = choices("Family", FAMILIES)
Evidence = Annotated[bool, typer.Option(
    "--evidence", help="For each term: its counts (A, B: the class's and the rest's "
    "documents with it; C, D: without), the method's p-value, the adjusted one (q), and "
    "effect sizes with intervals (log ratio, LRC, odds ratio, difference of proportions), "
    "its tokens, range, DP, DPnorm and coefficient of variation in the class and the rest, "
    "and the Wilcoxon rank-sum test of the documents' rates (p_wilcoxon, q_wilcoxon); "
    "each class's number of terms with q <= --alpha")]
Alpha = Annotated[float | None, typer.Option(
    "--alpha", help="A significance level: the terms whose adjusted p-value (q, by "
    "--correction) passes it, instead of -k (with --evidence: the level of each class's count "
    f"of passing terms, default {DEFAULT_ALPHA:g})", callback=_alpha,
    show_default=False)]
Correction = Annotated[CorrectionChoice | None, typer.Option(
    "--correction", help="How p-values are adjusted for the many terms tested: " + ", ".join(
        f"{name} ({shown})" for name, shown in CORRECTION_NAMES.items())
    + f"; default {DEFAULT_CORRECTION} (bh, by: the false discovery rate; holm, bonferroni: "
    "the family-wise error)", show_default=False)]
Family = Annotated[FamilyChoice | None, typer.Option(
    "--family", help="The tests corrected together: each class's terms (class, the "
    "default) or every term of every class (all)", show_default=False)]
Level = Annotated[float | None, typer.Option(
    "--level", help=f"The confidence level of the intervals (default {DEFAULT_LEVEL:g})",
    callback=_level,
    show_default=False)]
DirectionChoice = choices("Direction", DIRECTIONS)
Direction = Annotated[DirectionChoice | None, typer.Option(
    "--direction", help="Which terms of a class to show: over-represented in it (the "
    "default wherever a class's terms are shown), under-represented, or both (marked); "
    "for the ranking of all classes, over or under keeps each term's scores in the classes "
    "where it has that direction (default both)", show_default=False)]
K = Annotated[int | None, typer.Option(
    "-k", "--k", help="How many terms to select", callback=_k, show_default=False)]
NJobs = Annotated[int | None, typer.Option(
    "--n-jobs", help="Parallel workers (-1: every core)", callback=_n_jobs)]
FormatOption = Annotated[Format | None, typer.Option(
    "--format", "-f", help="How to print the results: table, tsv, csv, json or parquet "
    "(binary: redirect it to a file) (default: a "
    "table on a terminal, tab-separated values when piped)", show_default=False)]
OutDir = Annotated[Path, typer.Option(
    "--out", "-o", help="The directory for the results (created; a run in it resumes)",
    show_default=False)]


@dataclass(frozen=True)
class CorpusOptions:
    """A corpus as the command line describes it (the options above)."""

    data: tuple[Path, ...]
    text_field: str = "text"
    label_field: str = "label"
    label_sep: str | None = None
    encoding: str | None = None
    sep: str | None = None
    split_field: str | None = None
    split: str | None = None
    skip_bad_lines: bool = False
    strip_labels: bool = False
    engine: Engine = Engine(DEFAULT_ENGINE)
    scheduler: str | None = None
    chunk_size: int | None = None
    #: The preprocessing options given (option name -> value; the others take their default).
    preprocessing: dict = field(default_factory=dict)

    def vectorizer(self, **kw) -> VectorizerOptions:
        """The preprocessing options (``kw`` override them, e.g. ``binary=True``)."""
        from ..text.vectorize import VectorizerOptions

        return VectorizerOptions(**{**self.preprocessing, **kw})

    @property
    def source(self):
        """What the readers take: the one source, or the list of them."""
        return self.data[0] if len(self.data) == 1 else list(self.data)

    @property
    def name(self) -> str:
        """The corpus's name for titles: its (first) file's."""
        return self.data[0].name + (f" and {len(self.data) - 1} more" if len(self.data) > 1
                                    else "")

    @property
    def on_bad_line(self) -> str:
        return "skip" if self.skip_bad_lines else "error"

    def count(self, classes=None, ranks: bool = False, documents: list | None = None, **kw):
        """The corpus's counts (:func:`textsift.engines.count_file`, any engine; ``ranks``:
        the labels read as numbers, for the ordinal methods; ``documents``: a list that gets
        the memory engine's document-term matrix and labels); skipped lines are reported
        once, as a warning on stderr."""
        import warnings

        from rich.markup import escape

        from ..engines import count_file
        from ._app import console
        from ._progress import stage_progress, step

        bad: list = []
        counted = self.engine != "memory" or self.preprocessing.get("tokenizer") is not None
        # the stream and dask engines and a tokenizer callable count their progress; the
        # memory engine's reading and counting (n-grams included) is one step
        drawn = stage_progress("documents") if counted else step("counting the corpus")
        with warnings.catch_warnings(), drawn as progress:  # warnings reported below, once
            warnings.filterwarnings("ignore", "skipped ", UserWarning)
            counts = count_file(self.source, text_field=self.text_field,
                                label_field=self.label_field, split_field=self.split_field,
                                split=self.split, opts=self.vectorizer(**kw),
                                engine=self.engine.value, scheduler=self.scheduler,
                                chunk_size=self.chunk_size, on_bad_line=self.on_bad_line,
                                bad_lines=bad, classes=classes, label_sep=self.label_sep,
                                encoding=self.encoding, sep=self.sep,
                                strip_labels=self.strip_labels, progress=progress,
                                ranks=ranks, documents=documents)
        if bad:
            file, line = bad[0]
            console.print(f"[yellow]warning:[/] skipped {len(bad)} malformed line(s) (first: "
                          f"{escape(str(file))} line {line})", highlight=False, soft_wrap=True)
        return counts

    def read(self, ranks: bool = False):
        """The whole corpus in memory (:func:`textsift.reading.corpus.read_corpus`)."""
        from ..reading.corpus import read_corpus

        return read_corpus(self.source, self.text_field, self.label_field, self.split_field,
                           self.split, self.on_bad_line, [], self.label_sep, self.strip_labels,
                           ranks, encoding=self.encoding, sep=self.sep)

    def documents(self, ranks: bool = False) -> Iterator[tuple[str, object]]:
        """``(text, label)`` of every (selected) document, streamed."""
        from ..engines.readers import iter_chunks

        for chunk in iter_chunks(self.source, self.text_field, self.label_field,
                                 self.split_field, self.split, on_bad_line=self.on_bad_line,
                                 label_sep=self.label_sep, strip_labels=self.strip_labels,
                                 ranks=ranks, encoding=self.encoding, sep=self.sep):
            yield from zip(chunk.texts, chunk.labels, strict=True)


#: How the command line reads and checks an option of the corpus's preprocessing, where
#: typer's own reading is not enough.
_READ = {"min_df": _min_df, "max_df": _max_df, "ngram_range": _ngrams}


def _preprocessing_param(option: Option) -> tuple:
    """The command-line parameter of a preprocessing option: ``(annotation, default)``, made
    from its one definition (:data:`textsift._options.PREPROCESSING`). A default the command
    line cannot show as text (``(1, 1)``) is ``None``, which leaves the option's own."""
    cli = option.cli
    kind = (choices(option.name.title(), option.choices()) if option.choices else
            cli.type or (str if option.default is None else type(option.default)))
    default = option.default if isinstance(option.default, str | int | float) else None
    if option.choices and default is not None:
        default = kind(default)
    hint = {"show_default": False} if default is None else {}
    return (Annotated[kind | None if default is None else kind, typer.Option(
        cli.flag, help=option.help, callback=_READ.get(option.name), metavar=cli.metavar,
        rich_help_panel=CORPUS, **hint)], default)


#: The command line's preprocessing options, by name (made once: every command shares them).
_PREPROCESSING_PARAMS = {o.name: _preprocessing_param(o) for o in PREPROCESSING if o.cli}

#: The parameters :func:`corpus_options` gives a command, in the order of its help.
_CORPUS_PARAMS = {
    "data": (Data, inspect.Parameter.empty),
    "text_field": (TextField, "text"),
    "label_field": (LabelField, "label"),
    "label_sep": (LabelSep, None),
    "encoding": (Encoding, None),
    "sep": (Sep, None),
    "split_field": (SplitField, None),
    "split": (Split, None),
    **_PREPROCESSING_PARAMS,
    "skip_bad_lines": (SkipBadLines, False),
    "strip_labels": (StripLabels, False),
    "engine": (EngineOption, Engine(DEFAULT_ENGINE)),
    "scheduler": (Scheduler, None),
    "chunk_size": (ChunkSize, None),
}
ENGINE_PARAMS = ("engine", "scheduler", "chunk_size")


def corpus_options(*, engine: bool = True, split: bool = True, min_df: int = 1,
                   data_required: bool = True, stdin: bool = True):
    """A decorator giving a command the corpus options: its parameter ``corpus:
    CorpusOptions`` becomes the options above, and the command receives them as one
    :class:`CorpusOptions`. ``engine=False`` for the commands that need the document-term
    matrix (no ``--engine``, ``--scheduler``, ``--chunk-size``); ``split=False`` for those
    whose split field marks train and test (no ``--split``); ``min_df`` the default of
    ``--min-df``; ``data_required=False`` where DATA may be left out (a simulation);
    ``stdin=False`` where DATA ``-`` (standard input: ``cli._data.from_stdin``) is
    refused."""
    leave_out = (set(ENGINE_PARAMS) if not engine else set()) | (set() if split else {"split"})
    defaults = {"min_df": min_df, "data": inspect.Parameter.empty if data_required else None}
    options = {name: (OptionalData if name == "data" and not data_required else annotation,
                      defaults.get(name, default))
               for name, (annotation, default) in _CORPUS_PARAMS.items()
               if name not in leave_out}

    def decorate(func):
        command_name = func.__name__.replace("_", "-")

        def make(**given) -> CorpusOptions:
            given["data"] = tuple(given["data"] or ())
            if any(str(p) == STDIN for p in given["data"]):
                given["data"] = (from_stdin(given["data"], stdin, command_name),)
            check_paths(given["data"])  # first: before the options' checks import much
            valid = {f.name for f in fields(CorpusOptions)}
            corpus = CorpusOptions(
                **{k: v for k, v in given.items() if k in valid},
                preprocessing={k: v.value if isinstance(v, Enum) else v
                               for k, v in given.items()
                               if k in _PREPROCESSING_PARAMS and v is not None})
            corpus.vectorizer()  # options that cannot go together: an error before any work
            return corpus

        # the DATA argument first, then the command's own parameters, then the corpus options
        return option_group("corpus", options, make, lead=("data",), trailing=True)(func)

    return decorate
