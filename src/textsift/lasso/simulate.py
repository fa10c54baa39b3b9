"""The AdaBag paper's simulation (its simulation design), as a generator.

``n = 1000`` rows of ``p = 77`` independent Bernoulli features (success probability 0.1 for
columns 1-2, 0.2 for 3-65, 0.03 for 66-75, 0.029 for 76-77), ``y = mu + x'beta + eps`` with
``eps ~ N(0, 0.3)`` and ``mu = 0`` (our choice: the paper gives no ``mu``),
``beta_1..8 = (-1, 1, -1, 1, .5, -.5, -.25, -.125)``, ``beta_76 = 1.25``, ``beta_77 = -1.25``.
Observations with ``y`` within ``sqrt(0.3)`` of ``ybar`` are removed; AdaBag then uses
``a = ybar - sqrt(0.3)``, ``b = ybar + sqrt(0.3)``.

Polarities (variant ii), with our padding of the two blocks the paper lists with the wrong
length: 1-8 as beta; 9-21 ``(.25, .33, .33, .2, .2, .25, .2 x 6, .2)`` (the last 0.20 added);
22-25 ``0.2``; 26-75 ``1/(j-1)``; 76-77 ``1.25``. Variant (i) is equal polarity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._choices import VARIANTS  # the two polarity variants of the simulation
from ..errors import TextsiftError

__all__ = ["Simulation", "simulate", "simulation_polarity"]

BETA = np.zeros(77)
BETA[:8] = (-1, 1, -1, 1, 0.5, -0.5, -0.25, -0.125)
BETA[75], BETA[76] = 1.25, -1.25
PROBS = np.r_[np.full(2, 0.1), np.full(63, 0.2), np.full(10, 0.03), np.full(2, 0.029)]
NOISE_VAR = 0.3


def simulation_polarity(variant: str = "assigned") -> np.ndarray:
    """Polarities of the 77 features: ``"assigned"`` (variant ii) or ``"equal"`` (variant i)."""
    if variant == "equal":
        return np.ones(77)
    if variant not in VARIANTS:
        raise TextsiftError(f"variant must be one of {', '.join(map(repr, VARIANTS))}")
    block2 = [0.25, 0.33, 0.33, 0.20, 0.20, 0.25, 0.20, 0.20, 0.20, 0.20, 0.20, 0.20, 0.20]
    return np.concatenate([BETA[:8], block2, np.full(4, 0.2),
                           1.0 / (np.arange(26, 76) - 1.0), [1.25, 1.25]])


@dataclass
class Simulation:
    """A drawn data set: ``X`` (CSR, binary), ``y``, thresholds ``a < b``, feature names
    ``x1..x77`` and the polarity vector of the chosen variant."""

    X: sp.csr_matrix
    y: np.ndarray
    a: float
    b: float
    feature_names: np.ndarray
    polarity: np.ndarray


def simulate(seed=0, n: int = 1000, variant: str = "assigned", mu: float = 0.0,
             per_class: int | None = 200) -> Simulation:
    """Draw the simulation. The band rows are removed and ``per_class`` rows of each class are
    drawn at random (the paper's core/validation/test sizes 200/100/100 with equal class
    counts are the 2:1:1 split of 2 x 200 rows); ``per_class=None`` keeps every row outside
    the band."""
    if n < 20:
        raise TextsiftError("the simulation needs n >= 20")
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 77)) < PROBS).astype(np.float64)
    y = mu + X @ BETA + rng.normal(0.0, np.sqrt(NOISE_VAR), n)
    ybar, half = y.mean(), np.sqrt(NOISE_VAR)
    keep = np.flatnonzero(np.abs(y - ybar) >= half)
    if per_class is not None:
        hi, lo = keep[y[keep] > ybar], keep[y[keep] < ybar]
        if min(len(hi), len(lo)) < per_class:
            raise TextsiftError(f"only {min(len(hi), len(lo))} rows in the smaller class; lower "
                             "per_class or raise n")
        keep = np.sort(np.r_[rng.choice(hi, per_class, False), rng.choice(lo, per_class, False)])
    X, y = X[keep], y[keep]
    names = np.array([f"x{j}" for j in range(1, 78)], dtype=object)
    return Simulation(sp.csr_matrix(X), y, ybar - half, ybar + half, names,
                      simulation_polarity(variant))
