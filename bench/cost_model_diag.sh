#!/bin/bash
# Diagnostic: all-CPU functions in a GPU module against the CPU module, few and many calls.
for c in norm_256x1024 chain_4k expsum_64k mlp_b8 mlp64_b8 mlp_b64; do
  for r in 20 1000; do
    for m in cost-h200 cpu cost-h200 cpu; do
      t=$(build/bin/tide-run build/cost/$m.so --entry=$c --random=1 --repeat=$r | grep -o "median [0-9.]* [um]s")
      echo "$c repeat=$r $m: $t"
    done
  done
done
