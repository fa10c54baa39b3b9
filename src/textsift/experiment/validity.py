"""Which results in a run directory are still valid: the key of the data an experiment's folds
are built from, the key of each trial, and the decision, as a run starts, of which finished
trials it keeps.

Two keys (``CONTRIBUTING.md``, "What a finished trial is valid for"):

* the **data key** (:class:`DataKey`) of an experiment: the bytes of every corpus file it reads
  (a SHA-256 of each file; of every file of an aclImdb or 20news tree), how they are read
  ([corpus] fields, task, ranks, split), the preprocessing, the protocol, the folds, the test
  part, the seed, and :data:`RESULTS_VERSION`. The fold cache is a function of it. Not the
  paths, nor the dataset's name: a corpus moved elsewhere is the same data;
* the **trial key** (:func:`trial_key`): the data key and the trial's own parameters
  (:func:`trial_spec`: its kind, fold, task, method, policy, parameters, level, learner,
  measures, seed, tuning). A finished trial is a pure function of it, so it is valid under any
  experiment that plans a trial of the same name and key.

A run in a directory that holds results (:func:`claim`, before anything is written) is refused
when they were written by another version of the code's results (:data:`RESULTS_VERSION`; a
directory of an earlier textsift, which did not record its data, among them), and when the
data key differs -- the message says what changed (a file's size and hash, a
preprocessing key) and how to start afresh -- and, without ``resume``, whenever trials are
finished. With ``resume`` and the same data, the experiment may have grown: every finished
trial must be a trial of the new plan with the same key (:func:`reusable`); the new trials are
computed and the others kept. A finished trial the new experiment does not have (a method
dropped), or one whose key changed (another measure, a learner's parameter), is refused with
the reason: resuming never mixes results of two experiments in one table.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from .._io import differences
from ..errors import CorpusError
from ..reading.corpus import TABLE, sample_path
from ..reading.sources import data_files
from ..reading.trees import tree_files
from .specs import Experiment, Trial
from .store import FORMER_TRIALS, Store, StoreError

__all__ = ["RESULTS_DIGESTS", "RESULTS_VERSION", "Claim", "DataKey", "trial_key", "trial_spec",
           "claim", "reusable"]

#: The version of the code's results: raise it when a change of textsift changes the numbers
#: of an unchanged experiment on unchanged data (a tokeniser, a score or a learner fixed), or
#: what a run directory holds, so that directories computed before are not resumed into a
#: table that mixes the two (they are refused: :func:`claim`). 2: trials keyed by their label
#: kind, scope and ranking column, the fingerprint of every key. 3: exact sums under ``sum``
#: and ``wavg`` (terms of equal scores in the order of the vocabulary, not of float rounding).
#: 4: every key in the fingerprint and every field in the trial key (an experiment without
#: alphas kept its fingerprint by leaving out their keys, a trial its key by leaving out its
#: fields at their defaults); SCut's fallback is "never" where the learner of the fit part
#: was a constant "no" (a label with no positive document there, in the local scope), whose
#: top score of ``-inf`` gave the label to every test document; ``threshold = "scut"`` tunes
#: on 3 inner folds. 5: a run's units of work are *trials* (they were *cells*, a name the
#: per-label tables keep): their files are in ``trials/`` (no longer ``cells/``), ``run.json``
#: counts ``trials`` and ``trials_run``, ``timings.csv``'s column is ``trial``, and a trial's
#: key hashes its spec under ``"trial"``; the numbers are version 4's (the same digest).
RESULTS_VERSION = 5
#: The digest of the results of the two small experiments ``tests/test_results_pin.py`` runs,
#: for each :data:`RESULTS_VERSION`: a change of their numbers without a new version fails
#: that test (the change then raises the version and records the new digest here).
RESULTS_DIGESTS = {1: "0058ab722c8fb3ca", 2: "0058ab722c8fb3ca", 3: "724f5a040bec5a27",
                   4: "724f5a040bec5a27", 5: "724f5a040bec5a27"}

#: [corpus] keys that do not change what is read: where the files are (their bytes are hashed
#: instead) and the name the results carry (the table takes it from the experiment).
_NOT_DATA = ("paths", "test_path", "dataset")


def _plain(obj):
    """``obj`` as the JSON it is stored as (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(obj, sort_keys=True, default=str))


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _sha256(path: Path) -> tuple[bytes, int]:
    """The SHA-256 of a file's bytes and its size, read in blocks of 1 MiB (a small file in
    one read: for the files of a tree, opening them costs more than hashing them)."""
    h, size = hashlib.sha256(), 0
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                h.update(block)
                size += len(block)
                if len(block) < 1 << 20:
                    break
    except OSError as exc:
        raise CorpusError(f"{path}: cannot be read ({exc.strerror or exc}); check the path and "
                          "its permissions") from None
    return h.digest(), size


def _digest(path: Path, files: list[Path]) -> dict:
    """Size and SHA-256 of a file (of its bytes, as ``sha256sum`` prints it), or of a tree's
    files (of each file's name and hash, in reading order)."""
    if path.is_file():
        digest, size = _sha256(path)
        return {"path": str(path), "files": 1, "bytes": size, "sha256": digest.hex()}
    h, size, skip = hashlib.sha256(), 0, len(str(path)) + 1
    for f in files:
        one, n = _sha256(f)
        h.update(str(f)[skip:].encode() + b"\0" + one)
        size += n
    return {"path": str(path), "files": len(files), "bytes": size, "sha256": h.hexdigest()}


@dataclass(frozen=True)
class DataKey:
    """What an experiment's folds are built from (module docstring): ``spec``, the keys of
    the file and the code that change the folds, and ``corpus``, one entry per file (or tree)
    read -- its path, role (``"train"`` or ``"test"``: ``test_path``), number of files, bytes
    and SHA-256."""

    spec: dict
    corpus: tuple[dict, ...]

    @classmethod
    def of(cls, exp: Experiment) -> DataKey:
        """The data key of ``exp``, hashing its corpus files (about 60 ms for the 26 MB of
        IMDb's train and test files, under 2% of reading them: ``bench/corpus_digest.py``)."""
        identity = exp.identity()
        c = exp.corpus
        spec = {"corpus": {k: v for k, v in identity["corpus"].items() if k not in _NOT_DATA},
                "test_file": c.test_path is not None,
                **{k: identity[k] for k in ("preprocessing", "protocol", "folds", "stratified",
                                            "test_size", "seed")},
                "results_version": RESULTS_VERSION}
        sources = [("train", p) for p in ([sample_path(c.sample)] if c.sample else c.paths)]
        sources += [("test", c.test_path)] if c.test_path else []
        corpus = []
        if c.table is not None:
            fields = (c.text_field, c.label_field, c.split_field)
            corpus.append({"role": "train", **table_digest(c.table, fields)})
        for role, source in sources:
            for f in data_files(source):
                files = tree_files(f) if f.is_dir() else [f]
                corpus.append({"role": role, **_digest(f, files)})
        return cls(_plain(spec), tuple(corpus))

    @property
    def key(self) -> str:
        """The hash of the spec and the corpus's contents (not its paths)."""
        return _hash({"spec": self.spec, "corpus": [
            [e["role"], e["files"], e["bytes"], e["sha256"]] for e in self.corpus]})

    def record(self) -> dict:
        """What ``experiment.json`` keeps of it (``"data"``)."""
        return {"key": self.key, "spec": self.spec, "corpus": list(self.corpus)}

    def changes(self, record: dict) -> list[str]:
        """How the data of a directory (its ``record``) differs from this: a line per changed
        file or key (empty: the same data)."""
        if record.get("key") == self.key:
            return []
        out = differences(record.get("spec", {}), self.spec)
        old, new = record.get("corpus", []), list(self.corpus)
        for a, b in zip(old, new, strict=False):
            if (a["files"], a["bytes"], a["sha256"]) != (b["files"], b["bytes"], b["sha256"]):
                out.append(f"{b['path']}: {_size(a)} when the run was made, {_size(b)} now"
                           + ("; pass the table the run was made from" if "rows" in b
                              else ""))
        if len(old) != len(new):
            out.append(f"the corpus was {len(old)} file(s) when the run was made, "
                       f"{len(new)} now")
        return out or ["the corpus's files"]


def _size(entry: dict) -> str:
    if "rows" in entry:
        return (f"{entry['rows']:,} rows whose texts and labels encode to {entry['bytes']:,} "
                f"bytes (sha256 {entry['sha256'][:12]})")
    files = f"{entry['files']:,} files, " if entry["files"] > 1 else ""
    return f"{files}{entry['bytes']:,} bytes (sha256 {entry['sha256'][:12]})"


def table_digest(table, fields) -> dict:
    """The entry of a table in memory in the data key: ``path`` (``the DataFrame``), its
    ``rows``, and the size and SHA-256 of its content's canonical encoding -- for each of
    ``fields`` the table has (the text, label and split fields), in that order, its name and
    its values in row order as one JSON array (UTF-8, numpy scalars and arrays as the Python
    numbers and lists they hold). So the same texts and labels in a pandas or Polars
    DataFrame or a Dataset have one digest, and a changed text, label or row order another;
    the other columns, the index and the dtypes are not hashed."""
    h, size = hashlib.sha256(), 0
    for name in dict.fromkeys(fields):
        if name not in table_columns(table):
            continue
        column = table[name]
        values = (column.to_list() if hasattr(column, "to_list") else
                  column.tolist() if hasattr(column, "tolist") else list(column))
        blob = json.dumps([name, values], ensure_ascii=False, default=_json_value).encode()
        h.update(blob + b"\n")
        size += len(blob) + 1
    return {"path": TABLE, "files": 1, "rows": len(table), "bytes": size,
            "sha256": h.hexdigest()}


def table_columns(table) -> list[str]:
    """The names of a table's columns (a Dataset's ``column_names``)."""
    names = getattr(table, "column_names", None)
    return list(table.columns if names is None else names)


def _json_value(value):
    """A numpy scalar or array (a list label of a pandas column) as the Python value it
    holds, a missing value (``pd.NA``, ``NaT``) as null, anything else as its text (the
    reading refuses it with the fix)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return None if value is None or str(value) in ("<NA>", "NaT") else str(value)


#: Fields of a trial that are not part of what it computed: its file name, where its fold's
#: cache is (the data key stands for its content), the largest level (a ranking computed
#: further has the same prefix), and the names its rows are written under -- the dataset's,
#: and an ``all`` or ``triv`` trial's rows, which are one measurement under several names --,
#: which the table takes from the experiment as it is now (:meth:`~.store.Store.read_trials`).
_NOT_COMPUTED = ("name", "fold_ref", "max_level", "rows", "learner_names", "dataset")


def trial_spec(trial: Trial) -> dict:
    """What a trial's result depends on besides its data (module docstring), as plain data:
    every field of :class:`~.specs.Trial` but those of ``_NOT_COMPUTED``."""
    return _plain({k: v for k, v in dataclasses.asdict(trial).items()
                   if k not in _NOT_COMPUTED})


def trial_key(trial: Trial, data_key: str) -> str:
    """The key of a trial's result: its data key and :func:`trial_spec`."""
    return _hash({"data": data_key, "trial": trial_spec(trial)})


# --------------------------------------------------------------------------- the decision
@dataclass(frozen=True)
class Claim:
    """What a run may keep of its directory: ``fresh`` (nothing: the directory is empty, or
    another experiment's that finished no trial, taken over), or the fold cache and the
    finished trials of the same data -- ``changes`` says how the experiment differs from the
    one it was made for."""

    fresh: bool
    changes: tuple[str, ...] = ()


def _afresh(root: Path) -> str:
    return f"start afresh: choose a new --out, or delete {root}"


def claim(store: Store, exp: Experiment, data: DataKey, resume: bool) -> Claim:
    """Whether (and how) the run of ``exp`` may use ``store``, found without writing anything
    (module docstring). Results of another version of the code's results, of another
    experiment or of other data, this experiment's without ``resume``, other files, or a
    file in its place are errors."""
    root = store.root
    old = store.read_manifest()
    if old is None:
        if store.entries():
            raise StoreError(f"{root} is not empty and holds no experiment; choose a new or "
                             "empty --out directory")
        return Claim(fresh=True)
    former = store.former_trials()
    done = len(store.finished()) or former
    record = old.get("data") or {}
    version = record.get("spec", {}).get("results_version")
    if version != RESULTS_VERSION or former:
        if not done:
            return Claim(fresh=True)  # nothing finished: taken over
        written = (f"results version {version}" if version else
                   "which did not record its corpus")
        if former:
            written += f", its trials in {FORMER_TRIALS}/"
        raise StoreError(f"{root} holds {done} finished trials of an earlier textsift "
                         f"({written}; this one writes results version {RESULTS_VERSION}), "
                         f"which this version does not resume; {_afresh(root)}")
    name = old.get("config", {}).get("name")
    changed = data.changes(record)
    if changed:
        if not done:
            return Claim(fresh=True)  # nothing finished from the other data: taken over
        raise StoreError(f"{root} holds {done} finished trials of another experiment "
                         f"({name!r}) whose data or folds differ from this one's "
                         f"({'; '.join(changed)}); its trials and fold cache cannot be reused: "
                         f"{_afresh(root)}")
    config = _config_changes(old, exp)
    if done and not resume:
        if old.get("fingerprint") == exp.fingerprint:
            raise StoreError(f"{root} already holds {done} finished trials of this experiment; "
                             "pass --resume to continue it, or choose a new --out directory")
        raise StoreError(f"{root} holds {done} finished trials of the experiment {name!r} on "
                         f"the same data ({'; '.join(config)}); pass --resume to keep those "
                         "that are still valid and compute only the new ones, or choose a new "
                         "--out directory")
    return Claim(fresh=False, changes=tuple(config))


def _config_changes(old: dict, exp: Experiment) -> list[str]:
    new = _plain(exp.as_dict())
    was = dict(old.get("config", {}))
    for d in (was, new):
        d.pop("n_jobs", None)
    return differences(was, new)


def reusable(store: Store, claimed: Claim, trials: list[Trial], data: DataKey) -> set[str]:
    """The names of the finished trials of ``trials`` that the run keeps: every finished trial
    in the directory, each checked to be one of ``trials`` with the same key. A finished trial
    that is not (the experiment dropped it, or changed what it computes) is an error naming
    it, what differs and the fix."""
    if claimed.fresh:
        return set()
    planned = {c.name: c for c in trials}
    records = store.trial_records()
    grown = f" (the experiment changed: {'; '.join(claimed.changes)})" if claimed.changes \
        else ""
    for name, record in sorted(records.items()):
        trial = planned.get(name)
        if trial is None:
            raise StoreError(
                f"{store.root}: the finished trial {name} ({_describe(record['spec'])}) is not "
                f"a trial of this experiment{grown}; --resume only adds trials (methods, sizes, "
                "ratios, policies, learners): keep what the experiment had, or "
                f"{_afresh(store.root)}")
        if record["key"] != trial_key(trial, data.key):
            diff = differences(record["spec"], trial_spec(trial))
            what = "; ".join(diff) if diff else "it was computed by another version of the code"
            raise StoreError(
                f"{store.root}: the finished trial {name} is not valid under this "
                f"experiment ({what}){grown}; --resume keeps only trials whose corpus, "
                "preprocessing, protocol, seed, measures and parameters are unchanged: "
                f"undo the change, or {_afresh(store.root)}")
    return set(records)


def _describe(spec: dict) -> str:
    learner = (spec.get("learner") or {}).get("label")
    level = spec.get("level")
    parts = [f"{spec.get('kind')} trial", f"fold {spec.get('fold')}",
             spec.get("method") and f"method {spec['method']}",
             spec.get("aggregate") and f"policy {spec['aggregate']}",
             level and f"level {level[1] if level[0] != 'all' else 'all'}",
             learner and f"learner {learner}",
             spec.get("positive") is not None and f"task {spec['positive']}"]
    return ", ".join(p for p in parts if p)
