"""Every speed and memory figure the README and the docs state, measured in one run.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/figures.py [--only NAME ...]
        [--out bench/results/figures] [--force] [--list]

Runs the bench scripts that produce the published figures one after another, each in its own
process (so that no run inherits another's memory pages or thread pools), and keeps what each
printed in ``OUT/NAME.txt`` under a header with its conditions: the commit, the time, the
cores, the BLAS threads (``threadpoolctl`` in the child), the load average (1 min) before and
after, its wall seconds and its CPU seconds (the children's ``getrusage``). ``OUT/index.md``
is the table of the run: one row per script, with the sections of the docs that cite it.

A script's output is written atomically once it has finished, so an interrupted run keeps the
scripts already done and a second call resumes with the next one; ``--force`` runs them all
again. A run is one commit: outputs of another commit are refused (the figures of two versions
must not mix), unless ``--force``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (name, arguments of bench/NAME.py -- or a whole command, from the checkout's root, where
# ``{tmp}`` is a fresh folder --, where the figures it prints are cited); in the order they
# run, the cheap ones first
SCRIPTS: list[tuple[str, list[str], str]] = [
    ("startup", ["--runs", "7"], "README: start-up table; reproductions 1"),
    ("count", [], "README: the count pass, stemming, phrases and characters, the stream; "
     "reproductions 1 and 6.1; guide counting"),
    ("scores", [], "README: scores from the counts; reproductions 1"),
    ("evidence", [], "reproductions 8; guide evidence"),
    ("keyness", [], "reproductions 8; guide keyness"),
    ("multilabel", [], "README: GoEmotions' label lists; reproductions 7"),
    ("manylabels", [], "README: thousands of labels; reproductions 9.1"),
    ("explore", [], "docs explore"),
    ("ordinal", [], "reproductions 3"),
    ("harness", [], "reproductions 2.4"),
    ("adabag", ["--full"], "README: AdaBag; reproductions 4.2"),
    ("goemotions", ["textsift", "run", "examples/goemotions.toml", "--out", "{tmp}/run"],
     "README: the GoEmotions example's time"),
]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True,
                          text=True, check=False).stdout.strip()


def _blas_threads(python: str) -> str:
    """``_common.blas_threads()`` in a child that has loaded numpy, as the scripts do (this
    driver loads no numpy of its own)."""
    code = "import numpy; from _common import blas_threads; print(blas_threads())"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False,
                         cwd=HERE)
    return out.stdout.strip() or "unknown"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _command(name: str, args: list[str], tmp: str) -> tuple[list[str], str]:
    """The argv to run and the command as the docs show it."""
    if args[:1] == ["textsift"]:
        script = Path(sys.executable).with_name("textsift")
        return ([str(script), *(a.format(tmp=tmp) for a in args[1:])],
                " ".join(args).replace("{tmp}", "TMP"))
    return ([sys.executable, str(HERE / f"{name}.py"), *args],
            "python bench/" + " ".join([f"{name}.py", *args]))


def run_one(name: str, args: list[str], out: Path, commit: str, blas: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="figures-") as tmp:
        cmd, shown = _command(name, args, tmp)
        load0, cpu0, t0 = os.getloadavg()[0], _children_cpu(), time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False,
                              cwd=HERE.parent)
        wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    row = {"name": name, "command": shown,
           "commit": commit, "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "cores": os.cpu_count(), "blas": blas, "load_before": round(load0, 1),
           "load_after": round(os.getloadavg()[0], 1), "wall_s": round(wall, 1),
           "cpu_s": round(cpu, 1), "exit": done.returncode}
    header = "\n".join(f"# {k}: {v}" for k, v in row.items())
    _write(out / f"{name}.txt", f"{header}\n\n{done.stdout}"
           + (f"\n--- stderr ---\n{done.stderr}" if done.returncode else ""))
    _write(out / f"{name}.json", json.dumps(row, indent=1) + "\n")
    return row


def index(out: Path, cited: dict[str, str]) -> str:
    rows = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    order = [n for n, _, _ in SCRIPTS]
    rows.sort(key=lambda r: order.index(r["name"]) if r["name"] in order else len(order))
    lines = ["| script | commit | at | load before / after | wall s | CPU s | exit | cited in |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| `{r['command']}` | {r['commit']} | {r['at']} | {r['load_before']} / "
                     f"{r['load_after']} | {r['wall_s']} | {r['cpu_s']} | {r['exit']} | "
                     f"{cited.get(r['name'], '')} |")
    head = (f"# Every published speed figure, one run\n\n{rows[0]['cores'] if rows else '?'} "
            f"cores; BLAS: {rows[0]['blas'] if rows else '?'}. Each script's output: "
            "`NAME.txt` beside this file.\n\n")
    return head + "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", choices=[n for n, _, _ in SCRIPTS])
    ap.add_argument("--out", type=Path, default=HERE / "results" / "figures")
    ap.add_argument("--force", action="store_true", help="run every script again")
    ap.add_argument("--list", action="store_true", help="print the scripts and stop")
    a = ap.parse_args()
    if a.list:
        for name, args, cited in SCRIPTS:
            print(f"{name:11} {' '.join(args):14} {cited}")
        return
    a.out.mkdir(parents=True, exist_ok=True)
    commit = _git("rev-parse", "--short", "HEAD") + ("+dirty" if _git("status", "--porcelain",
                                                                     "--untracked-files=no")
                                                    else "")
    kept = {p.stem: json.loads(p.read_text()) for p in a.out.glob("*.json")}
    others = sorted({r["commit"] for r in kept.values()} - {commit})
    if others and not a.force:
        sys.exit(f"error: {a.out} holds figures of commit {', '.join(others)}, this is {commit}; "
                 "figures of two versions must not mix: pass --force to measure them all again")
    blas = _blas_threads(sys.executable)
    for name, args, _ in SCRIPTS:
        if a.only and name not in a.only:
            continue
        if name in kept and not a.force and kept[name]["exit"] == 0:
            print(f"{name}: kept ({kept[name]['at']})", file=sys.stderr)
            continue
        print(f"{name}: running (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        row = run_one(name, args, a.out, commit, blas)
        print(f"{name}: {row['wall_s']} s wall, {row['cpu_s']} s CPU, exit {row['exit']}",
              file=sys.stderr, flush=True)
    _write(a.out / "index.md", index(a.out, {n: c for n, _, c in SCRIPTS}))
    print(a.out / "index.md")


if __name__ == "__main__":
    main()
