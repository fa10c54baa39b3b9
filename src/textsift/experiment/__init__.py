"""Declarative experiments: TOML config, plan, cells (with tuning and baselines), runner
(cache, resume), results store."""

from .config import ConfigError, Experiment, load_config, parse_config
from .runner import RunSummary, run_experiment
from .store import COLUMNS, Store, StoreError

__all__ = ["COLUMNS", "ConfigError", "Experiment", "RunSummary", "Store", "StoreError",
           "load_config", "parse_config", "run_experiment"]
