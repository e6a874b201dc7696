// RUN: tide-opt %s -split-input-file -verify-diagnostics

// One case per user-facing error of the tide dialect. Errors from type
// inference are reported by the parser for the custom form (at the op) and by
// the verifier for the generic form.

//===----------------------------------------------------------------------===//
// Mixed element types: never promoted, the fix is an explicit tide.cast
//===----------------------------------------------------------------------===//

// Binary elementwise op with f32 and f64 operands.
func.func @add_mixed_types(%a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tide.add' operands have different element types ('f32' and 'f64'); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = tide.add %a, %b : tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// cmp with float and integer operands.
func.func @cmp_mixed_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'tide.cmp' operands have different element types ('f32' and 'i32'); Tide never converts implicitly: insert 'tide.cast'}}
  %0 = tide.cmp eq, %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

// select whose two value operands differ in element type.
func.func @select_mixed_types(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf64>) {
  // expected-error @+1 {{'tide.select' operands have different element types ('f32' and 'f64'); Tide never converts implicitly: insert 'tide.cast'}}
  %0 = tide.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// matmul with f32 and f16 operands.
func.func @matmul_mixed_types(%a: tensor<4x5xf32>, %b: tensor<5x3xf16>) {
  // expected-error @+1 {{'tide.matmul' operands have different element types ('f32' and 'f16'); Tide never converts implicitly: insert 'tide.cast'}}
  %0 = tide.matmul %a, %b : tensor<4x5xf32>, tensor<5x3xf16>
  return
}

// -----

// concat of f32 and f64 inputs.
func.func @concat_mixed_types(%a: tensor<4x5xf32>, %b: tensor<4x5xf64>) {
  // expected-error @+1 {{'tide.concat' operands have different element types ('f32' and 'f64'); Tide never converts implicitly: insert 'tide.cast'}}
  %0 = tide.concat %a, %b axis = 0 : tensor<4x5xf32>, tensor<4x5xf64>
  return
}

// -----

// The generic form reports mixed element types once: the verifier runs the
// op's own type inference before InferTypeOpInterface's, which would add
// "failed to infer returned types" (-verify-diagnostics fails on that extra
// error).
func.func @generic_add_mixed_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'tide.add' operands have different element types ('f32' and 'f16'); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = "tide.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @generic_select_mixed_types(%m: tensor<4xi1>, %a: tensor<4xbf16>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'tide.select' operands have different element types ('bf16' and 'f16'); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = "tide.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xbf16>, tensor<4xf16>) -> tensor<4xbf16>
  return
}

//===----------------------------------------------------------------------===//
// Element kinds
//===----------------------------------------------------------------------===//

// -----

// Float-only unary op (verifier) on an integer tensor.
func.func @exp_on_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tide.exp' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i32'; convert the operand with 'tide.cast' to a floating-point type first}}
  %0 = tide.exp %a : tensor<4xi32>
  return
}

// -----

// elu is float-only too (its own verifier).
func.func @elu_on_integer(%a: tensor<4xi8>) {
  // expected-error @+1 {{'tide.elu' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i8'}}
  %0 = tide.elu %a alpha = 0.5 : tensor<4xi8>
  return
}

// -----

// Float-only binary op (type inference) on an integer tensor.
func.func @pow_on_integer(%a: tensor<4xi32>) {
  // expected-error @+1 {{'tide.pow' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i32'; convert the operand with 'tide.cast' to a floating-point type first}}
  %0 = tide.pow %a, %a : tensor<4xi32>
  return
}

// -----

// The inverse and hyperbolic trigonometric ops are float-only.
func.func @atanh_on_integer(%a: tensor<4xi64>) {
  // expected-error @+1 {{'tide.atanh' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i64'; convert the operand with 'tide.cast' to a floating-point type first}}
  %0 = tide.atanh %a : tensor<4xi64>
  return
}

// -----

// sign is numeric: not on i1.
func.func @sign_on_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'tide.sign' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.sign %a : tensor<4xi1>
  return
}

// -----

// Remainders are numeric: not on i1.
func.func @rem_on_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'tide.rem' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.rem %a, %a : tensor<4xi1>
  return
}

// -----

// Shifts are integer-only.
func.func @shl_on_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.shl' expects an integer or boolean element type (i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64) but got 'f32'; compare with 'tide.cmp' or convert with 'tide.cast' first}}
  %0 = tide.shl %a, %a : tensor<4xf32>
  return
}

// -----

// mod needs the same element type on both sides, like every binary op.
func.func @mod_mixed_types(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'tide.mod' operands have different element types ('i32' and 'i64'); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = tide.mod %a, %b : tensor<4xi32>, tensor<4xi64>
  return
}

// -----

// Integer-only unary op on a float tensor.
func.func @not_on_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.not' expects an integer or boolean element type (i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64) but got 'f32'; compare with 'tide.cmp' or convert with 'tide.cast' first}}
  %0 = tide.not %a : tensor<4xf32>
  return
}

// -----

// Integer-only binary op on a float tensor.
func.func @and_on_float(%a: tensor<4xbf16>) {
  // expected-error @+1 {{'tide.and' expects an integer or boolean element type (i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64) but got 'bf16'; compare with 'tide.cmp' or convert with 'tide.cast' first}}
  %0 = tide.and %a, %a : tensor<4xbf16>
  return
}

// -----

// Numeric unary op on i1: booleans are not numbers.
func.func @neg_on_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'tide.neg' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.neg %a : tensor<4xi1>
  return
}

// -----

// Numeric binary op on i1.
func.func @add_on_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{'tide.add' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.add %a, %a : tensor<4xi1>
  return
}

// -----

// matmul on i1.
func.func @matmul_on_i1(%a: tensor<4x4xi1>) {
  // expected-error @+1 {{'tide.matmul' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.matmul %a, %a : tensor<4x4xi1>
  return
}

// -----

// Numeric reduction on i1.
func.func @reduce_sum_on_i1(%a: tensor<4x5xi1>) {
  // expected-error @+1 {{'tide.reduce_sum' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.reduce_sum %a axes = [0] : tensor<4x5xi1>
  return
}

// -----

// Float-only reduction on integers.
func.func @reduce_mean_on_integer(%a: tensor<4x5xi64>) {
  // expected-error @+1 {{'tide.reduce_mean' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i64'}}
  %0 = tide.reduce_mean %a axes = [0] : tensor<4x5xi64>
  return
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

// -----

// Trailing dimensions 3 and 4 neither match nor are 1.
func.func @add_no_broadcast(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tide.add' operand shapes [4, 3] and [4] do not broadcast: trailing dimensions must be equal or 1; reshape or broadcast_to one operand}}
  %0 = tide.add %a, %b : tensor<4x3xf32>, tensor<4xf32>
  return
}

// -----

// The condition of a select does not broadcast against the values.
func.func @select_no_broadcast(%m: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.select' operand shapes [3], [4] and [4] do not broadcast}}
  %0 = tide.select %m, %a, %a : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// Broadcasting ops need ranked operands.
func.func @add_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'tide.add' expects ranked tensor operands}}
  %0 = tide.add %a, %a : tensor<*xf32>
  return
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// -----

// A vector operand: matmul needs rank >= 2.
func.func @matmul_rank1(%a: tensor<4xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'tide.matmul' operands must have rank >= 2, got ranks 1 and 2; reshape a vector to [1, n] or [n, 1]}}
  %0 = tide.matmul %a, %b : tensor<4xf32>, tensor<4x3xf32>
  return
}

// -----

// K of lhs (5) differs from K of rhs (4).
func.func @matmul_k_mismatch(%a: tensor<4x5xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'tide.matmul' contraction sizes differ: lhs [4, 5] has K = 5 but rhs [4, 3] has K = 4}}
  %0 = tide.matmul %a, %b : tensor<4x5xf32>, tensor<4x3xf32>
  return
}

// -----

// Batch dimensions 2 and 3 do not broadcast.
func.func @matmul_batch_mismatch(%a: tensor<2x4x5xf32>, %b: tensor<3x5x3xf32>) {
  // expected-error @+1 {{'tide.matmul' batch dimensions [2] and [3] do not broadcast}}
  %0 = tide.matmul %a, %b : tensor<2x4x5xf32>, tensor<3x5x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

// A reduction must name at least one axis.
func.func @reduce_empty_axes(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reduce_sum' needs at least one axis in 'axes'}}
  %0 = tide.reduce_sum %a axes = [] : tensor<4x5xf32>
  return
}

// -----

// Axis 2 of a rank-2 tensor.
func.func @reduce_axis_too_large(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reduce_prod' axis 2 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.reduce_prod %a axes = [2] : tensor<4x5xf32>
  return
}

// -----

// Axis -3 of a rank-2 tensor (negative axes are bounded too).
func.func @reduce_axis_too_small(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reduce_max' axis -3 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.reduce_max %a axes = [-3] : tensor<4x5xf32>
  return
}

// -----

// Axes 1 and -1 name the same dimension.
func.func @reduce_repeated_axis(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reduce_min' axis -1 is listed more than once}}
  %0 = tide.reduce_min %a axes = [1, -1] : tensor<4x5xf32>
  return
}

// -----

// argmax reduces exactly one axis.
func.func @argmax_two_axes(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.argmax' reduces exactly one axis, got 2}}
  %0 = tide.argmax %a axes = [0, 1] : tensor<4x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// -----

// A perm with a repeated entry.
func.func @transpose_repeated(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.transpose' perm [0, 0] is not a permutation of [0, 2)}}
  %0 = tide.transpose %a perm = [0, 0] : tensor<4x5xf32>
  return
}

// -----

// A perm with an entry out of range.
func.func @transpose_out_of_range(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.transpose' perm [1, 2] is not a permutation of [0, 2)}}
  %0 = tide.transpose %a perm = [1, 2] : tensor<4x5xf32>
  return
}

// -----

// A perm of the wrong length.
func.func @transpose_wrong_length(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.transpose' perm has 3 entries but the input has rank 2}}
  %0 = tide.transpose %a perm = [0, 1, 2] : tensor<4x5xf32>
  return
}

// -----

// 20 elements cannot become 21.
func.func @reshape_count(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reshape' op cannot reshape 20 elements [4, 5] into 21 elements [3, 7]}}
  %0 = tide.reshape %a : tensor<4x5xf32> to tensor<3x7xf32>
  return
}

// -----

// With a static 0 the element count says nothing about the dynamic size.
func.func @reshape_zero_and_dynamic(%a: tensor<0x?x?xf32>) {
  // expected-error @+1 {{'tide.reshape' op cannot infer the dynamic dimension of 'tensor<0x?xf32>' (another dimension is 0); pass the sizes as a shape operand}}
  %0 = tide.reshape %a : tensor<0x?x?xf32> to tensor<0x?xf32>
  return
}

// -----

// reshape never changes the element type.
func.func @reshape_element_type(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reshape' op cannot change the element type ('f32' to 'f64'); use 'tide.cast'}}
  %0 = tide.reshape %a : tensor<4x5xf32> to tensor<20xf64>
  return
}

// -----

// stretch_dynamic needs the sizes to stretch to.
func.func @broadcast_to_stretch_no_shape(%a: tensor<?x5xf32>) {
  // expected-error @+1 {{'tide.broadcast_to' op with 'stretch_dynamic' needs the 'shape' operand (the sizes to stretch to)}}
  %0 = tide.broadcast_to %a stretch_dynamic : tensor<?x5xf32> to tensor<?x5xf32>
  return
}

// -----

// broadcast_to cannot drop dimensions.
func.func @broadcast_to_lower_rank(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.broadcast_to' op cannot broadcast rank 2 to the lower rank 1}}
  %0 = tide.broadcast_to %a : tensor<4x5xf32> to tensor<5xf32>
  return
}

// -----

// Dimension 1 is 5: neither 1 nor the target 6.
func.func @broadcast_to_incompatible(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.broadcast_to' op cannot broadcast [4, 5] to [2, 4, 6]: dimension 1 is 5, which is neither 1 nor 6}}
  %0 = tide.broadcast_to %a : tensor<4x5xf32> to tensor<2x4x6xf32>
  return
}

// -----

// broadcast_to never changes the element type.
func.func @broadcast_to_element_type(%a: tensor<5xf32>) {
  // expected-error @+1 {{'tide.broadcast_to' op cannot change the element type ('f32' to 'i32'); use 'tide.cast'}}
  %0 = tide.broadcast_to %a : tensor<5xf32> to tensor<4x5xi32>
  return
}

// -----

// concat inputs of different ranks.
func.func @concat_rank_mismatch(%a: tensor<4x5xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'tide.concat' inputs must have the same rank, got 2 and 1}}
  %0 = tide.concat %a, %b axis = 0 : tensor<4x5xf32>, tensor<5xf32>
  return
}

// -----

// concat inputs that differ off the concatenation axis.
func.func @concat_dim_mismatch(%a: tensor<4x5xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+1 {{'tide.concat' inputs [4, 5] and [4, 6] differ in dimension 1, which is not the concatenation axis 0}}
  %0 = tide.concat %a, %b axis = 0 : tensor<4x5xf32>, tensor<4x6xf32>
  return
}

// -----

// concat axis out of range.
func.func @concat_bad_axis(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.concat' axis -3 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.concat %a, %a axis = -3 : tensor<4x5xf32>, tensor<4x5xf32>
  return
}

// -----

// Rank-0 tensors have no axis to join along.
func.func @concat_rank0(%a: tensor<f32>) {
  // expected-error @+1 {{'tide.concat' cannot join rank-0 tensors}}
  %0 = tide.concat %a, %a axis = 0 : tensor<f32>, tensor<f32>
  return
}

// -----

// concat of nothing (only expressible in the generic form).
func.func @concat_no_inputs() {
  // expected-error @+1 {{'tide.concat' needs at least one input}}
  %0 = "tide.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
  return
}

// -----

// start has one entry for a rank-2 input.
func.func @slice_wrong_lengths(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' start, limit and strides need one entry per dimension (rank 2), got 1, 2 and 2}}
  %0 = tide.slice %a start = [0] limit = [1, 1] strides = [1, 1] : tensor<4x5xf32>
  return
}

// -----

// A zero stride.
func.func @slice_zero_stride(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' stride 0 in dimension 1 must be positive}}
  %0 = tide.slice %a start = [0, 0] limit = [1, 1] strides = [1, 0] : tensor<4x5xf32>
  return
}

// -----

// A negative stride.
func.func @slice_negative_stride(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' stride -1 in dimension 0 must be positive}}
  %0 = tide.slice %a start = [3, 0] limit = [4, 1] strides = [-1, 1] : tensor<4x5xf32>
  return
}

// -----

// start above limit.
func.func @slice_start_above_limit(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' needs 0 <= start <= limit in dimension 0, got start 2 and limit 1}}
  %0 = tide.slice %a start = [2, 0] limit = [1, 1] strides = [1, 1] : tensor<4x5xf32>
  return
}

// -----

// A negative start.
func.func @slice_negative_start(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' needs 0 <= start <= limit in dimension 1, got start -1 and limit 1}}
  %0 = tide.slice %a start = [0, -1] limit = [1, 1] strides = [1, 1] : tensor<4x5xf32>
  return
}

// -----

// limit beyond the size of the dimension.
func.func @slice_limit_beyond_size(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.slice' limit 6 exceeds the size 5 of dimension 1}}
  %0 = tide.slice %a start = [0, 0] limit = [1, 6] strides = [1, 1] : tensor<4x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// Softmax, cast, constant, transfer
//===----------------------------------------------------------------------===//

// -----

// softmax is float-only.
func.func @softmax_on_integer(%a: tensor<4x5xi32>) {
  // expected-error @+1 {{'tide.softmax' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i32'}}
  %0 = tide.softmax %a axis = 1 : tensor<4x5xi32>
  return
}

// -----

// log_softmax axis out of range.
func.func @log_softmax_bad_axis(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.log_softmax' axis 2 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.log_softmax %a axis = 2 : tensor<4x5xf32>
  return
}

// -----

// cast that changes the rank.
func.func @cast_changes_rank(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.cast' op changes the shape from [4, 5] to [20]; 'tide.cast' only converts element types (use 'tide.reshape' to change the shape)}}
  %0 = tide.cast %a : tensor<4x5xf32> to tensor<20xf64>
  return
}

// -----

// cast that changes a dimension size.
func.func @cast_changes_dim(%a: tensor<4x?xf32>) {
  // expected-error @+1 {{'tide.cast' op changes the shape from [4, ?] to [5, ?]; 'tide.cast' only converts element types}}
  %0 = tide.cast %a : tensor<4x?xf32> to tensor<5x?xf16>
  return
}

// -----

// The value attribute and the result of a constant disagree (generic form).
func.func @constant_type_mismatch() {
  // expected-error @+1 {{'tide.constant' op value type 'tensor<4xf32>' does not match result type 'tensor<4xf64>'}}
  %0 = "tide.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf64>
  return
}

// -----

// A constant needs an elements attribute, not a scalar.
func.func @constant_scalar() {
  // expected-error @+1 {{expected a dense elements attribute such as dense<1.0> : tensor<4xf32>}}
  %0 = tide.constant 1.0 : f32
  return
}

// -----

// transfer's destination must be a device attribute, not a string.
func.func @transfer_to_string(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected a device such as #tide.device<cuda:0>, got "cuda:0"}}
  %0 = tide.transfer %a : tensor<4xf32> to "cuda:0"
  return
}

//===----------------------------------------------------------------------===//
// Device attribute syntax
//===----------------------------------------------------------------------===//

// -----

// "gpu" is not a device kind.
func.func @device_unknown_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown device 'gpu'; expected 'cpu' or 'cuda:N' (e.g. cuda:0)}}
  %0 = tide.exp %a {tide.device = #tide.device<gpu>} : tensor<4xf32>
  return
}

// -----

// A CUDA device without an ordinal.
func.func @device_missing_ordinal(%a: tensor<4xf32>) {
  // expected-error @+1 {{a CUDA device needs an ordinal: 'cuda:N'}}
  %0 = tide.exp %a {tide.device = #tide.device<cuda>} : tensor<4xf32>
  return
}

// -----

// Ordinal 64 is one past the last CUDA device.
func.func @device_ordinal_too_large(%a: tensor<4xf32>) {
  // expected-error @+1 {{CUDA device ordinal 64 is out of range [0, 64)}}
  %0 = tide.exp %a {tide.device = #tide.device<cuda:64>} : tensor<4xf32>
  return
}

// -----

// Negative ordinals are out of range as well.
func.func @device_ordinal_negative(%a: tensor<4xf32>) {
  // expected-error @+1 {{CUDA device ordinal -1 is out of range [0, 64)}}
  %0 = tide.exp %a {tide.device = #tide.device<cuda:-1>} : tensor<4xf32>
  return
}

// -----

// The device must start with a keyword.
func.func @device_not_a_keyword(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected a device: 'cpu' or 'cuda:N'}}
  %0 = tide.exp %a {tide.device = #tide.device<0>} : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Placement attributes on ops, functions and modules
//===----------------------------------------------------------------------===//

// -----

// tide.device with a string instead of a device.
func.func @device_not_a_device(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.device' must be a device attribute such as #tide.device<cpu> or #tide.device<cuda:0>}}
  %0 = tide.exp %a {tide.device = "cuda:0"} : tensor<4xf32>
  return
}

// -----

// tide.default_device with an integer instead of a device.
// expected-error @+1 {{'tide.default_device' must be a device attribute such as #tide.device<cpu> or #tide.device<cuda:0>}}
func.func @default_device_not_a_device() attributes {tide.default_device = 0 : i32} {
  return
}

// -----

// A misspelled tide.* attribute is rejected, not ignored.
func.func @unknown_op_attribute(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown Tide attribute 'tide.devices'; known: tide.device, tide.default_device, tide.colocate, tide.reason, tide.decomposed, tide.target, tide.conv_pads, tide.device_copy_slot}}
  %0 = tide.exp %a {tide.devices = #tide.device<cpu>} : tensor<4xf32>
  return
}

// -----

// tide.conv_pads (on convolutions for cuDNN) is an array of i64.
func.func @bad_conv_pads(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.conv_pads' must be an array of i64}}
  %0 = tide.exp %a {tide.conv_pads = 1 : i64} : tensor<4xf32>
  return
}

// -----

// tide.reason must be a string.
func.func @reason_not_a_string(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.reason' must be a string}}
  %0 = tide.exp %a {tide.reason = 1 : i32} : tensor<4xf32>
  return
}

// -----

// tide.colocate must be a string.
func.func @colocate_not_a_string(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.colocate' must be a string}}
  %0 = tide.exp %a {tide.colocate = #tide.device<cpu>} : tensor<4xf32>
  return
}

// -----

// tide.decomposed (set by tide-decompose) must be a string.
func.func @decomposed_not_a_string(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.decomposed' must be a string}}
  %0 = tide.exp %a {tide.decomposed} : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Function boundary attributes
//===----------------------------------------------------------------------===//

// -----

// tide.resident on an argument with a string instead of a device.
// expected-error @+1 {{'tide.resident' on a function argument must be a device attribute such as #tide.device<cuda:0>}}
func.func @resident_arg_not_a_device(%a: tensor<4xf32> {tide.resident = "cuda:0"}) {
  return
}

// -----

// tide.resident on a result with an integer instead of a device.
// expected-error @+1 {{'tide.resident' on a function result must be a device attribute such as #tide.device<cuda:0>}}
func.func @resident_result_not_a_device(%a: tensor<4xf32>) -> (tensor<4xf32> {tide.resident = 1 : i32}) {
  return %a : tensor<4xf32>
}

// -----

// An unknown tide.* argument attribute.
// expected-error @+1 {{unknown Tide function argument attribute 'tide.foo'; known: tide.resident, tide.donate}}
func.func @unknown_arg_attribute(%a: tensor<4xf32> {tide.foo}) {
  return
}

// -----

// tide.donate only applies to arguments.
// expected-error @+1 {{unknown Tide function result attribute 'tide.donate'; known: tide.resident}}
func.func @donate_on_result(%a: tensor<4xf32>) -> (tensor<4xf32> {tide.donate}) {
  return %a : tensor<4xf32>
}

// -----

// tide.donate is a unit attribute.
// expected-error @+1 {{'tide.donate' takes no value}}
func.func @donate_with_value(%a: tensor<4xf32> {tide.donate = true}) {
  return
}

//===----------------------------------------------------------------------===//
// Generic form: the declared result type must be the inferred one
//===----------------------------------------------------------------------===//

// -----

// add of two f32 tensors declared to produce f64.
func.func @generic_wrong_result_element(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  %0 = "tide.add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

// reduce_sum with keepdims declared without the kept dimension.
func.func @generic_wrong_result_shape(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tide.reduce_sum' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  %0 = "tide.reduce_sum"(%a) <{axes = array<i64: 1>, keepdims}> : (tensor<4x5xf32>) -> tensor<4xf32>
  return
}

// -----

// Inference errors surface through the verifier in the generic form too.
func.func @generic_matmul_k_mismatch(%a: tensor<4x5xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'tide.matmul' contraction sizes differ: lhs [4, 5] has K = 5 but rhs [4, 3] has K = 4}}
  %0 = "tide.matmul"(%a, %b) : (tensor<4x5xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Unranked operands in the custom form: a diagnostic, never a crash
//===----------------------------------------------------------------------===//

// -----

// matmul needs ranked operands; this must be an error, not a crash.
func.func @matmul_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'tide.matmul' expects ranked tensor operands}}
  %0 = tide.matmul %a, %a : tensor<*xf32>
  return
}

// -----

// concat needs ranked inputs; this must be an error, not a crash.
func.func @concat_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'tide.concat' expects ranked tensor operands}}
  %0 = tide.concat %a, %a axis = 0 : tensor<*xf32>, tensor<*xf32>
  return
}

// -----

// A dynamic result dimension must be determined by a dynamic input dimension.
func.func @broadcast_to_undetermined_dynamic(%x: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'tide.broadcast_to' op result dimension 0 is dynamic but the input does not determine it; give its size statically or pass the sizes as a shape operand}}
  %0 = tide.broadcast_to %x : tensor<3xf32> to tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// tide.target belongs on a module.
func.func @target_on_function() attributes {tide.target = #tide.target<name = "h200", source = "built-in", chips = {}>} {
  // expected-error @-1 {{'tide.target' belongs on a module}}
  return
}

// -----

// gather indices are i32 or i64.
func.func @gather_float_indices(%x: tensor<3x5xf32>, %i: tensor<3x2xf32>) {
  // expected-error @+1 {{'tide.gather' indices must be i32 or i64, got 'f32'; convert them with 'tide.cast' first}}
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<3x2xf32>
  return
}

// -----

// gather indices have the input's rank (take_along_axis, not take).
func.func @gather_rank_mismatch(%x: tensor<3x5xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'tide.gather' indices must have the rank of the input (2), got rank 1}}
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<2xi64>
  return
}

// -----

// The axis must exist.
func.func @gather_bad_axis(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+1 {{'tide.gather' axis 2 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.gather %x, %i axis = 2 : tensor<3x5xf32>, tensor<3x2xi64>
  return
}

// -----

// Along the other axes the indices may not be larger than the input.
func.func @gather_indices_too_large(%x: tensor<3x5xf32>, %i: tensor<4x2xi64>) {
  // expected-error @+1 {{'tide.gather' indices have size 4 in dimension 0, larger than the input's 3; only the gathered axis may be larger}}
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<4x2xi64>
  return
}

// -----

// A rank-0 input has no axis to gather along.
func.func @gather_rank0(%x: tensor<f32>, %i: tensor<i64>) {
  // expected-error @+1 {{'tide.gather' needs an input of rank 1 or more, got a rank-0 tensor}}
  %0 = tide.gather %x, %i axis = 0 : tensor<f32>, tensor<i64>
  return
}

// -----

// cumsum's axis must exist.
func.func @cumsum_bad_axis(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{'tide.cumsum' axis -3 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.cumsum %x axis = -3 : tensor<3x5xf32>
  return
}

// -----

// cumsum is numeric: not on i1.
func.func @cumsum_on_i1(%x: tensor<4xi1>) {
  // expected-error @+1 {{'tide.cumsum' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.cumsum %x axis = 0 : tensor<4xi1>
  return
}

// -----

// cumsum of a rank-0 tensor has no axis.
func.func @cumsum_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'tide.cumsum' op needs an input of rank 1 or more, got a rank-0 tensor}}
  %0 = tide.cumsum %x axis = 0 : tensor<f32>
  return
}

// -----

// cumprod's axis must exist, and it needs rank 1 or more.
func.func @cumprod_bad_axis(%x: tensor<3x5xf32>) {
  // expected-error @+1 {{'tide.cumprod' axis 2 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.cumprod %x axis = 2 : tensor<3x5xf32>
  return
}

// -----

func.func @cumprod_rank0(%x: tensor<i32>) {
  // expected-error @+1 {{'tide.cumprod' op needs an input of rank 1 or more, got a rank-0 tensor}}
  %0 = tide.cumprod %x axis = 0 : tensor<i32>
  return
}

// -----

// A dilation whose window size overflows 64 bits (a garbage window size was
// inferred before).
func.func @conv_dilation_overflow(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' window or padding is too large (its size overflows 64 bits) in spatial dimension 0}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [9223372036854775807, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// A reshape whose element count overflows (wrapped to 0 before).
func.func @reshape_overflow(%x: tensor<0xf32>) {
  // expected-error @+1 {{'tide.reshape' op has a type of more than 2^63 - 1 elements}}
  %0 = tide.reshape %x : tensor<0xf32> to tensor<4611686018427387904x4xf32>
  return
}

// -----

// conv's channels must split into the groups.
func.func @conv_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' input channels (6) are not a multiple of groups (4)}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 4 : tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv's weight has C / groups channels.
func.func @conv_weight_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' weight has 2 input channels per group, but the input's 6 channels in 1 groups make 6}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>
  return
}

// -----

// conv's output channels split into the groups too.
func.func @conv_filters_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' output channels (4) are not a multiple of groups (3)}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 3 : tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>
  return
}

// -----

// Channels-last: the weight's channels are its last dimension.
func.func @conv_channels_last_weight(%x: tensor<1x8x8x6xf32>, %w: tensor<4x3x3x2xf32>) {
  // expected-error @+1 {{'tide.conv' weight has 2 input channels per group, but the input's 6 channels in 1 groups make 6}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x8x8x6xf32>, tensor<4x3x3x2xf32>
  return
}

// -----

// Channels-last weights have the input's rank too.
func.func @conv_channels_last_weight_rank(%x: tensor<1x8x8x6xf32>, %w: tensor<4x3x6xf32>) {
  // expected-error @+1 {{'tide.conv' weight must have the input's rank (4: F, one size per spatial dimension and C / groups), got 'tensor<4x3x6xf32>'}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] channels_last : tensor<1x8x8x6xf32>, tensor<4x3x6xf32>
  return
}

// -----

func.func @pool_channels_last_rank(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{'tide.avg_pool' needs an input of rank 3 or more (N, at least one spatial dimension and C), got 'tensor<4x6xf32>'}}
  %0 = tide.avg_pool %x kernel = [2] strides = [1] dilations = [1] pads = [0, 0] channels_last : tensor<4x6xf32>
  return
}

// -----

// A (dilated) kernel larger than the padded input.
func.func @conv_kernel_too_large(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' window of 5 elements (kernel 3, dilation 2) is larger than the padded input (4 + 0 + 0) in spatial dimension 1}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 2] pads = [1, 0, 1, 0] : tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// Strides must be positive.
func.func @conv_bad_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' strides must be positive, got [1, 0]}}
  %0 = tide.conv %x, %w strides = [1, 0] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// One stride per spatial dimension.
func.func @conv_strides_count(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' needs 2 strides (one per spatial dimension) for an input with 2 spatial dimensions, got 1}}
  %0 = tide.conv %x, %w strides = [1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// Dilations must be positive.
func.func @conv_bad_dilations(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' dilations must be positive, got [0, 1]}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [0, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// Pads: begin and end of each spatial dimension.
func.func @conv_pads_count(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' needs 4 pads (the begin of each spatial dimension, then the end) for an input with 2 spatial dimensions, got 2}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [1, 1] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// Pads cannot be negative.
func.func @conv_negative_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' pads must be non-negative, got [0, -1, 0, 0]}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, -1, 0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>
  return
}

// -----

// conv is floating-point only.
func.func @conv_int(%x: tensor<1x3x8x8xi32>, %w: tensor<2x3x3x3xi32>) {
  // expected-error @+1 {{'tide.conv' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i32'; convert the operand with 'tide.cast' to a floating-point type first}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xi32>, tensor<2x3x3x3xi32>
  return
}

// -----

// Input and weight share an element type.
func.func @conv_mixed(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf16>) {
  // expected-error @+1 {{'tide.conv' operands have different element types ('f32' and 'f16'); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3x3xf16>
  return
}

// -----

// The weight has the input's rank.
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' weight must have the input's rank (4: F, C / groups and one size per spatial dimension), got 'tensor<2x3x3xf32>'}}
  %0 = tide.conv %x, %w strides = [1] dilations = [1] pads = [0, 0] : tensor<1x3x8x8xf32>, tensor<2x3x3xf32>
  return
}

// -----

// A weight of run-time sizes: ungrouped only.
func.func @conv_dynamic_weight(%x: tensor<1x4x8x8xf32>, %w: tensor<?x2x3x3xf32>) {
  // expected-error @+1 {{'tide.conv' with groups or channels last needs a weight of static shape, got 'tensor<?x2x3x3xf32>'}}
  %0 = tide.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 : tensor<1x4x8x8xf32>, tensor<?x2x3x3xf32>
  return
}

// -----

// An input without a spatial dimension.
func.func @pool_rank2(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'tide.max_pool' needs an input of rank 3 or more (N, C and at least one spatial dimension), got 'tensor<4x3xf32>'}}
  %0 = tide.max_pool %x kernel = [] strides = [] dilations = [] pads = [] : tensor<4x3xf32>
  return
}

// -----

// One kernel size per spatial dimension.
func.func @pool_kernel_count(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'tide.avg_pool' needs 2 kernel sizes for an input with 2 spatial dimensions, got 3}}
  %0 = tide.avg_pool %x kernel = [2, 2, 2] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>
  return
}

// -----

// Kernel sizes are positive.
func.func @pool_empty_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'tide.max_pool' kernel sizes must be positive, got [2, 0]}}
  %0 = tide.max_pool %x kernel = [2, 0] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xf32>
  return
}

// -----

// A pooling window larger than the padded input.
func.func @pool_window_too_large(%x: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{'tide.max_pool' window of 3 elements (kernel 3, dilation 1) is larger than the padded input (2 + 0 + 0) in spatial dimension 0}}
  %0 = tide.max_pool %x kernel = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x2x8xf32>
  return
}

// -----

// avg_pool is floating-point only.
func.func @avg_pool_int(%x: tensor<1x3x8x8xi32>) {
  // expected-error @+1 {{'tide.avg_pool' expects a floating-point element type (f16, bf16, f32 or f64) but got 'i32'; convert the operand with 'tide.cast' to a floating-point type first}}
  %0 = tide.avg_pool %x kernel = [2, 2] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xi32>
  return
}

// -----

// max_pool is numeric: not on i1.
func.func @max_pool_i1(%x: tensor<1x3x8x8xi1>) {
  // expected-error @+1 {{'tide.max_pool' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.max_pool %x kernel = [2, 2] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x3x8x8xi1>
  return
}

// -----

// Signed and unsigned integers do not mix, even of one width.
func.func @mixed_signedness(%x: tensor<4xi8>, %y: tensor<4xui8>) {
  // expected-error @+1 {{'tide.add' operands have different element types ('i8' and 'ui8') (signed and unsigned integers do not mix: division, comparison and widening differ); Tide never converts implicitly: insert 'tide.cast' on one operand}}
  %0 = tide.add %x, %y : tensor<4xi8>, tensor<4xui8>
  return
}

// -----

// Nor in a comparison.
func.func @mixed_signedness_cmp(%x: tensor<4xui32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'tide.cmp' operands have different element types ('ui32' and 'i32') (signed and unsigned integers do not mix}}
  %0 = tide.cmp lt, %x, %y : tensor<4xui32>, tensor<4xi32>
  return
}

// -----

// Unsigned integers of different widths are just different types.
func.func @mixed_unsigned_widths(%x: tensor<4xui8>, %y: tensor<4xui16>) {
  // expected-error @+1 {{'tide.maximum' operands have different element types ('ui8' and 'ui16'); Tide never converts implicitly}}
  %0 = tide.maximum %x, %y : tensor<4xui8>, tensor<4xui16>
  return
}

// -----

// Unsigned integers are not floats.
func.func @unsigned_exp(%x: tensor<4xui8>) {
  // expected-error @+1 {{'tide.exp' expects a floating-point element type (f16, bf16, f32 or f64) but got 'ui8'}}
  %0 = tide.exp %x : tensor<4xui8>
  return
}

// -----

// Signed integer types (si8, ...) are not Tide types.
func.func @signed_type(%x: tensor<4xsi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of}}
  %0 = tide.neg %x : tensor<4xsi8>
  return
}

// -----

// gather indices are signless: ui32/ui64 indices are refused.
func.func @gather_unsigned_indices(%x: tensor<3x5xf32>, %i: tensor<3x2xui64>) {
  // expected-error @+1 {{'tide.gather' indices must be i32 or i64, got 'ui64'}}
  %0 = tide.gather %x, %i axis = 1 : tensor<3x5xf32>, tensor<3x2xui64>
  return
}

// -----

// scatter indices are i32 or i64.
func.func @scatter_float_indices(%x: tensor<3x5xf32>, %i: tensor<3x2xf32>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'tide.scatter' indices must be i32 or i64, got 'f32'; convert them with 'tide.cast' first}}
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<3x2xf32>, tensor<3x2xf32>
  return
}

// -----

// Updates have the data's element type.
func.func @scatter_update_type(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf16>) {
  // expected-error @+1 {{'tide.scatter' updates have element type 'f16' but data has 'f32'}}
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf16>
  return
}

// -----

// Indices and updates have one shape.
func.func @scatter_shape_mismatch(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x3xf32>) {
  // expected-error @+1 {{'tide.scatter' indices and updates differ in dimension 1 (2 and 3); they must have one shape}}
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x3xf32>
  return
}

// -----

// Along the other axes the indices may not be larger than the data.
func.func @scatter_indices_too_large(%x: tensor<3x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'tide.scatter' indices have size 4 in dimension 0, larger than the data's 3; only the scatter axis may differ}}
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>
  return
}

// -----

// Ranks agree.
func.func @scatter_rank(%x: tensor<3x5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'tide.scatter' indices and updates must have the rank of the data (2), got ranks 1 and 1}}
  %0 = tide.scatter %x, %i, %u axis = 1 : tensor<3x5xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// add and mul need numbers.
func.func @scatter_add_bool(%x: tensor<3xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{'tide.scatter' reduction 'add' needs a numeric element type, got i1}}
  %0 = tide.scatter %x, %i, %u axis = 0 reduction = add : tensor<3xi1>, tensor<2xi64>, tensor<2xi1>
  return
}

// -----

// The axis must exist.
func.func @scatter_bad_axis(%x: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{'tide.scatter' axis -3 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.scatter %x, %i, %u axis = -3 : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  return
}

// -----

// An unknown reduction is a parse error naming the choices.
func.func @scatter_bad_reduction(%x: tensor<3xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{custom op 'tide.scatter' expected string or keyword containing one of the following enum values for attribute 'reduction' [none, add, mul, max, min]}}
  %0 = tide.scatter %x, %i, %u axis = 0 reduction = avg : tensor<3xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// A shape operand has one entry per result dimension.
func.func @reshape_shape_length(%x: tensor<?x64xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'tide.reshape' op expects a shape of 2 entries (one per result dimension) as a tensor<2xi64>, got 'tensor<3xi64>'}}
  %0 = tide.reshape %x, %s : tensor<?x64xf32>, tensor<3xi64> to tensor<?x?xf32>
  return
}

// -----

// ... and is a vector.
func.func @broadcast_to_shape_rank(%x: tensor<f32>, %s: tensor<2x1xi64>) {
  // expected-error @+1 {{'tide.broadcast_to' op expects a shape of 2 entries (one per result dimension) as a tensor<2xi64>, got 'tensor<2x1xi64>'}}
  %0 = tide.broadcast_to %x, %s : tensor<f32>, tensor<2x1xi64> to tensor<?x?xf32>
  return
}

// -----

// Shape operands are i64.
func.func @reshape_shape_i32(%x: tensor<?x64xf32>, %s: tensor<2xi32>) {
  // expected-error @+1 {{'tide.reshape' op operand #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = tide.reshape %x, %s : tensor<?x64xf32>, tensor<2xi32> to tensor<?x?xf32>
  return
}

// -----

// dynamic_slice keeps the rank and the element type.
func.func @dynamic_slice_rank(%x: tensor<?x8xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op result 'tensor<?xf32>' must have the input's rank and element type ('tensor<?x8xf32>')}}
  %0 = tide.dynamic_slice %x, %a, %a strides = [1, 1] : tensor<?x8xf32>, tensor<2xi64> to tensor<?xf32>
  return
}

// -----

// One bound per dimension.
func.func @dynamic_slice_bounds(%x: tensor<?x8xf32>, %a: tensor<3xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op expects start bounds of 2 entries (one per result dimension) as a tensor<2xi64>, got 'tensor<3xi64>'}}
  %0 = tide.dynamic_slice %x, %a, %a strides = [1, 1] : tensor<?x8xf32>, tensor<3xi64> to tensor<?x?xf32>
  return
}

// -----

// One stride per dimension.
func.func @dynamic_slice_strides(%x: tensor<?x8xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op needs one stride per dimension (rank 2), got 1}}
  %0 = tide.dynamic_slice %x, %a, %a strides = [1] : tensor<?x8xf32>, tensor<2xi64> to tensor<?x?xf32>
  return
}

// -----

// Strides are positive.
func.func @dynamic_slice_stride_zero(%x: tensor<?x8xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op stride 0 in dimension 1 must be positive}}
  %0 = tide.dynamic_slice %x, %a, %a strides = [1, 0] : tensor<?x8xf32>, tensor<2xi64> to tensor<?x?xf32>
  return
}

// -----

// A slice is never larger than its input.
func.func @dynamic_slice_too_large(%x: tensor<?x8xf32>, %a: tensor<2xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op result dimension 1 (9) is larger than the input's (8)}}
  %0 = tide.dynamic_slice %x, %a, %a strides = [1, 1] : tensor<?x8xf32>, tensor<2xi64> to tensor<?x9xf32>
  return
}

// -----

// start and limit have one type.
func.func @dynamic_slice_bound_types(%x: tensor<?x8xf32>, %a: tensor<2xi64>, %b: tensor<3xi64>) {
  // expected-error @+1 {{'tide.dynamic_slice' op failed to verify that all of {start, limit} have same type}}
  %0 = "tide.dynamic_slice"(%x, %a, %b) <{strides = array<i64: 1, 1>}> : (tensor<?x8xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dim's axis must exist.
func.func @dim_axis(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'tide.dim' axis 2 is out of range for rank 2 (it must be in [0, rank))}}
  %0 = tide.dim %x axis = 2 : tensor<?x8xf32>
  return
}

// -----

// check's condition is one boolean.
func.func @check_two(%x: tensor<4xf32>, %c: tensor<2xi1>) {
  // expected-error @+1 {{'tide.check' op 'holds' must have exactly one element (got 'tensor<2xi1>')}}
  %0 = tide.check %x, %c, "two" : tensor<4xf32>, tensor<2xi1>
  return
}

// -----

// check passes its input on: the result has its type.
func.func @check_type(%x: tensor<4xf32>, %c: tensor<1xi1>) {
  // expected-error @+1 {{'tide.check' op failed to verify that all of {input, result} have same type}}
  %0 = "tide.check"(%x, %c) {message = "m"} : (tensor<4xf32>, tensor<1xi1>) -> tensor<4xf64>
  return
}

// -----

// iota writes numbers.
func.func @iota_bool(%s: tensor<1xi64>) {
  // expected-error-re @+1 {{'tide.iota' expects {{.*}} but got 'i1'{{.*}}}}
  %0 = tide.iota %s axis = 0 : tensor<1xi64> to tensor<?xi1>
  return
}

// -----

// iota's axis must exist.
func.func @iota_axis(%s: tensor<1xi64>) {
  // expected-error @+1 {{'tide.iota' op axis 1 is out of range for rank 1 (it must be in [0, rank))}}
  %0 = tide.iota %s axis = 1 : tensor<1xi64> to tensor<?xf32>
  return
}

// -----

// One size per result dimension.
func.func @iota_shape(%s: tensor<1xi64>) {
  // expected-error @+1 {{'tide.iota' op expects a shape of 2 entries (one per result dimension) as a tensor<2xi64>, got 'tensor<1xi64>'}}
  %0 = tide.iota %s axis = 1 : tensor<1xi64> to tensor<?x3xf32>
  return
}

// -----

// bitcast needs one width on both sides.
func.func @bitcast_width(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tide.bitcast' op reinterprets 'f32' (32 bits) as 'i64' (64 bits); the widths must match (use 'tide.cast' to convert values)}}
  %0 = tide.bitcast %x : tensor<4xf32> to tensor<4xi64>
  return
}

// -----

// bitcast keeps the shape.
func.func @bitcast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tide.bitcast' op changes the shape from [4] to [2, 2]; 'tide.bitcast' only reinterprets elements}}
  %0 = tide.bitcast %x : tensor<4xf32> to tensor<2x2xi32>
  return
}

// -----

// nonzero: one row per input dimension, a column count known at run time.
func.func @nonzero_rows(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tide.nonzero' op result 'tensor<3x?xi64>' must be tensor<2x?xi64>: one row per input dimension, one column per non-zero element (a count known at run time)}}
  %0 = tide.nonzero %x : tensor<3x4xf32> to tensor<3x?xi64>
  return
}

// -----

func.func @nonzero_static(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tide.nonzero' op result 'tensor<2x5xi64>' must be tensor<2x?xi64>}}
  %0 = tide.nonzero %x : tensor<3x4xf32> to tensor<2x5xi64>
  return
}

// -----

// non_max_suppression: boxes (batch, boxes, 4).
func.func @nms_boxes(%b: tensor<1x5x3xf32>, %s: tensor<1x2x5xf32>, %k: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{'tide.non_max_suppression' op boxes 'tensor<1x5x3xf32>' must be (batch, boxes, 4)}}
  %0 = tide.non_max_suppression %b, %s, %k, %t : tensor<1x5x3xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32> to tensor<?x3xi64>
  return
}

// -----

func.func @nms_count(%b: tensor<1x5x4xf32>, %s: tensor<1x2x6xf32>, %k: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{'tide.non_max_suppression' op boxes 'tensor<1x5x4xf32>' and scores 'tensor<1x2x6xf32>' disagree on the batch or the number of boxes}}
  %0 = tide.non_max_suppression %b, %s, %k, %t : tensor<1x5x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, tensor<1xf32> to tensor<?x3xi64>
  return
}

// -----

func.func @nms_threshold(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %k: tensor<1xi64>, %t: tensor<2xf32>) {
  // expected-error @+1 {{'tide.non_max_suppression' op thresholds must be one-element tensors of 'f32', got 'tensor<2xf32>'}}
  %0 = tide.non_max_suppression %b, %s, %k, %t : tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<2xf32> to tensor<?x3xi64>
  return
}

// -----

func.func @nms_int(%b: tensor<1x5x4xi32>, %s: tensor<1x2x5xi32>, %k: tensor<1xi64>, %t: tensor<1xi32>) {
  // expected-error-re @+1 {{'tide.non_max_suppression' expects {{.*}} but got 'i32'{{.*}}}}
  %0 = tide.non_max_suppression %b, %s, %k, %t : tensor<1x5x4xi32>, tensor<1x2x5xi32>, tensor<1xi64>, tensor<1xi32> to tensor<?x3xi64>
  return
}

// -----

func.func @nms_result(%b: tensor<1x5x4xf32>, %s: tensor<1x2x5xf32>, %k: tensor<1xi64>, %t: tensor<1xf32>) {
  // expected-error @+1 {{'tide.non_max_suppression' op result 'tensor<?x2xi64>' must be tensor<?x3xi64>}}
  %0 = tide.non_max_suppression %b, %s, %k, %t : tensor<1x5x4xf32>, tensor<1x2x5xf32>, tensor<1xi64>, tensor<1xf32> to tensor<?x2xi64>
  return
}

// -----

// top_k: an input of rank 1 or more, a one-element k, the input's shape but
// along the axis, a numeric element type, an axis in range.
func.func @top_k_scalar(%x: tensor<f32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'tide.top_k' op needs an input of rank 1 or more, got 'tensor<f32>'}}
  %0 = tide.top_k %x, %k axis = 0 : tensor<f32>, tensor<1xi64> to tensor<1xi64>
  return
}

// -----

func.func @top_k_k(%x: tensor<4xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{'tide.top_k' op k must be a one-element i64 tensor, got 'tensor<2xi64>'}}
  %0 = tide.top_k %x, %k axis = 0 : tensor<4xf32>, tensor<2xi64> to tensor<2xi64>
  return
}

// -----

func.func @top_k_shape(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'tide.top_k' op result 'tensor<2x2xi64>' must have the shape of the input 'tensor<3x4xf32>' but along axis 1 (k there)}}
  %0 = tide.top_k %x, %k axis = 1 : tensor<3x4xf32>, tensor<1xi64> to tensor<2x2xi64>
  return
}

// -----

func.func @top_k_axis(%x: tensor<3x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'tide.top_k' axis 2 is out of range for a rank-2 tensor; valid axes are [-2, 2)}}
  %0 = tide.top_k %x, %k axis = 2 : tensor<3x4xf32>, tensor<1xi64> to tensor<3x2xi64>
  return
}

// -----

func.func @top_k_bool(%x: tensor<4xi1>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'tide.top_k' expects a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, f16, bf16, f32 or f64) but got 'i1'; convert the i1 operand with 'tide.cast' first}}
  %0 = tide.top_k %x, %k axis = 0 : tensor<4xi1>, tensor<1xi64> to tensor<2xi64>
  return
}

//===----------------------------------------------------------------------===//
// tide.scan
//===----------------------------------------------------------------------===//

// -----

func.func @scan_no_sequence(%h: tensor<4xf32>) {
  // expected-error @+1 {{'tide.scan' op needs at least one sequence (the loop runs over the leading axis of its sequences) or `conditional` (a loop that runs while its first state is true)}}
  %0 = tide.scan inits(%h : tensor<4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<4xf32>):
    tide.yield %s : tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

func.func @scan_conditional_no_state(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op is conditional, so its first state is the condition, a 'tensor<i1>'; it has no state}}
  %0 = tide.scan conditional sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %r: tensor<4xf32>):
    tide.yield %r : tensor<4xf32>
  } : tensor<?x4xf32>
  return
}

// -----

func.func @scan_conditional_state_type(%h: tensor<4xf32>) {
  // expected-error @+1 {{'tide.scan' op is conditional, so its first state is the condition, a 'tensor<i1>'; got 'tensor<4xf32>'}}
  %0 = tide.scan conditional inits(%h : tensor<4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<4xf32>):
    tide.yield %s : tensor<4xf32>
  } : tensor<4xf32>
  return
}

// -----

func.func @scan_conditional_reverse(%c: tensor<i1>, %x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op cannot be both conditional and reverse (a loop that may stop early runs forward)}}
  %0 = tide.scan conditional inits(%c : tensor<i1>) sequences(%x : tensor<?x4xf32>) reverse {
  ^bb0(%t: tensor<i64>, %s: tensor<i1>, %r: tensor<4xf32>):
    tide.yield %s : tensor<i1>
  } : tensor<i1>
  return
}

// -----

func.func @scan_conditional_length(%c: tensor<i1>, %x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tide.scan' op result 1 has type 'tensor<3x4xf32>'; scan output 0 stacks 'tensor<4xf32>' along the steps that ran: 'tensor<?x4xf32>'}}
  %0:2 = tide.scan conditional inits(%c : tensor<i1>) sequences(%x : tensor<3x4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<i1>, %r: tensor<4xf32>):
    tide.yield %s, %r : tensor<i1>, tensor<4xf32>
  } : tensor<i1>, tensor<3x4xf32>
  return
}

// -----

func.func @scan_lengths(%x: tensor<3x4xf32>, %y: tensor<5x4xf32>) {
  // expected-error @+1 {{'tide.scan' op sequence 1 has length 5 where an earlier one has 3; all sequences have one length}}
  %0 = tide.scan sequences(%x, %y : tensor<3x4xf32>, tensor<5x4xf32>) {
  ^bb0(%t: tensor<i64>, %a: tensor<4xf32>, %b: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<3x4xf32>
  return
}

// -----

func.func @scan_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'tide.scan' op sequence 0 has rank 0; a sequence has a leading axis to loop over}}
  %0 = tide.scan sequences(%x : tensor<f32>) {
  ^bb0(%t: tensor<i64>, %a: tensor<f32>):
    tide.yield %a : tensor<f32>
  } : tensor<1xf32>
  return
}

// -----

func.func @scan_state_type(%h: tensor<4xf32>, %x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op result 0 has type 'tensor<4xf64>' but state 0 starts as 'tensor<4xf32>'; a final state has its initial type}}
  %0 = tide.scan inits(%h : tensor<4xf32>) sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<4xf32>, %a: tensor<4xf32>):
    tide.yield %s : tensor<4xf32>
  } : tensor<4xf64>
  return
}

// -----

func.func @scan_args(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op body has 1 arguments; expected 2 (the position, 0 states, 1 slices, 0 invariants)}}
  %0 = tide.scan sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>):
    tide.yield %t : tensor<i64>
  } : tensor<?xi64>
  return
}

// -----

func.func @scan_position(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op body argument 0 (the position) has type 'tensor<i32>'; expected 'tensor<i64>'}}
  %0 = tide.scan sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i32>, %a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<?x4xf32>
  return
}

// -----

func.func @scan_slice(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'tide.scan' op body argument 1 has type 'tensor<5xf32>'; the slice of sequence 0 has type 'tensor<4xf32>'}}
  %0 = tide.scan sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %a: tensor<5xf32>):
    tide.yield %a : tensor<5xf32>
  } : tensor<?x5xf32>
  return
}

// -----

func.func @scan_yield_count(%h: tensor<4xf32>, %x: tensor<?x4xf32>) {
  %0:2 = tide.scan inits(%h : tensor<4xf32>) sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<4xf32>, %a: tensor<4xf32>):
    // expected-error @+1 {{'tide.yield' op yields 1 values; its scan has 1 states and 1 scan outputs}}
    tide.yield %s : tensor<4xf32>
  } : tensor<4xf32>, tensor<?x4xf32>
  return
}

// -----

func.func @scan_yield_state(%h: tensor<4xf32>, %x: tensor<?x4xf32>) {
  %0 = tide.scan inits(%h : tensor<4xf32>) sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %s: tensor<4xf32>, %a: tensor<4xf32>):
    %c = tide.cast %a : tensor<4xf32> to tensor<4xf64>
    // expected-error @+1 {{'tide.yield' op yields 'tensor<4xf64>' for state 0, which has type 'tensor<4xf32>'}}
    tide.yield %c : tensor<4xf64>
  } : tensor<4xf32>
  return
}

// -----

func.func @scan_stacked(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{'tide.scan' op result 0 has type 'tensor<?x4xf32>'; scan output 0 stacks 'tensor<4xf32>' along the sequence's length: 'tensor<3x4xf32>'}}
  %0 = tide.scan sequences(%x : tensor<3x4xf32>) {
  ^bb0(%t: tensor<i64>, %a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<?x4xf32>
  return
}

// -----

func.func @scan_isolated(%x: tensor<?x4xf32>, %b: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tide.scan sequences(%x : tensor<?x4xf32>) {
  ^bb0(%t: tensor<i64>, %a: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %s = tide.add %a, %b : tensor<4xf32>, tensor<4xf32>
    tide.yield %s : tensor<4xf32>
  } : tensor<?x4xf32>
  return
}

// -----

func.func @yield_outside(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tide.yield' op expects parent op to be one of 'tide.scan, tide.if'}}
  tide.yield %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// tide.if
//===----------------------------------------------------------------------===//

// -----

func.func @if_cond_type(%c: tensor<1xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'tide.if' op condition must be a 'tensor<i1>'; got 'tensor<1xi1>'}}
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<1xi1> -> (tensor<4xf32>)
  return
}

// -----

func.func @if_arguments(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'tide.if' op 'else' region has 0 arguments; expected 1 (the invariants)}}
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
    %z = tide.constant dense<0.0> : tensor<4xf32>
    tide.yield %z : tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return
}

// -----

func.func @if_argument_type(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'tide.if' op 'then' region argument 0 has type 'tensor<?xf32>' but invariant 0 has type 'tensor<4xf32>'}}
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<?xf32>):
    tide.yield %a : tensor<?xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<i1> -> (tensor<?xf32>)
  return
}

// -----

func.func @if_yield_count(%c: tensor<i1>, %x: tensor<4xf32>) {
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'tide.yield' op yields 2 values; its tide.if has 1 results}}
    tide.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return
}

// -----

func.func @if_yield_size(%c: tensor<i1>, %x: tensor<4xf32>) {
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    %s = tide.slice %a start = [0] limit = [2] strides = [1] : tensor<4xf32>
    // expected-error @+1 {{'tide.yield' op yields 'tensor<2xf32>' for result 0 of type 'tensor<4xf32>'; a result has the element type and rank of what each region yields, and only sizes both yield equal and static may be static}}
    tide.yield %s : tensor<2xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return
}

// -----

func.func @if_yield_element_type(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xi32>) {
  %0 = tide.if %c invariants(%x, %y : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xi32>):
    tide.yield %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xi32>):
    // expected-error @+1 {{'tide.yield' op yields 'tensor<4xi32>' for result 0 of type 'tensor<?xf32>'}}
    tide.yield %b : tensor<4xi32>
  } : tensor<i1> -> (tensor<?xf32>)
  return
}

// -----

func.func @if_isolated(%c: tensor<i1>, %x: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = tide.if %c {
    // expected-error @+1 {{using value defined outside the region}}
    %e = tide.exp %x : tensor<4xf32>
    tide.yield %e : tensor<4xf32>
  } else {
    tide.yield %x : tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return
}

// -----

func.func @if_no_yield(%c: tensor<i1>, %x: tensor<4xf32>) {
  %0 = tide.if %c invariants(%x : tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator}}
    %e = tide.exp %a : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tide.yield %a : tensor<4xf32>
  } : tensor<i1> -> (tensor<4xf32>)
  return
}
