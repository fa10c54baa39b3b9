"""``textsift score``'s option groups: significance (p-values and evidence) and a reference,
each given to the command as one value (:func:`~._groups.option_group`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from .._choices import CORRECTION
from .options import Alpha, CorpusOptions, Correction, Evidence, Family, Level

__all__ = ["REFERENCE", "SIGNIFICANCE", "Reference", "Significance", "reference_options",
           "significance_options"]


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

    def evidence_settings(self, corpus: CorpusOptions) -> dict | None:
        """What ``--evidence`` shows (``None`` without it): the level of its count of passing
        terms, the correction, the family and the intervals' level (their defaults where not
        given), and the permutations' number, seed and corpus when asked."""
        if not self.evidence:
            return None
        ev = {"alpha": self.alpha or 0.05, "correction": self.correction or CORRECTION,
              "family": self.family or "class", "level": self.level or 0.95}
        if self.permutations is not None:
            ev.update(permutations=self.permutations, seed=self.seed, corpus=corpus)
        return ev


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
    "seed": (Annotated[int, typer.Option("--seed", help="Random seed (the permutations)")], 0),
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
        "--text-field and counted with the same preprocessing (its labels are not read)")],
        None),
}


def reference_options(reference: str | None, reference_corpus: Path | None) -> Reference:
    return Reference(reference, reference_corpus)
