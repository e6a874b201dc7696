// For bench/gpu_python.py: exp whose argument and result live on the GPU
// (tide.resident), so PyTorch CUDA tensors pass through DLPack uncopied.
func.func @exp(%x: tensor<67108864xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<67108864xf32> {tide.resident = #tide.device<cuda:0>}) {
  %y = tide.exp %x : tensor<67108864xf32>
  return %y : tensor<67108864xf32>
}
