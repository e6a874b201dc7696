#!/usr/bin/env python3
"""Writes the inputs torch-exports.test runs the exported models on, as
MODEL_TAG_inN.npy in DIR (seeded):

    torch_inputs.py DIR
"""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(0)
for b, s in ((1, 8), (3, 16), (2, 33)):
    ids = rng.integers(0, 100, (b, s)).astype(np.int64)
    mask = np.ones((b, s), np.int64)
    mask[-1, s // 2:] = 0  # the last sequence is padded
    np.save(os.path.join(out, f"bert_tiny_b{b}s{s}_in0.npy"), ids)
    np.save(os.path.join(out, f"bert_tiny_b{b}s{s}_in1.npy"), mask)
for b in (1, 5):
    np.save(os.path.join(out, f"cnn_small_b{b}_in0.npy"),
            rng.standard_normal((b, 3, 32, 32)).astype(np.float32))
for b, s in ((3, 11), (2, 16)):
    ids = rng.integers(0, 100, (b, s)).astype(np.int64)
    mask = np.ones((b, s), np.int64)
    mask[-1, s - 4:] = 0
    np.save(os.path.join(out, f"deberta_v2_ts_b{b}s{s}_in0.npy"), ids)
    np.save(os.path.join(out, f"deberta_v2_ts_b{b}s{s}_in1.npy"), mask)
