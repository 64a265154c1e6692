#!/usr/bin/python3
"""Writes the small example inputs of examples/ (checked in; deterministic)."""
import os

import numpy as np

rng = np.random.default_rng(7)
x = rng.uniform(-2, 2, (2, 4, 4, 3)).astype(np.float32)
dy = rng.uniform(-1, 1, (2, 4, 4, 3)).astype(np.float32)
d = "examples/bngrad/"
os.makedirs(d, exist_ok=True)
arrays = dict(y_backprop=dy, x=x, scale=np.array([1.0, 0.5, 2.0], np.float32),
              reserve_space_1=x.mean(axis=(0, 1, 2)).astype(np.float32),
              reserve_space_2=x.var(axis=(0, 1, 2)).astype(np.float32),
              reserve_space_3=np.zeros((0,), np.float32))
for n, a in arrays.items():
    np.save(d + n + ".npy", a)
d = "examples/dwbpi/"
os.makedirs(d, exist_ok=True)
np.save(d + "input_sizes.npy", np.array([1, 6, 6, 2], np.int32))
np.save(d + "filter.npy", rng.uniform(-1, 1, (3, 3, 2, 1)).astype(np.float32))
np.save(d + "out_backprop.npy", rng.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32))
