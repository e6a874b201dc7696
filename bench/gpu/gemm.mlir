// GEMM 8192^3 (cuBLAS behind Tide's library kernel) and the MLP forward pass
// of the issue (batch 4096, 784-1024-1024-10, ELU, softmax), all on the GPU.
func.func @gemm_f32(%a: tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>},
                    %b: tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<8192x8192xf32> {tide.resident = #tide.device<cuda:0>}) {
  %c = tide.matmul %a, %b : tensor<8192x8192xf32>
  return %c : tensor<8192x8192xf32>
}
func.func @gemm_f64(%a: tensor<8192x8192xf64> {tide.resident = #tide.device<cuda:0>},
                    %b: tensor<8192x8192xf64> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<8192x8192xf64> {tide.resident = #tide.device<cuda:0>}) {
  %c = tide.matmul %a, %b : tensor<8192x8192xf64>
  return %c : tensor<8192x8192xf64>
}
func.func @mlp(%x: tensor<4096x784xf32> {tide.resident = #tide.device<cuda:0>},
               %w1: tensor<784x1024xf32> {tide.resident = #tide.device<cuda:0>},
               %b1: tensor<1024xf32> {tide.resident = #tide.device<cuda:0>},
               %w2: tensor<1024x1024xf32> {tide.resident = #tide.device<cuda:0>},
               %b2: tensor<1024xf32> {tide.resident = #tide.device<cuda:0>},
               %w3: tensor<1024x10xf32> {tide.resident = #tide.device<cuda:0>},
               %b3: tensor<10xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<4096x10xf32> {tide.resident = #tide.device<cuda:0>}) {
  %m1 = tide.matmul %x, %w1 : tensor<4096x784xf32>, tensor<784x1024xf32>
  %a1 = tide.add %m1, %b1 : tensor<4096x1024xf32>, tensor<1024xf32>
  %h1 = tide.elu %a1 : tensor<4096x1024xf32>
  %m2 = tide.matmul %h1, %w2 : tensor<4096x1024xf32>, tensor<1024x1024xf32>
  %a2 = tide.add %m2, %b2 : tensor<4096x1024xf32>, tensor<1024xf32>
  %h2 = tide.elu %a2 : tensor<4096x1024xf32>
  %m3 = tide.matmul %h2, %w3 : tensor<4096x1024xf32>, tensor<1024x10xf32>
  %a3 = tide.add %m3, %b3 : tensor<4096x10xf32>, tensor<10xf32>
  %p = tide.softmax %a3 axis = 1 : tensor<4096x10xf32>
  return %p : tensor<4096x10xf32>
}
// Batched matmul (cuBLAS's strided batched GEMM): 64 x (512x512 @ 512x512).
func.func @bmm_f32(%a: tensor<64x512x512xf32> {tide.resident = #tide.device<cuda:0>},
                   %b: tensor<64x512x512xf32> {tide.resident = #tide.device<cuda:0>})
    -> (tensor<64x512x512xf32> {tide.resident = #tide.device<cuda:0>}) {
  %c = tide.matmul %a, %b : tensor<64x512x512xf32>, tensor<64x512x512xf32>
  return %c : tensor<64x512x512xf32>
}
