"""Reading the keys of an experiment file: the error type, the tables and their keys
(:mod:`.schema`), and the checks every table uses (an unknown key, a type, a choice, a
fraction, a path). Every error names the file, the key and the fix."""

from __future__ import annotations

import os
import re
from glob import glob, has_magic
from pathlib import Path

from ..errors import TextsiftError, did_you_mean
from .schema import SCHEMA

__all__ = ["TABLES", "ConfigError", "choice", "fraction", "resolve_path", "typed", "unknown"]


class ConfigError(TextsiftError):
    """An experiment file is invalid; the message says where and how to fix it."""


#: Every table of an experiment file -> the keys it accepts (``None``: checked per entry, as
#: ``[tuning]`` and ``[[learners]]`` accept keys that depend on the methods and learners).
TABLES = {**SCHEMA, "tuning": None, "learners": None}


def unknown(keys, allowed, where: str, src: str):
    for key in keys:
        if key not in allowed:
            raise ConfigError(
                f"{src}: unknown key {key!r} in {where}{did_you_mean(key, sorted(allowed))}; "
                f"allowed keys there: {', '.join(sorted(allowed))}"
            )


def typed(value, types, what: str, src: str):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        names = "/".join(t.__name__ for t in _tuple(types))
        raise ConfigError(f"{src}: {what} must be {names}, got {value!r}")
    return value


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def choice(value, choices, what: str, src: str):
    if value not in choices:
        raise ConfigError(f"{src}: {what} = {value!r} is not one of {', '.join(map(str, choices))}")
    return value


def fraction(value, what: str, src: str, one: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and (
        0 < value <= 1 if one else 0 < value < 1)
    if not ok:
        raise ConfigError(f"{src}: {what} must be a fraction in (0, {'1]' if one else '1)'}, "
                          f"got {value!r}")
    return float(value)


_VAR = re.compile(r"\$(\w+|\{[^}]*\})")


def resolve_path(raw: str, base: Path, what: str, src: str) -> str:
    typed(raw, str, what, src)
    for m in _VAR.finditer(raw):
        var = m.group(1).strip("{}")
        if var not in os.environ:
            raise ConfigError(
                f"{src}: {what} uses ${var}, which is not set; export {var} (e.g. "
                f"{var}=/path/to/shared/data) or write the path out"
            )
    path = Path(os.path.expandvars(raw)).expanduser()
    if not path.is_absolute():
        # a path that starts with a variable (TEXTSIFT_DATA=../shared/data) is relative to
        # the working directory, where the variable was set; a literal one to the TOML
        path = (Path.cwd() if _VAR.match(raw) else base) / path
    if has_magic(str(path)):  # a glob pattern: the files it matches (textsift.reading.sources)
        if not glob(str(path)):
            raise ConfigError(f"{src}: {what} {str(path)!r} matches no file; check the path")
        return str(path.absolute())
    if not path.exists():
        raise ConfigError(f"{src}: {what} {str(path)!r} does not exist; check the path")
    return str(path.resolve())
