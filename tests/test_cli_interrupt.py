"""Ctrl-C during a count, as a terminal sends it (SIGINT to every process of the foreground
group, the Dask workers included): one line, ``interrupted``, on stderr, exit code 130, the
same rule for every engine; nothing left running."""

import gzip
import json
import os
import random
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
