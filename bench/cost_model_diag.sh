#!/bin/bash
# Diagnostic for bench/cost_model.py: the functions that policy=cost put all on
# the CPU, from the GPU module (cost-h200.so) and the CPU module (cpu.so) in
# turn, with few and many calls. Run from the repository root after
# `cost_model.py build` (on the GPU machine: LD_LIBRARY_PATH=build/lib).
for c in norm_256x1024 chain_4k expsum_64k mlp_b8 mlp64_b8 mlp_b64; do
  for r in 20 1000; do
    for m in cost-h200 cpu cost-h200 cpu; do
      t=$(build/bin/tide-run build/cost/$m.so --entry=$c --random=1 --repeat=$r | grep -o "median [0-9.]* [um]s")
      echo "$c repeat=$r $m: $t"
    done
  done
done
