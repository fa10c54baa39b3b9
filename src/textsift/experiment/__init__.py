"""Declarative experiments: TOML config, runner (cells, cache, resume), results store."""
