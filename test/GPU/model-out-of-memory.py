#!/usr/bin/env python3
"""A whole model that does not fit in the GPU memory Tide may use: an error
for the caller, nothing leaked, and the process keeps working (on a GPU).

ResNet-50 (bench/gpu_models.py: f32, weights as PyTorch CUDA tensors, every
argument and result resident on cuda:0) at batch 32 needs several hundred
MiB of activations; TIDE_GPU_MEMORY_LIMIT caps what Tide's allocator may hold
at 128 MiB, far below that, while batch 1 fits. In one process, three rounds
of:

- the batch-32 module raises tide.Error "@main: out of GPU memory: needed N
  bytes on cuda:0, ... (Tide's allocator holds X bytes in use, ...)", and X
  is the same in every round (what an abandoned call had allocated was given
  back: a leak would grow it);
- the batch-1 module then runs and matches PyTorch eager (f32, TF32 off).

Needs PyTorch and the Python package built on the GPU machine (see
bench/gpu_models.py); the modules come from
`python3 bench/gpu_models.py build --only resnet50_f32`:

  PYTHONPATH=/tmp/tide-py python3 test/GPU/model-out-of-memory.py build/gpu-models

Prints "N passed, M failed"; exits 1 if any check failed.
"""

import os
import re
import sys

LIMIT = 128 << 20
os.environ["TIDE_GPU_MEMORY_LIMIT"] = str(LIMIT)  # read at the first allocation

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
import gpu_models  # noqa: E402


def main():
    import torch
    import tide
    directory = sys.argv[1]
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    layers = gpu_models.resnet50_layers()
    params = gpu_models.parameters(layers)
    forward = gpu_models.torch_forward(layers, [n for n, _ in params])
    ws = [torch.from_numpy(w).cuda() for w in gpu_models.weights(params)]
    rng = np.random.RandomState(1)
    x = {b: torch.from_numpy(rng.standard_normal((b, 3, 224, 224)).astype(np.float32)).cuda()
         for b in (1, 32)}
    big = tide.load(os.path.join(directory, "resnet50_f32_b32.so"))
    small = tide.load(os.path.join(directory, "resnet50_f32_b1.so"))
    passed = failed = 0
    held = []
    for round_ in range(3):
        try:
            big.main(x[32], *ws)
            message = None
        except tide.Error as e:
            message = str(e)
        print("round %d, batch 32: %s" % (round_, message), flush=True)
        m = message and re.search(r"@main: out of GPU memory: needed (\d+) bytes on cuda:0, "
                                  r".*holds (\d+) bytes in use", message)
        if m:
            passed += 1
            held.append(int(m.group(2)))
        else:
            failed += 1
            print("FAIL: batch 32 under a %d-byte limit did not raise the out-of-memory error"
                  % LIMIT)
        with torch.no_grad():
            want = forward(x[1], *ws)
            got = torch.from_dlpack(small.main(x[1], *ws))
        err = ((got - want).abs().max() / want.abs().max()).item()
        del got  # its device memory goes back before the next round
        print("round %d, batch 1: max error %.2e of the output's range" % (round_, err),
              flush=True)
        if err <= 1e-4:
            passed += 1
        else:
            failed += 1
            print("FAIL: batch 1 after the failed call")
    if len(held) == 3 and len(set(held)) == 1:
        passed += 1
    else:
        failed += 1
        print("FAIL: bytes in use at the failure differ between rounds: %s" % held)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
