#!/usr/bin/env python3
"""Peer figures for host-to-device copies on the GPU machine (PyTorch).

(b,3,448,448) float32 batches, b = 1..32: pinned (the goal's reference, a
pinned cudaMemcpy) and pageable copies, median of 20 timed with a host clock
around copy + synchronize, as bench/gpu.sh times Tide's runtime.
"""
import time

import torch


def median_copy(host, dev):
    dev.copy_(host, non_blocking=True)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        t = time.perf_counter()
        dev.copy_(host, non_blocking=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    for b in (1, 2, 4, 8, 16, 32):
        shape = (b, 3, 448, 448)
        nbytes = b * 3 * 448 * 448 * 4
        dev = torch.empty(shape, device="cuda")
        pageable = torch.ones(shape)
        pinned = torch.ones(shape).pin_memory()
        tp = median_copy(pinned, dev)
        tq = median_copy(pageable, dev)
        print(f"  b={b:2d} {nbytes:9d} bytes: pinned {tp*1e6:8.1f} us "
              f"{nbytes/tp/1e9:6.2f} GB/s | pageable {tq*1e6:8.1f} us "
              f"{nbytes/tq/1e9:6.2f} GB/s")


if __name__ == "__main__":
    main()
