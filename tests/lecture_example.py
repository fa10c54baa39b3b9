"""Worked examples shared by several test modules: the 10-document x 10-term binary set of
P. Kang's Text Analytics lecture 6 ("Dimensionality Reduction - Feature Selection", the
example it works Forman 2003's metrics on)."""

import numpy as np

# The lecture's 10-document x 10-term binary matrix (rows = terms T1..T10, columns D1..D10);
# D1-D6 are Pos, D7-D10 Neg.
LECTURE = np.array([
    [1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
    [0, 0, 0, 1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 1, 1, 0, 0],
    [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
    [1, 1, 1, 0, 0, 0, 1, 0, 0, 0],
    [1, 0, 0, 0, 0, 0, 0, 0, 1, 1],
])
LABELS = np.array(["pos"] * 6 + ["neg"] * 4)
