// A dynamic exp for test/GPU/out-of-memory.py: placed on the GPU (target
// h200), its device buffers grow with the input, so TIDE_GPU_MEMORY_LIMIT makes
// a large call run out of GPU memory and a small one fit.
func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = tide.exp %x : tensor<?xf32>
  return %y : tensor<?xf32>
}
