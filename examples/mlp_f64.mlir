// The TensorFlow report (docs/seeds/003): a 2-hidden-layer ELU MLP on MNIST
// shapes (784-256-256-10), softmax output and mean cross-entropy loss, in f64.
// TensorFlow 0.7 put Mean (and float64 reductions and matmul) on the CPU.
//
// Arguments: a batch of 256 images, one-hot labels, then weights and biases.
// Results: class probabilities and the mean loss.
func.func @mlp(%x: tensor<256x784xf64>, %labels: tensor<256x10xf64>,
               %w1: tensor<784x256xf64>, %b1: tensor<256xf64>,
               %w2: tensor<256x256xf64>, %b2: tensor<256xf64>,
               %w3: tensor<256x10xf64>, %b3: tensor<10xf64>)
    -> (tensor<256x10xf64>, tensor<f64>) {
  %m1 = tide.matmul %x, %w1 : tensor<256x784xf64>, tensor<784x256xf64>
  %a1 = tide.add %m1, %b1 : tensor<256x256xf64>, tensor<256xf64>
  %h1 = tide.elu %a1 : tensor<256x256xf64>
  %m2 = tide.matmul %h1, %w2 : tensor<256x256xf64>
  %a2 = tide.add %m2, %b2 : tensor<256x256xf64>, tensor<256xf64>
  %h2 = tide.elu %a2 : tensor<256x256xf64>
  %m3 = tide.matmul %h2, %w3 : tensor<256x256xf64>, tensor<256x10xf64>
  %logits = tide.add %m3, %b3 : tensor<256x10xf64>, tensor<10xf64>
  %probs = tide.softmax %logits axis = 1 : tensor<256x10xf64>
  %logp = tide.log_softmax %logits axis = 1 : tensor<256x10xf64>
  %picked = tide.mul %labels, %logp : tensor<256x10xf64>
  %nll = tide.reduce_sum %picked axes = [1] : tensor<256x10xf64>
  %neg = tide.neg %nll : tensor<256xf64>
  %loss = tide.reduce_mean %neg axes = [0] : tensor<256xf64>
  return %probs, %loss : tensor<256x10xf64>, tensor<f64>
}
