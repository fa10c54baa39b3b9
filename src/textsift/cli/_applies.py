"""Where each option applies, declared once, and the one check that refuses an option given
where it does not apply.

An option that a command accepts but a view of it ignores (``--alpha`` with ``--per-class``
alone, ``--correction`` without ``--alpha``) is a silent no-op: the user believes it acted.
Each option with such a rule declares it in :data:`APPLIES` -- an :class:`Applies` per
parameter name, whatever the command -- and :func:`check` runs every declaration over the
options given to a command before it starts (``textsift.cli._app._Command.invoke``): one
``error:`` line that names what the option applies to, in every command alike. A rule reads
only the parameters the command has (``--seed`` of ``adabag`` has no ``--permutations`` to
need), and an option is *given* when it is on the command line, not when it has its default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from typer._click.core import ParameterSource


class Given:
    """The options of one command line: their values, and whether each was given."""

    def __init__(self, ctx):
        self.command = ctx.info_name
        self.params = ctx.params
        self._ctx = ctx

    def has(self, name: str) -> bool:
        """Whether the command has the parameter ``name``."""
        return name in self.params

    def given(self, name: str) -> bool:
        """Whether ``name`` was given on the command line (or by its environment variable)."""
        return name in self.params and self._ctx.get_parameter_source(name) in (
            ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)

    def value(self, name: str):
        value = self.params.get(name)
        return getattr(value, "value", value)

    @property
    def method(self) -> str | None:
        """The method the command ranks by (``--method``; ``None`` where it has none or
        leaves it to its default)."""
        return self.value("method")

    def method_entry(self) -> dict | None:
        """The catalogue's entry of :attr:`method` (``None`` for no method, ``all`` or an
        unknown name, which the command itself refuses with its own message)."""
        from ._catalog import methods

        return methods().get(self.method) if self.method else None

    def tests_like(self) -> str:
        """The statistical tests of the method's kind, listed: what to choose instead."""
        from ._catalog import methods

        entry = self.method_entry()
        kind = entry["kind"] if entry else "nominal"
        return ", ".join(n for n, m in methods().items() if m["test"] and m["kind"] == kind)


@dataclass(frozen=True)
class Case:
    """A case where an option does not apply: ``when`` tells it from the options given,
    ``says`` the error (a text, or a function of the options giving it)."""

    when: Callable[[Given], bool]
    says: str | Callable[[Given], str]


@dataclass(frozen=True)
class Applies:
    """Where the option of a parameter applies: the cases it does not, in the order checked."""

    cases: tuple[Case, ...]


def _no_pvalue(g: Given) -> bool:
    entry = g.method_entry()
    return entry is not None and not entry["test"] and not g.given("permutations")


def _alpha_without_test(g: Given) -> str:
    permuted = (", or --evidence --permutations N for p-values of any method by permutations"
                if g.has("permutations") else "")
    return (f"--alpha selects the terms whose adjusted p-value passes it, and {g.method} has "
            f"no p-value (it is not a statistical test): choose a method that is a test "
            f"({g.tests_like()}), or -k{permuted}")


def _sizes(g: Given) -> str:
    ratio = ", --ratio (a fraction in (0, 1])" if g.has("ratio") else ""
    return (f"give one of -k (a number of terms){ratio} and --alpha (a significance level), "
            "or none to print the ranking's best --top terms")


def _adjusts(name: str) -> Case:
    """``--correction`` and ``--family`` shape the adjusted p-values, which only
    ``--alpha`` (and ``--evidence``, where the command has it) use."""
    flag = f"--{name}"

    def says(g: Given) -> str:
        users = "--alpha or --evidence" if g.has("evidence") else "--alpha"
        return (f"{flag} adjusts the p-values for {users}, and none is given: add {users}, "
                f"or drop {flag}")
    return Case(lambda g: g.given(name) and not g.given("alpha") and not g.given("evidence"),
                says)


def _per_class_alone(g: Given) -> bool:
    return g.given("per_class") and not g.given("evidence")


#: Each option's rule, by parameter name; :func:`check` reads them in this order, so that the
#: first error is the one of the option that decides the view (--method all, --per-class).
APPLIES: dict[str, Applies] = {
    "aggregate": Applies((
        Case(lambda g: g.method == "all" and g.value("aggregate") == "rr",
             "--method all prints a score per method; the round robin gives an order, not a "
             "score: use --aggregate max, sum or wavg"),)),
    "per_class": Applies((
        Case(lambda g: g.given("per_class") and (g.given("class_label") or g.given("aggregate")
                                                 or g.method == "all"),
             "--per-class ranks every class by its own scores: drop --class, --aggregate and "
             "--method all"),
        Case(lambda g: g.given("per_class") and (g.given("reference")
                                                 or g.given("reference_corpus")),
             "--per-class compares every class with the rest; a reference compares one "
             "target: give --class instead of --per-class"),)),
    "k": Applies((
        Case(lambda g: g.given("k") and (g.method == "all" or g.given("per_class")),
             lambda g: "-k selects the terms of one ranking; " + (
                 "--method all prints every method" if g.method == "all" else
                 "--per-class prints one ranking per class")
             + ": drop -k, and give --top to print more terms"),)),
    "evidence": Applies((
        Case(lambda g: g.given("evidence") and g.method == "all",
             "--evidence shows one method's evidence; --method all prints every method's "
             "score: choose one method"),
        Case(lambda g: g.given("evidence") and g.given("per_class") and _no_pvalue(g),
             lambda g: f"--per-class --evidence shows each class's p-values and how many "
             f"terms pass --alpha, and {g.method} has no p-value (it is not a statistical "
             f"test): choose a method that is a test ({g.tests_like()}), or drop --per-class "
             "for its counts and effect sizes"),)),
    "alpha": Applies((
        Case(lambda g: g.given("alpha") and g.method == "all",
             "--alpha selects the terms of one method by their adjusted p-values, and "
             "--method all prints every method's score: choose one method that is a test, or "
             "drop --alpha"),
        Case(lambda g: g.given("alpha") and _per_class_alone(g),
             "--alpha with --per-class is the level of each class's count of passing terms, "
             "which --evidence shows: add --evidence, or drop --alpha (the terms of one class "
             "that pass it: --class C --alpha)"),
        Case(lambda g: g.given("alpha") and (g.given("k") or g.given("ratio")), _sizes),
        Case(lambda g: g.given("alpha") and _no_pvalue(g), _alpha_without_test),
        Case(lambda g: g.given("alpha") and g.given("evidence") and not g.given("per_class")
             and not g.given("permutations"),
             "--evidence of one ranking shows every term's adjusted p-value (q) and selects "
             "none, so --alpha does nothing there: drop --evidence to select the terms that "
             "pass --alpha, or add --per-class to count each class's passing terms"),)),
    "ratio": Applies((Case(lambda g: g.given("ratio") and g.given("k"), _sizes),)),
    "correction": Applies((_adjusts("correction"),)),
    "family": Applies((_adjusts("family"),)),
    "level": Applies((
        Case(lambda g: g.given("level") and not g.given("evidence"),
             "--level is the confidence level of --evidence's intervals: add --evidence, or "
             "drop --level"),
        Case(lambda g: g.given("level") and g.given("per_class"),
             "--per-class --evidence shows each class's p and q, no interval: drop --level, "
             "or drop --per-class for the intervals of one ranking"),)),
    "permutations": Applies((
        Case(lambda g: g.given("permutations") and not g.given("evidence"),
             "--permutations gives the p-values of --evidence: add --evidence"),
        Case(lambda g: g.given("permutations") and g.given("per_class"),
             "--per-class --evidence shows each method's own p-values; --permutations gives "
             "them for one ranking: drop --per-class (rank by --class C), or drop "
             "--permutations"),)),
    "seed": Applies((
        Case(lambda g: g.has("permutations") and g.given("seed")
             and not g.given("permutations") and not g.given("bootstrap"),
             "--seed seeds the permutations of --evidence --permutations N (or its "
             "--bootstrap N), and none are asked: add --evidence --permutations N, or drop "
             "--seed"),)),
    "yates": Applies((
        Case(lambda g: g.given("yates") and g.method == "all",
             "--yates is Yates' continuity correction of chi2, and --method all prints every "
             "method's score: choose --method chi2, or drop --yates"),
        Case(lambda g: g.given("yates") and "yates" not in ((g.method_entry() or {}).get(
            "params") or {}) and g.method_entry() is not None,
             lambda g: f"--yates is Yates' continuity correction of chi2's 2 x 2 tables, and "
             f"{g.method} has none: rank by --method chi2 --yates, or drop --yates (fisher is "
             "an exact test: it needs no correction)"),
        Case(lambda g: g.given("yates") and g.given("permutations"),
             "--yates corrects chi2's own p-values, which --permutations replaces with "
             "p-values from permutations: drop one of them"),)),
    "min_range": Applies((
        Case(lambda g: g.given("min_range") and not g.given("evidence"),
             "--min-range keeps the terms of --evidence found in enough of their class's "
             "documents: add --evidence"),
        Case(lambda g: g.given("min_range") and g.given("per_class"),
             "--min-range filters the terms of one ranking's --evidence: drop --per-class "
             "(rank by --class C), or drop --min-range"),)),
    "bootstrap": Applies((
        Case(lambda g: g.given("bootstrap") and not g.given("evidence"),
             "--bootstrap adds the bootstrap test of the documents to --evidence: add "
             "--evidence"),
        Case(lambda g: g.given("bootstrap") and g.given("per_class"),
             "--bootstrap tests the documents of one ranking's terms: drop --per-class "
             "(rank by --class C), or drop --bootstrap"),)),
    "reference": Applies((
        Case(lambda g: g.given("reference") and g.given("reference_corpus"),
             "give one reference: --reference (a class) or --reference-corpus (a corpus)"),
        Case(lambda g: g.given("reference") and not g.given("class_label"),
             lambda g: f"--reference {g.value('reference')} compares a class with it: give "
             "the target class with --class"),)),
}


def check(ctx) -> None:
    """Refuse the first option given where it does not apply (:data:`APPLIES`), as a
    :class:`~textsift.errors.TextsiftError` (one ``error:`` line)."""
    from ..errors import TextsiftError

    given = Given(ctx)
    for name, applies in APPLIES.items():
        if not given.has(name):
            continue
        for case in applies.cases:
            if case.when(given):
                raise TextsiftError(case.says if isinstance(case.says, str)
                                    else case.says(given))
