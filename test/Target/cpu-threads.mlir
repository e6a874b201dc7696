// The CPU's cost figures follow the threads its code will run on
// (cpu-threads, which tide-compile sets from --cpu-threads): the built-in
// figures are those of every core ("cores": 16); on N threads the peaks scale
// by N / 16 and the bandwidth by N x one core's (60 / 16 GB/s by default).

// RUN: tide-opt %s -o /dev/null --tide-list-kernels=target=cpu | FileCheck %s --check-prefix=ALL
// RUN: tide-opt %s -o /dev/null --tide-list-kernels="target=cpu cpu-threads=16" | FileCheck %s --check-prefix=ALL
// RUN: tide-opt %s -o /dev/null --tide-list-kernels="target=cpu cpu-threads=4" | FileCheck %s --check-prefix=FOUR
// RUN: tide-opt %s -o /dev/null --tide-list-kernels="target=cpu cpu-threads=64" | FileCheck %s --check-prefix=MORE
// RUN: not tide-opt %s -o /dev/null --tide-list-kernels="target=cpu cpu-threads=-1" 2>&1 | FileCheck %s --check-prefix=BAD

// ALL: cpu x86-64 host, AVX2, 16 cores [16 cores; figures for code on 16 threads]
// ALL-NEXT: bandwidth 60 GB/s, launch 0.2 us, peak GFLOP/s: {{.*}} f32=800 f64=400

// FOUR: cpu x86-64 host, AVX2, 16 cores [16 cores; figures for code on 4 threads]
// FOUR-NEXT: bandwidth 15 GB/s, launch 0.2 us, peak GFLOP/s: {{.*}} f32=200 f64=100

// More threads than cores run no faster.
// MORE: [16 cores; figures for code on 64 threads]
// MORE-NEXT: bandwidth 60 GB/s, launch 0.2 us, peak GFLOP/s: {{.*}} f32=800 f64=400

// BAD: error: invalid 'cpu-threads' option -1; expected 0 (every core of the target's CPU) to 4096
