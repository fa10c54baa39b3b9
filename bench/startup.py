"""Start-up of the command line and of ``import textsift``, against Python's and
scikit-learn's own, measured in the same run.

    .venv/bin/python bench/startup.py [--runs 9]

Each command runs ``--runs`` times in a fresh process, the commands taking turns (so that a
change of the machine's load falls on all of them alike). Printed per command: the median
and the smallest wall time, and the peak resident memory (``ru_maxrss`` of
``resource.getrusage(RUSAGE_CHILDREN)`` in a small process that runs only that command:
:data:`RUNNER`), the largest over the runs. Beside them the
goals (at most 0.25 s and 80 MB for ``--version``, ``methods`` and ``-h``;
``textsift score`` on a 40-document file no slower than a plain scikit-learn script doing the
same: ``CountVectorizer`` + ``chi2``), the load average before and after, and the cores.

The anchors: ``python -c pass`` (the interpreter alone) and ``python -c "import
sklearn.feature_selection"`` (what any scikit-learn script pays before it starts), and
``python -c "import typer, rich.console"`` (the floor of a command line built on them). The
``textsift`` commands run the virtualenv's console script, as a user types them (with
``PYTHONPATH`` as set, so a worktree's ``src`` is what runs). Last, whether ``import
textsift`` loaded scikit-learn's estimator machinery (``sklearn.base``), ``scipy.stats`` or
pandas.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL_SECONDS, GOAL_MB = 0.25, 80

SKLEARN_SCRIPT = """
import json, sys
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import chi2
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
texts, labels = [r["text"] for r in rows], np.array([r["label"] for r in rows])
vec = CountVectorizer()
X = vec.fit_transform(texts)
scores, _ = chi2(X > 0, labels)
names = vec.get_feature_names_out()
for rank, i in enumerate(np.argsort(-scores, kind="stable")[:10], 1):
    print(rank, names[i], scores[i], sep="\\t")
"""

HEAVY = ("sklearn.base", "scipy.stats", "pandas")


def textsift_command() -> list[str]:
    """The console script beside this interpreter, or the same entry point through ``-c``."""
    script = Path(sys.executable).with_name("textsift")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from textsift.cli import main; sys.exit(main())"]


def forty_documents(folder: Path) -> Path:
    """40 messages of the bundled 20 Newsgroups sample (every 70th: 20 classes), as JSONL."""
    import textsift  # light: its names are imported when first used

    sample = Path(textsift.__file__).with_name("data") / "sample_20ng.jsonl.gz"
    lines = gzip.open(sample, "rt", encoding="utf-8").read().splitlines()
    path = folder / "forty.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for line in lines[::70][:40]:
            record = json.loads(line)
            out.write(json.dumps({"text": record["text"], "label": record["label"]}) + "\n")
    return path


#: Runs ``sys.argv[1:]`` once and prints its wall seconds, its peak RSS (KiB) and its exit
#: code. A small process of its own (``python -S``, three modules): a child's ``ru_maxrss``
#: starts from the memory of the process that spawned it (Linux carries the parent's peak
#: over the ``exec``), so the spawner must weigh less than the lightest command measured.
RUNNER = """
import os, resource, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=[
    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status = os.waitpid(pid, 0)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(wall, peak, os.waitstatus_to_exitcode(status))
"""


def run_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of ``argv`` (its output discarded)."""
    out = subprocess.run([sys.executable, "-S", "-c", RUNNER, *argv], capture_output=True,
                         text=True, check=True)
    wall, peak, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"{argv} failed (exit code {code}): {out.stderr}")
    return float(wall), int(peak) / 1024  # ru_maxrss is in KiB on Linux


def heavy_imports() -> list[str]:
    code = f"import sys, textsift; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    return [m for m in out.split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    cli, py = textsift_command(), sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        corpus = forty_documents(Path(tmp))
        script = Path(tmp) / "sklearn_chi2.py"
        script.write_text(SKLEARN_SCRIPT)
        commands = {  # name -> (argv, goal)
            "python -c pass": ([py, "-c", "pass"], None),
            "import sklearn.feature_selection": ([py, "-c", "import sklearn.feature_selection"],
                                                 None),
            "import textsift": ([py, "-c", "import textsift"], None),
            # the floor of any command line built on them: what -h and methods import first
            "import typer, rich.console": ([py, "-c", "import typer, rich.console"], None),
            "textsift --version": ([*cli, "--version"], "goal"),
            "textsift methods": ([*cli, "methods"], "goal"),
            "textsift -h": ([*cli, "-h"], "goal"),
            "textsift score -h": ([*cli, "score", "-h"], "goal"),
            "sklearn script, 40 docs": ([py, str(script), str(corpus)], None),
            "textsift score, 40 docs": ([*cli, "score", str(corpus), "--method", "chi2",
                                         "--top", "10"], "sklearn"),
        }
        load_before = os.getloadavg()
        for argv, _ in commands.values():  # warm the file cache and the .pyc files
            run_once(argv)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        peaks: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, (argv, _) in commands.items():
                wall, peak = run_once(argv)
                walls[name].append(wall)
                peaks[name].append(peak)
        load_after = os.getloadavg()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"cores: {os.cpu_count()} (usable: {cores}); load average before "
          f"{', '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{', '.join(f'{x:.2f}' for x in load_after)}; {args.runs} runs each")
    print(f"{'command':34} {'median s':>9} {'min s':>7} {'peak MB':>8}  goal")
    sklearn_median = statistics.median(walls["sklearn script, 40 docs"])
    for name, (_, goal) in commands.items():
        median, peak = statistics.median(walls[name]), max(peaks[name])
        if goal == "goal":
            met = median <= GOAL_SECONDS and peak <= GOAL_MB
            verdict = f"<= {GOAL_SECONDS} s, <= {GOAL_MB} MB: {'met' if met else 'NOT met'}"
        elif goal == "sklearn":
            ratio = median / sklearn_median
            verdict = (f"<= the sklearn script: {ratio:.2f}x its median "
                       f"({'met' if ratio <= 1 else 'NOT met'})")
        else:
            verdict = ""
        print(f"{name:34} {median:9.3f} {min(walls[name]):7.3f} {peak:8.1f}  {verdict}")
    heavy = heavy_imports()
    print("import textsift loads", ", ".join(heavy) if heavy else "none of " + ", ".join(HEAVY))


if __name__ == "__main__":
    main()
