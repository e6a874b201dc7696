// The loss tail of bench/cost_model.py's MLPs (softmax, log-softmax and the
// loss over rows of 10) and their ELUs, alone: what the CPU pays per row of a
// short row reduction (docs/benchmarks.md, the cost-model study).
func.func @tail64(%logits: tensor<1024x10xf64>, %labels: tensor<1024x10xf64>) -> (tensor<1024x10xf64>, tensor<f64>) {
  %probs = tide.softmax %logits axis = 1 : tensor<1024x10xf64>
  %logp = tide.log_softmax %logits axis = 1 : tensor<1024x10xf64>
  %picked = tide.mul %labels, %logp : tensor<1024x10xf64>
  %nll = tide.reduce_sum %picked axes = [1] : tensor<1024x10xf64>
  %neg = tide.neg %nll : tensor<1024xf64>
  %loss = tide.reduce_mean %neg axes = [0] : tensor<1024xf64>
  return %probs, %loss : tensor<1024x10xf64>, tensor<f64>
}
func.func @tail32(%logits: tensor<2048x10xf32>, %labels: tensor<2048x10xf32>) -> (tensor<2048x10xf32>, tensor<f32>) {
  %probs = tide.softmax %logits axis = 1 : tensor<2048x10xf32>
  %logp = tide.log_softmax %logits axis = 1 : tensor<2048x10xf32>
  %picked = tide.mul %labels, %logp : tensor<2048x10xf32>
  %nll = tide.reduce_sum %picked axes = [1] : tensor<2048x10xf32>
  %neg = tide.neg %nll : tensor<2048xf32>
  %loss = tide.reduce_mean %neg axes = [0] : tensor<2048xf32>
  return %probs, %loss : tensor<2048x10xf32>, tensor<f32>
}
func.func @elu64(%x: tensor<128x256xf64>) -> tensor<128x256xf64> {
  %0 = tide.elu %x : tensor<128x256xf64>
  return %0 : tensor<128x256xf64>
}
func.func @elu32(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = tide.elu %x : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
