"""The directory layouts of two public corpora, read record by record: aclImdb (Maas et al.
2011) and 20news-bydate (the scikit-learn / Jason Rennie layout). :mod:`textsift.reading.sources`
reads them as it reads a data file, in every engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import CorpusError

__all__ = ["is_aclimdb", "iter_20news", "iter_aclimdb", "tree_files"]


def is_aclimdb(root: Path) -> bool:
    """Whether ``root`` is an aclImdb tree (``{train,test}/{pos,neg}/``)."""
    return any((root / s / lab).is_dir() for s in ("train", "test") for lab in ("pos", "neg"))


def _text_file(path: Path, encoding: str) -> str:
    try:
        return path.read_bytes().decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path}: undecodable bytes at byte {exc.start} (not {encoding}); "
                          "re-encode the file") from None


def _aclimdb_files(root: Path, split: str | None) -> Iterator[tuple[str, str, Path]]:
    """``(split, label, file)`` of the reviews of an aclImdb tree, in reading order."""
    for sp in [split] if split else ["train", "test"]:
        for label in ("neg", "pos"):
            folder = root / sp / label
            if folder.is_dir():
                for f in sorted(folder.glob("*.txt")):
                    yield sp, label, f


def iter_aclimdb(root, split: str | None = None) -> Iterator[dict]:
    """Records of the aclImdb layout ``ROOT/{train,test}/{pos,neg}/<id>_<rating>.txt`` (Maas
    et al. 2011): ``id``, ``text`` (``<br />`` turned into newlines), ``label`` (pos/neg),
    ``rating`` (1-10, from the file name) and ``split``."""
    root = Path(root)
    found = False
    for sp, label, f in _aclimdb_files(root, split):
        _, _, rating = f.stem.partition("_")
        found = True
        yield {"id": f"{label}/{f.stem}",
               "text": _text_file(f, "utf-8").replace("<br />", "\n"), "label": label,
               "rating": int(rating) if rating.isdigit() else None, "split": sp}
    if not found:
        where = f"{split}/{{pos,neg}}" if split else "{train,test}/{pos,neg}"
        raise CorpusError(f"{root}: no aclImdb reviews found under {where}/*.txt"
                          + ("; the aclImdb splits are 'train' and 'test'" if split else ""))


def _20news_files(root: Path, split: str | None) -> Iterator[tuple[str, str, Path]]:
    """``(split, group, file)`` of the messages of a 20news-bydate tree, in reading order."""
    parts = {s: root / f"20news-bydate-{s}" for s in ("train", "test")}
    if any(p.is_dir() for p in parts.values()):
        trees = [(s, p) for s, p in parts.items() if p.is_dir() and split in (None, s)]
    else:
        trees = [(split or "", root)]
    for sp, tree in trees:
        for group in sorted(d for d in tree.iterdir() if d.is_dir()):
            for f in sorted(group.iterdir(), key=lambda p: (len(p.name), p.name)):
                if f.is_file():
                    yield sp, group.name, f


def iter_20news(root, split: str | None = None) -> Iterator[dict]:
    """Records of the 20news-bydate layout, ``ROOT/20news-bydate-{train,test}/<group>/<id>``
    or a single ``ROOT/<group>/<id>`` tree: ``id``, ``text`` (decoded as Latin-1, as
    scikit-learn does), ``label`` (the group) and ``split``."""
    root = Path(root)
    found = False
    for sp, group, f in _20news_files(root, split):
        found = True
        yield {"id": f"{group}/{f.name}", "text": _text_file(f, "latin-1"), "label": group,
               "split": sp}
    if not found:
        raise CorpusError(f"{root}: no newsgroup messages found (expected <group>/<id> files"
                          + (f" in 20news-bydate-{split}" if split else "") + ")")


def tree_files(root) -> list[Path]:
    """The files an aclImdb or 20news-bydate tree is read from (every split), in reading
    order: what a run's record of its corpus hashes."""
    root = Path(root)
    walk = _aclimdb_files if is_aclimdb(root) else _20news_files
    return [f for *_, f in walk(root, None)]
