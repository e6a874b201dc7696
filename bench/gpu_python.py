#!/usr/bin/env python3
"""The Python package on the GPU machine: PyTorch CUDA tensors into and out
of a Tide GPU function through DLPack, with no copy (checked by pointer and
by timing), and the answer checked against torch.

Here:   build/bin/tide-compile bench/gpu/resident.mlir --target=h200 \\
            --cpu=x86-64-v3 -o build/py-gpu/resident.so --no-remarks
There:  pip install --no-build-isolation --target /tmp/tide-py \\
            --config-settings=cmake.define.TIDE_PYTHON_COMPILER=OFF python/
        PYTHONPATH=/tmp/tide-py python3 bench/gpu_python.py build/py-gpu/resident.so
"""
import sys
import time

import numpy as np
import torch

import tide

m = tide.load(sys.argv[1])
print("devices:", [(d["device"], d.get("name")) for d in tide.devices()])
print("signature:", m.signature)
n = 1 << 26
x = torch.rand(n, device="cuda")
y = m.exp(x)
t = torch.from_dlpack(y)
assert t.device == x.device, (t.device, x.device)
torch.testing.assert_close(t, torch.exp(x))
# Handing the result back in: the same memory, no copy.
z = torch.from_dlpack(m.exp(t))
torch.testing.assert_close(z, torch.exp(torch.exp(x)))
print("result pointer differs from input: %s; results match torch" % (t.data_ptr() != x.data_ptr()))


def best(fn, reps=20):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        s = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - s)
    return min(times) * 1e6, sorted(times)[len(times) // 2] * 1e6


host = x.cpu().numpy()
dev_min, dev_med = best(lambda: m.exp(x))
torch_min, torch_med = best(lambda: torch.exp(x))
print("exp over 2^26 f32, CUDA tensor in and out: min %.0f us, median %.0f us" % (dev_min, dev_med))
print("torch.exp on the same tensor:             min %.0f us, median %.0f us" % (torch_min, torch_med))
host_min, _ = best(lambda: m.exp(host), reps=5)
print("the same call with a NumPy (host) array, copied in and out: min %.0f us" % host_min)
# 2 x 256 MiB would cross PCIe if the tensor were copied: at ~50 GB/s that is
# >= 10 ms, against the kernel's ~0.3 ms (memory bound: 512 MiB at 4.8 TB/s).
print("no-copy check by timing: %s (%.0f us, copies would take >= 10000 us)"
      % ("ok" if dev_min < 5000 else "FAILED", dev_min))
