// One elementwise op large enough to run across threads: tide-calibrate times
// it against the single-threaded exp_f32 of loops.mlir to find what starting
// and joining the threads of one parallel loop nest costs
// (parallel_launch_us). Compiled when Tide is built with parallel loops
// (--cpu-threads=0: OpenMP, the team sized at run time), so it needs
// libomp.so.5 where it runs.
func.func @exp_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.exp %x : tensor<?xf32>
  return %y : tensor<?xf32>
}
