"""What checking the corpus costs a run: the SHA-256 of every input file (the record a run
directory keeps of its data, :class:`textsift.experiment.validity.DataKey`) against reading the
same corpus (:func:`textsift.reading.corpus.read_corpus`, the anchor, in the same run), and against
the cheaper check a run could make instead (size and 16 blocks of 64 KiB).

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/corpus_digest.py

Measured on the largest shared corpus (IMDb, train and test: 26 MB of gzipped JSON Lines) and
on a tree of small files (the first 5,000 posts of 20 Newsgroups written as a 20news-bydate
tree). The full hash was chosen: on IMDb it is under 2% of reading the corpus (which a run
that is not resumed does anyway, then tokenises it), and the sampled check would save about
50 ms. On a tree of small files the hash takes about as long as reading the records, since
opening each file is most of both; a sample of blocks would not save the opening.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from pathlib import Path

from _common import add_data_option, best_of  # bench/ is the script's path

from textsift.experiment import parse_config
from textsift.experiment.validity import DataKey
from textsift.reading.corpus import read_corpus


def sampled(paths, blocks: int = 16, block: int = 1 << 16) -> list[str]:
    """Size and ``blocks`` evenly spaced blocks of each file: the cheaper alternative."""
    out = []
    for p in paths:
        size = os.path.getsize(p)
        h = hashlib.sha256(str(size).encode())
        with open(p, "rb") as fh:
            for i in range(blocks):
                fh.seek(max(0, size - block) * i // max(1, blocks - 1))
                h.update(fh.read(block))
        out.append(h.hexdigest())
    return out


def experiment(paths, label: str = "label"):
    return parse_config({"corpus": {"path": [str(p) for p in paths], "label_field": label},
                         "selection": {"methods": ["chi2"], "sizes": [10]},
                         "learners": [{"name": "nb"}]}, src="bench/corpus_digest.py")


def news_tree(root: Path, source: Path, n: int) -> Path:
    frame = read_corpus(str(source), "text", "label").frame.head(n)
    for i, (text, label) in enumerate(zip(frame["text"], frame["label"], strict=True)):
        folder = root / str(label)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / str(i)).write_text(text, encoding="latin-1", errors="replace")
    return root


def report(name: str, paths, n_bytes: int, exp) -> None:
    digest = best_of(lambda: DataKey.of(exp))
    quick = best_of(lambda: sampled([p for p in paths if p.is_file()])) if all(
        p.is_file() for p in paths) else float("nan")
    label = exp.corpus.label_field
    read = best_of(lambda: read_corpus([str(p) for p in paths], "text", label), repeat=1)
    print(f"{name:<28} {n_bytes / 1e6:8.1f} MB  sha256 {digest * 1e3:7.1f} ms  "
          f"sampled {quick * 1e3:6.1f} ms  read {read:6.2f} s  sha256/read {digest / read:6.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--tree-files", type=int, default=5000)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    imdb = [args.data / "imdb" / f"{s}.jsonl.gz" for s in ("train", "test")]
    report("imdb train+test", imdb, sum(p.stat().st_size for p in imdb),
           experiment(imdb, "rating"))
    with tempfile.TemporaryDirectory() as tmp:
        tree = news_tree(Path(tmp) / "news", args.data / "20newsgroups" / "train.jsonl.gz",
                         args.tree_files)
        size = sum(f.stat().st_size for f in tree.rglob("*") if f.is_file())
        report(f"20news tree, {args.tree_files:,} files", [tree], size, experiment([tree]))
    print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
