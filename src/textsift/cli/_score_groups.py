"""``textsift score``'s option groups: significance (p-values and evidence) and a reference,
each given to the command as one value (:func:`~._groups.option_group`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from .._choices import CORRECTION, DEFAULT_ALPHA, DEFAULT_LEVEL, FAMILY
from .options import Alpha, Correction, Evidence, Family, Level

__all__ = ["REFERENCE", "SIGNIFICANCE", "EvidenceSettings", "Reference", "Significance",
           "reference_options", "significance_options"]


@dataclass(frozen=True)
class Significance:
    """``score``'s options of significance (:data:`SIGNIFICANCE`), as given."""

    evidence: bool
    alpha: float | None
    correction: str | None
    family: str | None
    level: float | None
    permutations: int | None
    seed: int
    yates: bool = False
    min_range: int | None = None
    bootstrap: int | None = None

    @property
    def params(self) -> dict:
        """The method's parameters these options set (``--yates``: chi2's ``yates=True``)."""
        return {"yates": True} if self.yates else {}

    def evidence_settings(self) -> EvidenceSettings | None:
        """What ``--evidence`` shows (``None`` without it), the defaults filled in."""
        if not self.evidence:
            return None
        return EvidenceSettings(self.alpha or DEFAULT_ALPHA, self.correction or CORRECTION,
                                self.family or FAMILY, self.level or DEFAULT_LEVEL,
                                self.permutations, self.seed, self.min_range,
                                self.bootstrap or 0)


@dataclass(frozen=True)
class EvidenceSettings:
    """What ``score --evidence`` shows: ``alpha`` the level of each class's count of passing
    terms, the ``correction`` over the ``family``, the intervals' ``level``,
    ``permutations`` (``None``: the method's own p-values) drawn from ``seed``, the terms
    in at least ``min_range`` of their class's documents, and ``bootstrap`` resamples of
    the documents (0: none) beside the Wilcoxon test."""

    alpha: float
    correction: str
    family: str
    level: float
    permutations: int | None = None
    seed: int = 0
    min_range: int | None = None
    bootstrap: int = 0


#: ``score``'s options of p-values and evidence, given to it as one :class:`Significance`
#: (:func:`~._groups.option_group`).
SIGNIFICANCE = {
    "evidence": (Evidence, False),
    "alpha": (Alpha, None),
    "correction": (Correction, None),
    "family": (Family, None),
    "level": (Level, None),
    "permutations": (Annotated[int | None, typer.Option(
        "--permutations", show_default=False, help="With --evidence: p-values from this many "
        "permutations of the labels (999 is usual), for any method")], None),
    "seed": (Annotated[int, typer.Option(
        "--seed", help="Random seed (the permutations, the bootstrap)")], 0),
    "yates": (Annotated[bool, typer.Option(
        "--yates", help="chi2 only: Yates' continuity correction of each 2 x 2 table, in the "
        "scores and p-values (as scipy's chi2_contingency applies it); without it, chi2's "
        "p-values of terms in few documents can be far too small")], False),
    "min_range": (Annotated[int | None, typer.Option(
        "--min-range", show_default=False, help="With --evidence: show only the terms found "
        "in at least this many documents of their class (the target)")], None),
    "bootstrap": (Annotated[int | None, typer.Option(
        "--bootstrap", show_default=False, help="With --evidence: Lijffijt et al.'s "
        "bootstrap test of the documents with this many resamples (999 is usual), beside "
        "the Wilcoxon rank-sum test")], None),
}


def significance_options(**values) -> Significance:
    return Significance(**{k: getattr(v, "value", v) for k, v in values.items()})


@dataclass(frozen=True)
class Reference:
    """``score``'s reference (:data:`REFERENCE`): a class (``label``) or a corpus (``corpus``)
    the target is compared with instead of the rest (:mod:`textsift.evidence.reference`)."""

    label: str | None
    corpus: Path | None

    def __bool__(self) -> bool:
        return self.label is not None or self.corpus is not None


#: ``score``'s options of a reference, given to it as one :class:`Reference`.
REFERENCE = {
    "reference": (Annotated[str | None, typer.Option(
        "--reference", show_default=False,
        help="Compare --class with this class instead of with the rest")], None),
    "reference_corpus": (Annotated[Path | None, typer.Option(
        "--reference-corpus", show_default=False,
        help="Compare the corpus (or --class) with this corpus, read with the same "
        "--text-field and counted with the same preprocessing (its labels are not read, nor "
        "the corpus's without --class)")],
        None),
}


def reference_options(reference: str | None, reference_corpus: Path | None) -> Reference:
    return Reference(reference, reference_corpus)
