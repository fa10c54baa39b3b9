"""What the labels of a corpus are -- their *kind*, the *task* of an experiment -- as a type that
knows its rules, and the one decision of a corpus's kind.

A kind is a member of :class:`LabelKind` and a line of :data:`_RULES`: what a label is, what
the kind is declared as, which scoring methods serve it (the methods declare what they read,
:attr:`Method.kind <textsift.scores.Method>`, and what they require of a labelling, from
:data:`REQUIREMENTS`), how its folds are split, which selection scopes and binary tasks it
offers, how the report speaks of it and how its labels look (:meth:`LabelKind.example`).
Learners and measures declare the kinds they serve (``label_kinds``: members of
:class:`LabelKind`); :meth:`LabelKind.serves` reads either declaration. A new kind is a new
member and its line of rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..errors import TextsiftError

#: What a scoring method may require of the labelling (``Method.requires``). Each needs one
#: label per document: ordered ranks, any single-label classes, or exactly two classes.
REQUIREMENTS = ("ranks", "single_label", "two_classes")


class LabelKind(StrEnum):
    """The kind of a labelling: ``nominal`` (one class per document), ``ordinal`` (one rank of
    an ordered integer scale per document, such as 1-5 stars) or ``multilabel`` (a set of
    labels per document, possibly empty). A member is its name as a string (``[corpus] label_kind``,
    ``experiment.json``), and its rules are its properties (module docstring)."""

    NOMINAL = "nominal"
    ORDINAL = "ordinal"
    MULTILABEL = "multilabel"

    @property
    def label_sets(self) -> bool:
        """Whether a document has a set of labels (a row of a 0/1 indicator matrix: its folds'
        parts carry indicators, a learner is fitted once per label, each label has its own
        row of results, ``labels.csv``), rather than one label."""
        return _RULES[self].label_sets

    @property
    def ranks(self) -> bool:
        """Whether the labels are ordered integer ranks of a scale (the ordinal methods'
        ``"ranks"``; the learners get the scale, Triv says the middle rank)."""
        return _RULES[self].ranks

    @property
    def declared(self) -> LabelKind:
        """The kind a file declares to get this one (``[corpus] label_kind``): itself, or the kind
        the labels then decide between (a nominal file over label lists is multilabel):
        the two spellings are one experiment."""
        return _RULES[self].declared

    @property
    def stratified(self) -> bool:
        """Whether its folds and test part may be stratified by label (scikit-learn has no
        multi-label stratification)."""
        return not self.label_sets

    @property
    def scopes(self) -> tuple[str, ...]:
        """The selection scopes it offers (``[selection] scope``): ``global``, one ranking
        under a policy for every learner; for label sets ``local`` too, each label's own
        column of the scores."""
        return _RULES[self].scopes

    @property
    def one_vs_rest(self) -> bool:
        """Whether each class may be a binary task against the rest (``[evaluation] tasks =
        "one_vs_rest"``)."""
        return _RULES[self].one_vs_rest

    @property
    def unit(self) -> str:
        """What one label is called: ``class``, ``rank`` or ``label``."""
        return _RULES[self].unit

    @property
    def each_document(self) -> str:
        """What each document has, in words (for messages)."""
        return _RULES[self].each_document

    @property
    def trivial(self) -> str:
        """What the trivial predictor (Triv) always says, in words."""
        return _RULES[self].trivial

    def example(self, rng, n_docs: int) -> list:
        """``n_docs`` valid labels of this kind drawn with ``rng`` (a
        ``numpy.random.Generator``), as a corpus file gives them (JSON values: a class, a
        rank, a list of labels): small example corpora of every kind are made from it (the
        conformance tests' corpora), so a new kind's rules include how its labels look."""
        return _RULES[self].example(rng, n_docs)

    def meets(self, requires) -> bool:
        """Whether labels of this kind meet a method's ``requires`` (from
        :data:`REQUIREMENTS`): every requirement needs one label per document, ``"ranks"``
        ranks too."""
        requires = requirements(requires)
        return not (self.label_sets and requires) and ("ranks" not in requires or self.ranks)

    @property
    def scored_by(self) -> tuple[LabelKind, ...]:
        """The kinds of scoring method (``Method.kind``: what its scores read) that may score
        it, as far as their requirements let them (:meth:`serves`): methods of classes score
        ranks too, as classes."""
        return _RULES[self].method_kinds

    def serves(self, entry) -> bool:
        """Whether a registered learner or measure (``entry.label_kinds``: the kinds it declares)
        or scoring method (``entry.kind``, what its scores read, and ``entry.requires``)
        serves labels of this kind."""
        if hasattr(entry, "label_kinds"):
            return self in entry.label_kinds
        return entry.kind in self.scored_by and self.meets(entry.requires)

    @classmethod
    def possible(cls, declared) -> tuple[LabelKind, ...]:
        """The kinds labels declared ``declared`` may turn out to be once they are read."""
        declared = cls(declared)
        return tuple(k for k in cls if k.declared is declared or k is declared)

    @classmethod
    def of(cls, label_sets: bool, ranks: bool = False) -> LabelKind:
        """The kind of labels read: label sets are ``multilabel``; one label per document is
        ``ordinal`` where its classes are ranks (``ranks``), else ``nominal`` -- the one rule
        by which counted labels get their kind (the methods that serve them: ``compute_many``,
        the explore page)."""
        if label_sets:
            return cls.MULTILABEL
        return cls.ORDINAL if ranks else cls.NOMINAL

    @classmethod
    def method_kinds(cls) -> tuple[LabelKind, ...]:
        """What a scoring method may read (its ``kind``): the kinds some labels are served
        by."""
        return tuple(dict.fromkeys(k for rules in _RULES.values() for k in rules.method_kinds))


@dataclass(frozen=True)
class _Rules:
    label_sets: bool
    ranks: bool
    declared: LabelKind
    method_kinds: tuple[LabelKind, ...]  # the kinds of scoring method that serve it
    scopes: tuple[str, ...]
    one_vs_rest: bool
    unit: str
    each_document: str
    trivial: str
    example: Callable[[Any, int], list]  # (rng, n_docs) -> labels (LabelKind.example)


def _classes(rng, n_docs: int) -> list:
    """One of four classes per document (Reuters-21578's largest topics)."""
    return rng.choice(["earn", "acq", "grain", "crude"], n_docs).tolist()


def _ratings(rng, n_docs: int) -> list:
    """One rating of 1-5 stars per document."""
    return rng.integers(1, 6, n_docs).tolist()


def _label_sets(rng, n_docs: int) -> list:
    """A set of 0-3 of six emotions per document (some empty, some of several labels)."""
    names = ("joy", "love", "anger", "fear", "grief", "pride")
    return [sorted(names[i] for i in rng.choice(6, rng.integers(0, 4), replace=False))
            for _ in range(n_docs)]


NOMINAL, ORDINAL, MULTILABEL = LabelKind.NOMINAL, LabelKind.ORDINAL, LabelKind.MULTILABEL

#: The rules of each kind (:class:`LabelKind`'s properties read them).
_RULES = {
    NOMINAL: _Rules(label_sets=False, ranks=False, declared=NOMINAL, method_kinds=(NOMINAL,),
                    scopes=("global",), one_vs_rest=True, unit="class",
                    each_document="one class per document",
                    trivial="the most frequent training class", example=_classes),
    ORDINAL: _Rules(label_sets=False, ranks=True, declared=ORDINAL,
                    method_kinds=(NOMINAL, ORDINAL), scopes=("global",), one_vs_rest=False,
                    unit="rank", each_document="one rating per document",
                    trivial="the middle rank", example=_ratings),
    MULTILABEL: _Rules(label_sets=True, ranks=False, declared=NOMINAL, method_kinds=(NOMINAL,),
                       scopes=("global", "local"), one_vs_rest=False, unit="label",
                       each_document="a list of labels per document",
                       trivial="the most frequent training label set",
                       example=_label_sets),
}


def requirements(requires) -> tuple[str, ...]:
    """``requires`` (one requirement or several) as a tuple, each checked to be one of
    :data:`REQUIREMENTS`."""
    requires = (requires,) if isinstance(requires, str) else tuple(requires or ())
    unknown = set(requires) - set(REQUIREMENTS)
    if unknown:
        raise TextsiftError(f"unknown requirement(s) {sorted(unknown)}; a method may require "
                            f"{', '.join(REQUIREMENTS)}")
    return requires


def decide_kind(declared, label_lists: bool, field: str, what: str = "[corpus] label_kind"
                ) -> LabelKind:
    """The kind of a corpus's labels: the one of the kinds ``declared`` may turn out to be
    (:meth:`LabelKind.possible <textsift.labels.LabelKind.possible>`) that the labels read
    fit -- label lists (``label_lists``, in the label field ``field``) or one label per
    record. A declaration the labels do not
    fit is an error naming ``what`` declared it, the field and the fix."""
    declared = LabelKind(declared)
    for kind in LabelKind.possible(declared):
        if kind.label_sets == label_lists:
            return kind
    fits = [k for k in LabelKind if k.label_sets == label_lists]
    named = " or ".join(repr(str(k)) for k in dict.fromkeys([*fits, *(k.declared for k in fits)]))
    if label_lists:
        raise TextsiftError(f"{what} = {str(declared)!r} reads {declared.each_document}, but "
                            f"the label field {field!r} holds lists (a multi-label corpus); "
                            f"set label_kind = {named}, or choose another label field")
    raise TextsiftError(
        f"{what} = {str(declared)!r}, but the label field {field!r} holds one label per "
        "record, not a list; write each record's labels as a list (or a CSV field with "
        f"[corpus] label_sep), or set label_kind = {named}")
