"""Declarative experiments: TOML config, plan, trials (with tuning and baselines), runner
(cache, resume), results store.

The modules, each importing only those before it in this list (so none imports a later
one, and there is no import circle): :mod:`.schema` (the keys of a file, their defaults and
meanings), :mod:`.specs` (the value types), :mod:`.store` (the results directory),
:mod:`.validity` (which finished results a run may keep), ``_keys``, ``_methods`` and
``_tasks`` (checks), :mod:`.config` (the parser), :mod:`.folds` (reading, splitting, counting,
the fold cache), :mod:`.plan` (levels and trials), :mod:`.learn` (a trial's labels),
:mod:`.loaded` (a fold as its trials use it: its rankings, each label's terms, the terms that
pass an alpha), :mod:`.trials` (running one trial), ``_shown`` (the evidence of the terms the
report shows), :mod:`.runner` (running them all). The
names below are imported on first use, so importing one module does not import the others.
"""

from importlib import import_module

__all__ = ["COLUMNS", "ConfigError", "Experiment", "RunSummary", "Store", "StoreError",
           "load_config", "parse_config", "run_experiment"]

_HOME = {"COLUMNS": "store", "ConfigError": "_keys", "Experiment": "specs",
         "RunSummary": "runner", "Store": "store", "StoreError": "store",
         "load_config": "config", "parse_config": "config", "run_experiment": "runner"}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *__all__])
