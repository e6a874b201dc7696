#!/usr/bin/env python3
"""Runs an ONNX model with ONNX Runtime (CPU) and saves the outputs.

    run_ort.py MODEL.onnx OUT_PREFIX INPUT.npy...   -> OUT_PREFIX_0.npy, ...
"""
import sys

import numpy as np
import onnxruntime as ort

model, prefix, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
feeds = {i.name: np.load(f) for i, f in zip(sess.get_inputs(), inputs)}
for k, v in enumerate(sess.run(None, feeds)):
    np.save("%s_%d.npy" % (prefix, k), v)
