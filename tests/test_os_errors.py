"""Errors of the operating system at the boundary: a read-only file system, no permission, no
space left, a file-size limit, too many open files -- one `error:` line naming the path and
the fix, exit code 2, no traceback and no "Exception ignored" -- found before any work where
they can be (the output is probed when its lock is taken), and nothing half-written: the run
continues with --resume to the table of an uninterrupted run."""

from __future__ import annotations

import ctypes
import errno
import gc
import io
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import textsift._io as textsift_io
from textsift._io import atomic_write_text, os_error, write_npz
from textsift.cli import app
from textsift.errors import OutputError
from textsift.experiment import parse_config, run_experiment
from textsift.reading.corpus import sample_path

TOML = """
[experiment]
name = "small"
n_jobs = 1
[corpus]
sample = "20ng"
[preprocessing]
stop_words = "english"
min_df = 2
[selection]
methods = ["chi2", "ig"]
sizes = [50, 200]
[[learners]]
name = "nb"
"""
ROOT = os.geteuid() == 0


def _cli(*args) -> list[str]:
    return [sys.executable, "-c", "from textsift.cli import main; main()", *map(str, args)]


@pytest.fixture
def toml(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(TOML)
    return path


def _mount(target: Path, options: str) -> None:
    target.mkdir(exist_ok=True)
    if not ROOT or subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)],
                                  capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")


@pytest.fixture
def read_only(tmp_path):
    """A read-only file system (a tmpfs mounted read-only), or, for a user who cannot mount,
    a folder without write permission."""
    target = tmp_path / "ro"
    if ROOT:
        _mount(target, "ro,size=64k")
        yield target, "the file system is read-only; write the output to a folder on a " \
                      "writable file system"
        subprocess.run(["umount", str(target)], check=True)
    else:
        target.mkdir()
        target.chmod(0o555)
        yield target, "permission denied; write the output to a folder you may write to, " \
                      "or change its permissions (chmod u+w)"
        target.chmod(0o755)


@pytest.mark.parametrize("command", [
    ["run", "{toml}", "--out", "{ro}/out"],
    ["demo", "--out", "{ro}/out"],
    ["explore", "{sample}", "--out", "{ro}/page.html"],
    ["adabag", "--simulate", "--bootstraps", "2", "--out", "{ro}/out"],
    ["ordinal-eval", "{reviews}", "--label-field", "rating", "--out", "{ro}/out"],
    ["pca-lda", "--simulate", "--out", "{ro}/out"],
    ["report", "{ro}"],
])
def test_a_read_only_output_is_one_error_before_any_work(read_only, toml, command):
    ro, said = read_only
    args = [a.format(toml=toml, ro=ro, sample=sample_path("20ng"),
                     reviews=sample_path("reviews")) for a in command]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and res.stdout == "", res.output
    where = ro / "out" if "{ro}/out" in command else ro
    # the only line on stderr: nothing was counted or computed before it
    assert res.stderr.splitlines() == [f"error: {where}: {said}"]
    assert list(ro.iterdir()) == []


def _without_permission_override():
    """In the child, before exec: drop root's right to write anywhere (CAP_DAC_OVERRIDE,
    CAP_DAC_READ_SEARCH), so that a folder's permissions apply to it."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.parametrize("command", [
    ["run", "{toml}", "--out", "{locked}/out"],
    ["explore", "{sample}", "--out", "{locked}/page.html"],
])
def test_permission_denied(tmp_path, toml, command):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    args = [a.format(toml=toml, locked=locked, sample=sample_path("20ng")) for a in command]
    try:
        res = subprocess.run(_cli(*args), capture_output=True, text=True, timeout=300,
                             preexec_fn=_without_permission_override if ROOT else None)
    finally:
        locked.chmod(0o755)
    where = locked / "out" if command[0] == "run" else locked
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert res.stderr.splitlines() == [
        f"error: {where}: permission denied; write the output to a folder you may write to, "
        "or change its permissions (chmod u+w)"]
    assert list(locked.iterdir()) == []


def _file_size_limit(limit: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.slow
def test_a_file_size_limit_stops_the_run_cleanly_and_it_resumes(tmp_path, toml):
    out = tmp_path / "out"
    res = subprocess.run(_cli("run", toml, "--out", out, "--no-report"), capture_output=True,
                         text=True, timeout=300, preexec_fn=_file_size_limit(200_000))
    assert res.returncode == 2, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error")]
    assert errors == [
        f"error: {out / 'cache' / 'fold-0.npz'}: the file is too large for this process's "
        "file-size limit (200,000 bytes: ulimit -f); raise the limit (ulimit -f unlimited) or "
        "write less, then run the command again with --resume, which keeps the finished trials"]
    assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr
    assert not list(out.rglob("*.tmp")) and not (out / "cache" / "fold-0.npz").exists()
    again = subprocess.run(_cli("run", toml, "--out", out, "--resume", "--no-report"),
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    clean = run_experiment(parse_config(TOML_DICT), tmp_path / "clean")
    assert (out / "results.csv").read_bytes() == (tmp_path / "clean" / "results.csv").read_bytes()
    assert clean.n_trials == 4


def test_a_file_size_limit_in_explore_offers_no_resume(tmp_path):
    """explore has no --resume: its message said "(a run continues with --resume)", which
    only `run` has. Now every command says "then run the command again", and `run` alone
    adds its --resume (above)."""
    page = tmp_path / "page.html"
    res = subprocess.run(_cli("explore", sample_path("20ng"), "--out", page),
                         capture_output=True, text=True, timeout=300,
                         preexec_fn=_file_size_limit(50_000))
    assert res.returncode == 2, res.stderr
    errors = [line for line in res.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "--resume" not in errors[0], res.stderr
    assert errors[0].endswith("the file is too large for this process's file-size limit "
                              "(50,000 bytes: ulimit -f); raise the limit (ulimit -f "
                              "unlimited) or write less, then run the command again")
    assert not page.exists() and not list(tmp_path.rglob("*.tmp"))


TOML_DICT = {"experiment": {"name": "small", "n_jobs": 1}, "corpus": {"sample": "20ng"},
             "preprocessing": {"stop_words": "english", "min_df": 2},
             "selection": {"methods": ["chi2", "ig"], "sizes": [50, 200]},
             "learners": [{"name": "nb"}]}


def test_a_full_disk(tmp_path, toml):
    """A tmpfs of 256 KiB: the fold cache does not fit (an error naming it); once full, the
    probe of the next command's --out fails before any work."""
    disk = tmp_path / "disk"
    _mount(disk, "size=256k")
    try:
        first = subprocess.run(_cli("run", toml, "--out", disk / "a", "--no-report"),
                               capture_output=True, text=True, timeout=300)
        errors = [x for x in first.stderr.splitlines() if x.startswith("error")]
        assert first.returncode == 2 and len(errors) == 1, first.stderr
        assert errors[0].startswith(f"error: {disk / 'a' / 'cache' / 'fold-0.npz'}: no space "
                                    "left on the device (")
        assert errors[0].endswith("MiB free); free some space or write the output to another "
                                  "device, then run the command again with --resume, which "
                                  "keeps the finished trials")
        assert "Exception ignored" not in first.stderr and not list(disk.rglob("*.tmp"))
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)  # fill the rest
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)
        second = CliRunner().invoke(app, ["run", str(toml), "--out", str(disk / "b")])
        assert second.exit_code == 2
        assert second.stderr.splitlines() == [
            f"error: {disk / 'b'}: no space left on the device (0.0 MiB free); free some space "
            "or write the output to another device, then run the command again"]
        assert not (disk / "b").exists()
    finally:
        subprocess.run(["umount", str(disk)], check=True)


class _Full(io.RawIOBase):
    """A file on a device that fills after ``room`` bytes."""

    def __init__(self, fh, room: int):
        self.fh, self.room = fh, room

    def writable(self):
        return True

    def seekable(self):
        return True

    def seek(self, *args):
        return self.fh.seek(*args)

    def tell(self):
        return self.fh.tell()

    def write(self, data):
        if self.fh.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.fh.write(data)

    def close(self):
        self.fh.close()
        super().close()


def test_a_simulated_full_disk_at_the_writer(tmp_path, monkeypatch):
    """Where no file system can be mounted: the writer's file fills after 100 kB. The run
    stops with the error naming the file, leaves no partial file and nothing for the garbage
    collector to complain about, and resumes to the table of an uninterrupted run."""
    fdopen = os.fdopen
    monkeypatch.setattr(textsift_io.os, "fdopen",
                        lambda fd, mode: _Full(fdopen(fd, mode), 100_000))
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    out = tmp_path / "out"
    with pytest.raises(OutputError, match=r"fold-0\.npz: no space left on the device") as err:
        run_experiment(parse_config(TOML_DICT), out)
    assert err.value.errno == errno.ENOSPC
    gc.collect()
    assert unraisable == [] and not list(out.rglob("*.tmp"))
    monkeypatch.undo()
    again = run_experiment(parse_config(TOML_DICT), out, resume=True)
    clean = run_experiment(parse_config(TOML_DICT), tmp_path / "clean")
    assert again.n_run == 4 and (out / "results.csv").read_bytes() == (
        tmp_path / "clean" / "results.csv").read_bytes()
    assert clean.n_run == 4


LOW_FILES = """
import os, resource, sys
from textsift.cli import main
import textsift.experiment.runner  # noqa: F401 (imported while files may still be opened)
n = len(os.listdir("/proc/self/fd"))
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 3, n + 3))
sys.argv = ["textsift", *sys.argv[1:]]
main()
"""


def test_too_many_open_files(tmp_path, toml):
    res = subprocess.run([sys.executable, "-c", LOW_FILES, "run", str(toml), "--out",
                          str(tmp_path / "out"), "--n-jobs", "2", "--no-report"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stderr
    (line,) = [x for x in res.stderr.splitlines() if x.startswith("error")]
    assert line.startswith("error: too many open files for this process (")
    assert line.endswith(": ulimit -n); raise the limit (ulimit -n 4096) or use fewer workers "
                         "(--n-jobs)")
    assert "Traceback" not in res.stderr and not list((tmp_path / "out").rglob("*.tmp"))


@pytest.mark.parametrize(("code", "said"), [
    (errno.EROFS, "/x/out: the file system is read-only; write the output to a folder on a "
                  "writable file system"),
    (errno.EACCES, "/x/out: permission denied; write the output to a folder you may write to, "
                   "or change its permissions (chmod u+w)"),
    (errno.EDQUOT, "/x/out: the disk quota is exceeded; free some space or write the output "
                   "elsewhere, then run the command again"),
    (errno.ENFILE, "the system's table of open files is full; close other programs or raise "
                   "the system's limit (fs.file-max)"),
])
def test_the_message_of_each_error(code, said):
    error = os_error(OSError(code, os.strerror(code), "/x/out"))
    assert str(error) == said and error.errno == code


def test_other_errors_are_not_the_users_to_fix():
    assert os_error(OSError(errno.EIO, "I/O error", "/x")) is None


def test_a_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "table.csv"
    atomic_write_text(path, "old")
    fdopen = os.fdopen
    monkeypatch.setattr(textsift_io.os, "fdopen", lambda fd, mode: _Full(fdopen(fd, mode), 2))
    with pytest.raises(OutputError, match="table.csv: no space left"):
        atomic_write_text(path, "the new table")
    with pytest.raises(OutputError, match="arrays.npz: no space left"):
        write_npz(tmp_path / "arrays.npz", {"a": np.arange(10)})
    assert path.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["table.csv"]


def test_write_npz_is_what_numpy_reads(tmp_path):
    arrays = {"x": np.arange(5, dtype=np.int32), "names": np.array(["a", "bb"]),
              "flag": np.bool_(True)}
    write_npz(tmp_path / "a.npz", arrays)
    with np.load(tmp_path / "a.npz", allow_pickle=False) as z:
        assert sorted(z.files) == ["flag", "names", "x"]
        np.testing.assert_array_equal(z["x"], arrays["x"])
        assert z["names"].tolist() == ["a", "bb"] and z["flag"][()] is np.True_
