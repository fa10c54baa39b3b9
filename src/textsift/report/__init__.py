"""Reports: plots, word clouds, the self-contained HTML report of an experiment, and the
interactive explore page (:func:`explore`)."""

from .explore import explore

__all__ = ["explore"]
