"""Ctrl-C during a count, as a terminal sends it (SIGINT to every process of the foreground
group, the Dask workers included): one line, ``interrupted``, on stderr, exit code 130, the
same rule for every engine; nothing left running."""

import contextlib
import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _procs import GROUP, live

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="watches the processes' open files in /proc")

CLI = [sys.executable, "-c", "from textsift.cli import main; main()"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """8 gzip JSONL files of 20,000 short reviews each: a few seconds of counting, each file
    open for a good part of a second (long enough to be seen open)."""
    root = tmp_path_factory.mktemp("interrupt")
    rng = random.Random(0)
    words = [f"w{i}" for i in range(2000)]
    lines = "".join(json.dumps({"text": " ".join(rng.choices(words, k=30)), "label": "ab"[i % 2]})
                    + "\n" for i in range(20_000))
    blob = gzip.compress(lines.encode(), compresslevel=1)
    for i in range(8):
        (root / f"part{i}.jsonl.gz").write_bytes(blob)
    return root


def _group(pgid: int) -> list[int]:
    """The live processes of the process group ``pgid``."""
    return live(GROUP, pgid)


def _reading(pgid: int, folder: Path) -> bool:
    """Whether a process of the group has a file of ``folder`` open (the count is under way:
    for the Dask engine, a worker runs a task, so the cluster is up)."""
    for pid in _group(pgid):
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd).startswith(str(folder)):
                    return True
            except OSError:
                continue
    return False


def _ctrl_c_when(argv, ready, what: str) -> None:
    """Start the command ``argv`` in its own process group, send SIGINT to the group (what
    Ctrl-C in a terminal does) once ``ready(pgid)``, and check the one rule: one line,
    ``interrupted``, exit code 130, nothing on stdout, no process of the group left."""
    proc = subprocess.Popen([*CLI, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # its own group, as a terminal job
    try:
        deadline = time.monotonic() + 180
        while not ready(proc.pid):
            assert proc.poll() is None, f"ended before {what}: {proc.communicate()}"
            assert time.monotonic() < deadline, f"never {what}"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err.splitlines(), out) == (130, ["interrupted"], "")
    deadline = time.monotonic() + 30
    while _group(proc.pid):  # the Dask workers end with the command
        assert time.monotonic() < deadline, f"left running: {_group(proc.pid)}"
        time.sleep(0.1)


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_ctrl_c_is_one_line_and_exit_code_130(engine, corpus):
    if engine == "dask":
        pytest.importorskip("distributed")
    _ctrl_c_when(["score", str(corpus), "--engine", engine, "--top", "5"],
                 lambda pgid: _reading(pgid, corpus), "counting")


def test_ctrl_c_while_a_local_dask_cluster_starts_is_not_ignored(corpus):
    """The first Ctrl-C after `--engine dask` was ignored while the cluster started (SIGINT
    was ignored process-wide so that the workers would inherit that), and the run went on
    to the end, exit code 0. Now the workers alone block it: a Ctrl-C as soon as they exist
    -- the cluster still starting -- is one line and exit code 130, and nothing is left."""
    pytest.importorskip("distributed")
    _ctrl_c_when(["score", str(corpus), "--engine", "dask", "--top", "5"],
                 lambda pgid: len(_group(pgid)) >= 2, "starting a worker")


def test_a_limit_of_open_files_too_low_for_a_local_cluster_is_one_error_line(corpus):
    """`ulimit -n 40`: a local cluster of two workers needs about 48 files; it failed
    half-way in 130 lines of distributed's tracebacks ("Nanny failed to start")."""
    pytest.importorskip("distributed")
    import resource

    from textsift.engines.dask import FILES_PER_CLUSTER, FILES_PER_WORKER

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    n = os.cpu_count() or 1
    done = subprocess.run([*CLI, "score", str(corpus), "--engine", "dask"], capture_output=True,
                          text=True, timeout=300, preexec_fn=lambda: resource.setrlimit(
                              resource.RLIMIT_NOFILE, (40, hard)))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"error: too many open files for this process (40: ulimit -n): a local Dask cluster of "
        f"{n} workers needs about {FILES_PER_CLUSTER + FILES_PER_WORKER * n}; raise the limit "
        "(ulimit -n 4096), or count with the stream engine (--engine stream)"]


TOKENISING = """
import sys
from textsift.engines import count_file
from textsift.text.vectorize import VectorizerOptions

def progress(stage, done, total):
    print(stage, done, flush=True)

count_file(sys.argv[1], label_field="sentiment", engine="memory", progress=progress,
           opts=VectorizerOptions(tokenizer="korean"))
"""


@pytest.mark.real_data
def test_ctrl_c_stops_the_korean_tokenizer_within_a_batch_of_documents(real_data):
    """Kiwi took in a whole block of documents (30,000 reviews) before it answered, so a
    Ctrl-C waited for the block: 40 s before `interrupted`. It is fed 256 documents at a time
    now, and the counting threads stop between batches: after the signal, at most a batch per
    thread (and the one being reported) is tokenised -- counted in documents, not seconds."""
    pytest.importorskip("kiwipiepy")
    from textsift.text.tokenizers import KoreanTokenizer

    proc = subprocess.Popen([sys.executable, "-c", TOKENISING,
                             str(real_data / "nsmc_korean" / "all.jsonl.gz")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        lines = []
        while not lines or int(lines[-1].split()[1]) < 2_000:  # well under way
            line = proc.stdout.readline()
            assert line, f"ended first: {proc.communicate()}"
            lines.append(line)
        at_signal = int(lines[-1].split()[1])
        os.killpg(proc.pid, signal.SIGINT)
        rest, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert lines[0].split()[0] == "tokenising" and "KeyboardInterrupt" in err
    after = [int(line.split()[1]) for line in rest.splitlines()]
    threads = os.cpu_count() or 1
    assert max(after, default=at_signal) - at_signal <= (threads + 1) * KoreanTokenizer.BATCH


#: The lines a log shows of a step's progress (``_progress.LogLines``), besides the one line.
_PROGRESS_LINE = (r"[\w .-]+: (([\d,]+( of [\d,]+)?( [a-z ]+)?( \(\d+%\))?, )?\d+:\d\d:\d\d so "
                  r"far(, about \d+:\d\d:\d\d left)?|done in \d+:\d\d:\d\d)")


def _started(pid: int) -> bool:
    """Whether the console script runs its own code: it catches SIGTERM from its first line
    (``textsift.cli._signals.stop_at_once``), which Python alone does not. Before that is the
    interpreter's start-up (its ``site`` module), where Ctrl-C is Python's own affair."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = int(next(line for line in status.splitlines()
                      if line.startswith("SigCgt:")).split()[1], 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def _adabag(out: Path):
    """An AdaBag run with 2 workers in its own process group. Python's fault handler is on
    (it acts on SIGSEGV, SIGFPE, SIGABRT, SIGBUS and SIGILL, not on SIGINT), so that a run
    that does not end after Ctrl-C can be made to print every thread's stack
    (:func:`_ended`)."""
    argv = [*CLI, "adabag", "--simulate", "-B", "4", "--n-jobs", "2", "--out", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1"})


def _ended(proc, timeout: float, what: str):
    """``proc.communicate(timeout)``; a run still going then is a hang: SIGABRT makes the
    fault handler print each thread's stack, which the failure shows (one such hang was
    seen once in CI, without a stack, and not reproduced in 92 tries)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGABRT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            err = "(no stack: the process did not end on SIGABRT)"
        raise AssertionError(f"{what}: still running {timeout:g} s after Ctrl-C; "
                             f"its threads:\n{err[-6000:]}") from None


def _whole(out: Path) -> list[str]:
    """What of ``out`` is not a whole file: temporary files, a lock, a file that does not
    read (every result is written atomically, so there is none)."""
    import numpy as np
    import pandas as pd

    bad = []
    for path in out.rglob("*") if out.exists() else ():
        if path.is_dir():
            continue
        try:
            if path.suffix in (".tmp", ".lock") or path.name.endswith(".lock"):
                raise ValueError("left over")
            if path.suffix == ".npz":
                with np.load(path) as z:
                    [z[k] for k in z.files]
            elif path.suffix == ".json":
                json.loads(path.read_text())
            elif path.suffix == ".csv":
                pd.read_csv(path)
            elif path.suffix == ".png":
                assert path.read_bytes()[-8:] == b"IEND\xaeB`\x82"
        except Exception as exc:  # noqa: BLE001 (any failure is the finding)
            bad.append(f"{path.relative_to(out)}: {exc!r}")
    return bad


@pytest.mark.slow
def test_ctrl_c_at_20_moments_of_an_adabag_run_with_2_workers(tmp_path):
    """Ctrl-C (SIGINT to the whole group, workers included) at 20 moments spread evenly over
    an AdaBag run with 2 workers -- from the console script's first line to past its end,
    "written to" included -- is each time exit code 130, the one line ``interrupted`` on
    stderr (a log's progress lines aside), no traceback, no process left, and every file in
    --out whole. It was ``BrokenProcessPool`` (a worker took the signal and died: 2 of 2
    tries as the bootstraps finished), "Exception ignored ... KeyboardInterrupt" and exit
    code 0 just after "written to" (joblib joining its workers at exit), a worker's
    ``KeyboardInterrupt`` traceback as it started, or click's "Aborted!". A signal in the
    interpreter's own finalisation, after every result is out, is Python's: no handler runs
    there (exit code 0) or SIGINT's default is back (the process ends by it)."""
    import re

    proc = _adabag(tmp_path / "whole")
    while not _started(proc.pid):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.005)
    start = time.monotonic()
    out, err = proc.communicate(timeout=300)
    duration = time.monotonic() - start
    assert proc.returncode == 0, err
    found, ended = [], []
    for i in range(20):
        where = tmp_path / f"out{i}"
        delay = duration * i / 20
        for _ in range(6):  # a run faster than the first (the load fell): the moment earlier
            shutil.rmtree(where, ignore_errors=True)
            proc = _adabag(where)
            try:
                while not _started(proc.pid):
                    assert proc.poll() is None, proc.communicate()
                    time.sleep(0.005)
                time.sleep(delay)
                first = proc.poll() is not None  # ended before the signal
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGINT)
                out, err = _ended(proc, 120, f"moment {i}")
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while _group(proc.pid):  # the workers end with the command
                assert time.monotonic() < deadline, (
                    f"moment {i}: left running: {_group(proc.pid)}")
                time.sleep(0.1)
            assert _whole(where) == [], f"moment {i}"
            if not first:
                break
            ended.append((i, proc.returncode))
            delay /= 2
        lines = [line for line in err.splitlines() if not re.fullmatch(_PROGRESS_LINE, line)]
        if not first:
            found.append((i, proc.returncode, lines, "Traceback" in err, out))
    assert [(i, code) for i, code in ended if code != 0] == []
    assert len(found) == 20, f"the runs ended before the signal: {ended}"
    wrong = []
    for i, code, lines, traceback, out in found:
        written = f"written to {tmp_path / f'out{i}'}"
        # after "written to", the results may be printed (stdout) before the signal lands
        said = [written, "interrupted"] if written in lines else ["interrupted"]
        if code in (0, -signal.SIGINT) and lines == [written] and not traceback and out:
            # the signal came in the interpreter's own last moments, after textsift's code
            # ended and every result was out: Python runs no handler there (exit code 0, the
            # signal unseen) or has restored SIGINT's default (the process ends by it, which
            # a shell reports as 130); nothing is left to say or to stop
            continue
        if (code, lines, traceback) != (130, said, False) or (out and written not in lines):
            wrong.append((i, code, lines, out))
    assert wrong == []


def test_messages_are_one_line_each_in_a_log(tmp_path):
    """stderr piped (a log): a message longer than 80 columns is one line. rich wrapped them
    at 80 columns when stderr was not a terminal: "written to" and a long --out path came out
    as two lines."""
    out = tmp_path / ("a-folder-with-a-long-name-" * 4) / "adabag"
    done = subprocess.run([*CLI, "adabag", "--simulate", "-B", "2", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"written to {out}" in done.stderr.splitlines()  # one line of 150 columns
    assert len(f"written to {out}") > 120
