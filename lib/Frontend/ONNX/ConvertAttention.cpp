//===- ConvertAttention.cpp - ONNX Attention, its caches, LinearAttention -===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// ONNX Attention (opsets 23 and 24), as its function body computes it, in
// tide ops:
//
//   3-D Q/K/V (batch, sequence, heads * head size) are split into heads;
//   past_key/past_value are concatenated in front of K/V (the present
//   outputs); Q and K are each scaled by sqrt(scale) (1/sqrt(head size) by
//   default); K/V heads are repeated for grouped-query attention; the scores
//   Q.K^T are soft-capped (tanh) when asked, the mask (boolean: false is -inf;
//   or additive) and the causal mask (bottom-right aligned: query i of the
//   block sees key j when j <= i + the past length) and opset 25's sliding
//   window (left/right_window_size around i + the past length) added; a softmax
//   over the keys, with rows every key of which is masked set to 0 (not NaN);
//   times V; 3-D results merged back. The qk_matmul_output output (modes 0 to
//   3) follows the reference.
//
// Opset 24's nonpad_kv_seqlen (an external, statically sized KV cache whose
// batch entry b holds nonpad_kv_seqlen[b] valid keys) masks the keys past
// that count and places the causal frontier and the window per batch entry:
// query i sits at position i + nonpad_kv_seqlen[b] - (query count).
//
// TensorScatter (opset 24), the update of such a cache, writes `update` into
// `past_cache` along `axis` from position write_indices[b] of each batch
// entry b (wrapping around in `circular` mode). It is computed as a gather
// rather than a scatter: cache position p of entry b takes update[p - w[b]]
// (mod the cache length when circular) when that index lies in the update,
// else keeps its value.
//
// LinearAttention (opset 27) is a recurrence over the sequence on a state
// (batch, kv heads, key size, value size), unrolled while importing (the
// sequence length must be static): per step the state decays by exp(decay)
// (`gated` rules), the value is corrected by what the state already recalls
// for the key, times beta (`delta` rules), the key's outer product with the
// value is added, and each query reads the state of its key/value head.
// f16/bf16 run in f32, as the reference accumulates; f64 stays f64.
//
// FlexAttention (domain ai.onnx.preview) is attention whose scores and
// probabilities pass through graph attributes (score_mod, prob_mod), imported
// in place as calls on the whole (batch, heads, queries, keys) tensor.
//
// Not imported (a message names each): nonpad_kv_seqlen with past_key (the
// two caches are exclusive), nonpad_kv_seqlen with sequence lengths known
// only at run time. (A causal or windowed frontier with such lengths, as a
// decoder exported with symbolic sequence and past has, is computed from
// positions at run time.)
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

Shape shapeOf(Value v) {
  return Shape(cast<RankedTensorType>(v.getType()).getShape());
}
int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// (batch, seq, heads * size) -> (batch, heads, seq, size).
Value splitHeads(NodeImporter &n, Value x, int64_t heads) {
  SmallVector<SymDim> d = n.dimsOf(x);
  int64_t hidden = shapeOf(x)[2];
  Value r = n.reshapeTo(x, {d[0], d[1], SymDim::constant(heads),
                            SymDim::constant(hidden / heads)});
  return n.create<TransposeOp>(r, ArrayRef<int64_t>{0, 2, 1, 3});
}

/// (batch, heads, kv, size) with each head repeated `reps` times in a row:
/// [h0, h0, h1, h1, ...].
Value repeatHeads(NodeImporter &n, Value x, int64_t reps) {
  if (reps == 1 || !x)
    return x;
  SmallVector<SymDim> d = n.dimsOf(x);
  Value one = n.reshapeTo(x, {d[0], d[1], SymDim::constant(1), d[2], d[3]});
  SmallVector<Value> copies(reps, one);
  Value stacked = n.create<ConcatOp>(copies, 2);
  return n.reshapeTo(
      stacked,
      {d[0], n.combine("Mul", d[1], SymDim::constant(reps)), d[2], d[3]});
}

LogicalResult convertAttention(NodeImporter &n) {
  if (failed(n.checkAttrs({"is_causal", "kv_num_heads", "q_num_heads",
                           "qk_matmul_output_mode", "scale", "softcap",
                           "softmax_precision", "left_window_size",
                           "right_window_size"})))
    return failure();
  if (n.numInputs() < 3 || !n.has(0) || !n.has(1) || !n.has(2))
    return n.fail("Attention needs Q, K and V");
  if (n.has(6) && n.has(4))
    return n.fail("Attention's nonpad_kv_seqlen (an external KV cache) "
                  "cannot be combined with past_key and past_value");
  int64_t left = n.attrInt("left_window_size", -1),
          right = n.attrInt("right_window_size", -1);
  if (left < -1 || right < -1)
    return n.fail("left_window_size and right_window_size must be -1 or "
                  "nonnegative");
  if (n.has(4) != n.has(5))
    return n.fail("past_key and past_value must be given together");
  Value q = n.in(0), k = n.in(1), v = n.in(2);
  Type t = elemOf(q);
  if (!isa<FloatType>(t))
    return n.fail("Attention needs floating-point Q, K and V");
  if (elemOf(k) != t || elemOf(v) != t)
    return n.fail("Attention needs Q, K and V of one element type");
  int64_t rank = rankOf(q);
  if ((rank != 3 && rank != 4) || rankOf(k) != rank || rankOf(v) != rank)
    return n.fail("Attention needs Q, K and V all of rank 3 or all of rank 4");
  int64_t qHeads, kvHeads;
  if (rank == 3) {
    qHeads = n.attrInt("q_num_heads", 0);
    kvHeads = n.attrInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return n.fail("3-D Attention needs positive q_num_heads and "
                    "kv_num_heads");
    int64_t hq = shapeOf(q)[2], hk = shapeOf(k)[2], hv = shapeOf(v)[2];
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hk) ||
        ShapedType::isDynamic(hv) || hq % qHeads || hk % kvHeads ||
        hv % kvHeads)
      return n.fail("3-D Attention needs hidden sizes known while importing "
                    "that split into the heads");
    q = splitHeads(n, q, qHeads);
    k = splitHeads(n, k, kvHeads);
    v = splitHeads(n, v, kvHeads);
    TRY(q && k && v);
  } else {
    qHeads = shapeOf(q)[1];
    kvHeads = shapeOf(k)[1];
    if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
        shapeOf(v)[1] != kvHeads)
      return n.fail("Attention needs head counts known while importing, "
                    "equal for K and V");
  }
  if (qHeads % kvHeads)
    return n.fail("Attention: " + llvm::Twine(qHeads) +
                  " query heads are not a multiple of " + llvm::Twine(kvHeads) +
                  " key/value heads");
  int64_t headSize = shapeOf(q)[3];
  double scale;
  if (n.attr("scale")) {
    scale = n.attrFloat("scale", 1);
  } else {
    if (ShapedType::isDynamic(headSize))
      return n.fail("Attention needs the head size known while importing "
                    "(or a 'scale')");
    scale = 1 / std::sqrt(static_cast<double>(headSize));
  }

  // The KV cache.
  int64_t past = 0;
  SymDim pastDim = SymDim::constant(0);
  if (n.has(4)) {
    Value pk = n.in(4), pv = n.in(5);
    if (rankOf(pk) != 4 || rankOf(pv) != 4)
      return n.fail("past_key and past_value must have rank 4");
    past = shapeOf(pk)[2];
    pastDim = n.dimOf(pk, 2);
    TRY(k = n.create<ConcatOp>(ValueRange{pk, k}, 2));
    TRY(v = n.create<ConcatOp>(ValueRange{pv, v}, 2));
  }
  n.setOut(1, k);
  n.setOut(2, v);

  // Scores, each side scaled by sqrt(scale) as the reference does.
  Value s = n.scalar(t, std::sqrt(scale));
  Value kt = n.create<TransposeOp>(repeatHeads(n, k, qHeads / kvHeads),
                                   ArrayRef<int64_t>{0, 1, 3, 2});
  Value scores =
      n.create<MatmulOp>(n.create<MulOp>(q, s), n.create<MulOp>(kt, s));
  TRY(scores);
  double softcap = n.attrFloat("softcap", 0);
  if (softcap > 0) {
    Value c = n.scalar(t, softcap);
    TRY(scores =
            n.create<MulOp>(n.make<TanhOp>(n.create<DivOp>(scores, c)), c));
  }
  Value softcapped = scores;

  // The additive bias: the mask, then the causal frontier.
  int64_t qLen = shapeOf(q)[2], kvLen = shapeOf(k)[2];
  Value bias;
  double negInf = -std::numeric_limits<double>::infinity();
  if (n.has(3)) {
    Value mask = n.in(3);
    int64_t mlen = rankOf(mask) ? shapeOf(mask).back() : 1;
    // A mask as long as the keys at run time (the same symbolic size).
    bool sameLen =
        rankOf(mask) && n.dimOf(mask, rankOf(mask) - 1) == n.dimOf(k, 2);
    if (sameLen)
      mlen = kvLen;
    if (rankOf(mask) == 0 ||
        (!sameLen &&
         (ShapedType::isDynamic(mlen) || ShapedType::isDynamic(kvLen))) ||
        mlen > kvLen)
      return n.fail("Attention needs a mask whose last dimension is known "
                    "while importing and at most the keys' count");
    if (elemOf(mask).isInteger(1))
      mask = n.create<SelectOp>(mask, n.scalar(t, 0), n.scalar(t, negInf));
    else if (elemOf(mask) != t)
      return n.fail("Attention needs a boolean mask or one of Q's type");
    TRY(mask);
    if (mlen < kvLen) {
      // Keys past the mask are masked.
      Shape padShape = shapeOf(mask);
      padShape.back() = kvLen - mlen;
      if (llvm::any_of(padShape, ShapedType::isDynamic))
        return n.fail("Attention needs a shorter mask's sizes known while "
                      "importing");
      Value pad = n.broadcastTo(n.scalar(t, negInf), padShape);
      TRY(mask = n.create<ConcatOp>(ValueRange{mask, pad}, rankOf(mask) - 1));
    }
    bias = mask;
  }
  bool causal = n.attrInt("is_causal", 0), window = left >= 0 || right >= 0;
  Value seqlen; // nonpad_kv_seqlen as (batch, 1, 1, 1)
  if (n.has(6)) {
    seqlen = n.in(6);
    if (rankOf(seqlen) != 1 || !elemOf(seqlen).isInteger(64))
      return n.fail("Attention's nonpad_kv_seqlen must be a 1-D int64 tensor "
                    "(one count per batch entry)");
    if (ShapedType::isDynamic(qLen) || ShapedType::isDynamic(kvLen))
      return n.fail("Attention with nonpad_kv_seqlen needs the query and "
                    "key counts known while importing");
    SymDim one = SymDim::constant(1);
    TRY(seqlen = n.reshapeTo(seqlen, {n.dimOf(seqlen, 0), one, one, one}));
  }
  // -inf where `allowed` is false, else 0.
  auto biasOf = [&](Value allowed) -> Value {
    return n.create<SelectOp>(allowed, n.scalar(t, 0), n.scalar(t, negInf));
  };
  auto addBias = [&](Value more) -> LogicalResult {
    TRY(more);
    TRY(bias = bias ? n.create<AddOp>(bias, more) : more);
    return success();
  };
  auto i64 = IntegerType::get(n.ctx, 64);
  if (seqlen && (causal || window)) {
    // diff = (i + nonpad_kv_seqlen[b] - qLen) - j, per batch entry.
    SmallVector<int64_t> offsets(qLen * kvLen);
    for (int64_t i = 0; i < qLen; ++i)
      for (int64_t j = 0; j < kvLen; ++j)
        offsets[i * kvLen + j] = i - qLen - j;
    auto type = RankedTensorType::get({1, 1, qLen, kvLen}, i64);
    Value diff = n.create<AddOp>(
        n.constant(DenseElementsAttr::get(type, ArrayRef(offsets))), seqlen);
    TRY(diff);
    if (causal && failed(addBias(biasOf(n.create<CmpOp>(CmpPredicate::ge, diff,
                                                        n.scalar(i64, 0))))))
      return failure();
    if (left >= 0 && failed(addBias(biasOf(n.create<CmpOp>(
                         CmpPredicate::le, diff, n.scalar(i64, left))))))
      return failure();
    if (right >= 0 && failed(addBias(biasOf(n.create<CmpOp>(
                          CmpPredicate::ge, diff, n.scalar(i64, -right))))))
      return failure();
  } else if ((causal || window) &&
             (ShapedType::isDynamic(qLen) || ShapedType::isDynamic(kvLen) ||
              ShapedType::isDynamic(past))) {
    // Sizes known at run time (an exporter's symbolic sequence and past):
    // the same frontier from positions, diff = (i + past) - j.
    SymDim qd = n.dimOf(q, 2), kd = n.dimOf(k, 2), one = SymDim::constant(1);
    auto iota = [&](SymDim len) -> Value {
      Value shape = n.shapeOperand({len});
      return shape ? n.make<IotaOp>(n.typeOf({len}, i64), shape, 0) : Value();
    };
    Value qpos = iota(qd), kpos = iota(kd);
    TRY(qpos && kpos);
    if (!pastDim.isConst(0))
      TRY(qpos = n.create<AddOp>(qpos, n.scalarOf(pastDim)));
    Value diff = n.create<SubOp>(n.reshapeTo(qpos, {qd, one}),
                                 n.reshapeTo(kpos, {one, kd}));
    TRY(diff);
    if (causal && failed(addBias(biasOf(n.create<CmpOp>(CmpPredicate::ge, diff,
                                                        n.scalar(i64, 0))))))
      return failure();
    if (left >= 0 && failed(addBias(biasOf(n.create<CmpOp>(
                         CmpPredicate::le, diff, n.scalar(i64, left))))))
      return failure();
    if (right >= 0 && failed(addBias(biasOf(n.create<CmpOp>(
                          CmpPredicate::ge, diff, n.scalar(i64, -right))))))
      return failure();
  } else if (causal || window) {
    // Query i sits at position i + past; it sees key j when j is not after
    // it (causal) and within the window on each bounded side.
    SmallVector<float> frontier(qLen * kvLen);
    for (int64_t i = 0; i < qLen; ++i)
      for (int64_t j = 0; j < kvLen; ++j) {
        int64_t diff = i + past - j;
        bool seen = (!causal || diff >= 0) && (left < 0 || diff <= left) &&
                    (right < 0 || -diff <= right);
        frontier[i * kvLen + j] =
            seen ? 0.0f : -std::numeric_limits<float>::infinity();
      }
    auto type = RankedTensorType::get({qLen, kvLen}, Float32Type::get(n.ctx));
    Value visible =
        n.cast(n.constant(DenseElementsAttr::get(type, ArrayRef(frontier))), t);
    TRY(visible);
    bias = bias ? n.create<AddOp>(bias, visible) : visible;
    TRY(bias);
  }
  if (seqlen) {
    // Keys at or past nonpad_kv_seqlen[b] are padding.
    SmallVector<int64_t> keys(kvLen);
    for (int64_t j = 0; j < kvLen; ++j)
      keys[j] = j;
    auto type = RankedTensorType::get({1, 1, 1, kvLen}, i64);
    if (failed(addBias(biasOf(n.create<CmpOp>(
            CmpPredicate::lt,
            n.constant(DenseElementsAttr::get(type, ArrayRef(keys))),
            seqlen)))))
      return failure();
  }
  Value withBias = bias ? n.create<AddOp>(scores, bias) : scores;
  TRY(withBias);

  // Softmax over the keys (in softmax_precision when given); rows whose bias
  // masks every key are 0.
  Value logits = withBias;
  if (n.attr("softmax_precision")) {
    Type p = n.attrInt("softmax_precision", 1) == 11
                 ? Type(Float64Type::get(n.ctx))
                 : Type(Float32Type::get(n.ctx));
    if (p.getIntOrFloatBitWidth() > t.getIntOrFloatBitWidth())
      logits = n.cast(logits, p);
  }
  Value probs = n.make<SoftmaxOp>(logits, rankOf(logits) - 1);
  TRY(probs);
  if (bias) {
    Value rowMax = n.create<ReduceMaxOp>(bias, Shape{rankOf(bias) - 1}, true);
    Value allMasked = n.create<CmpOp>(CmpPredicate::eq, rowMax,
                                      n.scalar(elemOf(bias), negInf));
    TRY(probs =
            n.create<SelectOp>(allMasked, n.scalar(elemOf(probs), 0), probs));
  }
  probs = n.cast(probs, t);
  TRY(probs);
  Value y = n.create<MatmulOp>(probs, repeatHeads(n, v, qHeads / kvHeads));
  TRY(y);
  if (rank == 3) {
    SmallVector<SymDim> d = n.dimsOf(y);
    y = n.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1, 3});
    TRY(y = n.reshapeTo(y, {d[0], d[2], n.combine("Mul", d[1], d[3])}));
  }
  n.setOut(0, y);
  if (n.wantsOutput(3)) {
    int64_t mode = n.attrInt("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
      return n.fail("qk_matmul_output_mode must be 0, 1, 2 or 3");
    Value qk = mode == 2 ? withBias : mode == 3 ? probs : softcapped;
    n.setOut(3, n.cast(qk, t));
  }
  return success();
}

LogicalResult convertTensorScatter(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "mode"})))
    return failure();
  if (!n.has(0) || !n.has(1))
    return n.fail("TensorScatter needs past_cache and update");
  Value cache = n.in(0), update = n.in(1);
  std::string mode = n.attrString("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return n.fail("TensorScatter's mode '" + mode +
                  "' is not linear or circular");
  int64_t rank = rankOf(cache);
  if (rankOf(update) != rank || elemOf(update) != elemOf(cache))
    return n.fail("TensorScatter needs past_cache and update of one rank "
                  "and element type");
  FailureOr<int64_t> axis = n.normAxis(n.attrInt("axis", -2), rank);
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return n.fail("TensorScatter's axis must not be the batch axis 0");
  Shape cs = shapeOf(cache), us = shapeOf(update);
  int64_t length = cs[*axis], count = us[*axis];
  if (ShapedType::isDynamic(length) || ShapedType::isDynamic(count))
    return n.fail("TensorScatter needs the cache's and the update's sizes "
                  "along the axis known while importing");
  if (count > length)
    return n.fail("TensorScatter's update has " + Twine(count) +
                  " entries along the axis; the cache holds " + Twine(length));
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && !ShapedType::isDynamic(cs[d]) &&
        !ShapedType::isDynamic(us[d]) && cs[d] != us[d])
      return n.fail("TensorScatter's update differs from past_cache in "
                    "dimension " +
                    Twine(d) + " (" + Twine(us[d]) + " against " +
                    Twine(cs[d]) + ")");
  auto i64 = IntegerType::get(n.ctx, 64);
  SmallVector<SymDim> dims = n.dimsOf(cache);
  // The write position of each batch entry, as (batch, 1, ..., 1).
  SmallVector<SymDim> batchDims(rank, SymDim::constant(1));
  batchDims[0] = dims[0];
  Value start;
  if (n.has(2)) {
    start = n.in(2);
    if (rankOf(start) != 1 || !isa<IntegerType>(elemOf(start)))
      return n.fail("TensorScatter's write_indices must be a 1-D integer "
                    "tensor (one position per batch entry)");
    TRY(start = n.reshapeTo(n.cast(start, i64), batchDims));
  } else {
    start = n.scalar(i64, 0);
  }
  // Source index along the axis for every cache position.
  Shape positionShape(rank, 1);
  positionShape[*axis] = length;
  SmallVector<int64_t> positions(length);
  for (int64_t p = 0; p < length; ++p)
    positions[p] = p;
  Value source = n.create<SubOp>(
      n.constant(DenseElementsAttr::get(
          RankedTensorType::get(positionShape, i64), ArrayRef(positions))),
      start);
  if (mode == "circular")
    source = n.create<ModOp>(source, n.scalar(i64, length));
  TRY(source);
  Value inside =
      n.create<CmpOp>(CmpPredicate::lt, source, n.scalar(i64, count));
  if (mode == "linear")
    inside = n.create<AndOp>(
        inside, n.create<CmpOp>(CmpPredicate::ge, source, n.scalar(i64, 0)));
  TRY(inside);
  // Gather needs indices of the result's shape; out-of-range ones are
  // clamped and not selected.
  SmallVector<SymDim> gatherDims = dims;
  gatherDims[*axis] = SymDim::constant(length);
  Value taken =
      n.create<GatherOp>(update, n.broadcastToDims(source, gatherDims), *axis);
  TRY(taken);
  n.setOut(0, n.create<SelectOp>(inside, taken, cache));
  return success();
}

LogicalResult convertLinearAttention(NodeImporter &n) {
  if (failed(n.checkAttrs({"chunk_size", "kv_num_heads", "q_num_heads", "scale",
                           "update_rule"})))
    return failure();
  if (!n.has(0) || !n.has(1) || !n.has(2))
    return n.fail("LinearAttention needs query, key and value");
  std::string rule = n.attrString("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" &&
      rule != "gated_delta")
    return n.fail("LinearAttention's update_rule '" + rule +
                  "' is not one of linear, gated, delta, gated_delta");
  bool gating = rule == "gated" || rule == "gated_delta";
  bool delta = rule == "delta" || rule == "gated_delta";
  if (gating != n.has(4))
    return n.fail("LinearAttention's update_rule '" + rule + "' " +
                  (gating ? "needs" : "takes no") + " decay input");
  if (delta != n.has(5))
    return n.fail("LinearAttention's update_rule '" + rule + "' " +
                  (delta ? "needs" : "takes no") + " beta input");
  int64_t qHeads = n.attrInt("q_num_heads", 0),
          kvHeads = n.attrInt("kv_num_heads", 0);
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads)
    return n.fail("LinearAttention needs q_num_heads a positive multiple of "
                  "a positive kv_num_heads (got " +
                  Twine(qHeads) + " and " + Twine(kvHeads) + ")");
  Value q = n.in(0), k = n.in(1), v = n.in(2);
  Type t = elemOf(q);
  if (!isa<FloatType>(t) || elemOf(k) != t || elemOf(v) != t)
    return n.fail("LinearAttention needs floating-point query, key and value "
                  "of one type");
  if (rankOf(q) != 3 || rankOf(k) != 3 || rankOf(v) != 3)
    return n.fail("LinearAttention needs query, key and value of rank 3 "
                  "(batch, sequence, heads * size)");
  Shape qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v);
  int64_t steps = qs[1];
  if (ShapedType::isDynamic(steps) || ShapedType::isDynamic(qs[2]) ||
      ShapedType::isDynamic(ks[2]) || ShapedType::isDynamic(vs[2]) ||
      ks[1] != steps || vs[1] != steps)
    return n.fail("LinearAttention needs one sequence length and the hidden "
                  "sizes known while importing (it is unrolled over the "
                  "sequence)");
  if (qs[2] % qHeads || ks[2] % kvHeads || vs[2] % kvHeads ||
      qs[2] / qHeads != ks[2] / kvHeads)
    return n.fail("LinearAttention's hidden sizes (" + Twine(qs[2]) + ", " +
                  Twine(ks[2]) + ", " + Twine(vs[2]) +
                  ") do not split into heads of one key size");
  if (steps > 4096)
    return n.fail("LinearAttention is unrolled over the sequence; " +
                  Twine(steps) + " steps are more than 4096");
  int64_t dk = qs[2] / qHeads, dv = vs[2] / kvHeads;
  Type ct = t.getIntOrFloatBitWidth() < 32 ? Type(Float32Type::get(n.ctx)) : t;
  double scale = n.attrFloat("scale", 0);
  if (scale == 0)
    scale = 1 / std::sqrt(static_cast<double>(dk));

  // (B, H, T, D) in the compute type.
  Value q4 = splitHeads(n, n.cast(q, ct), qHeads);
  Value k4 = splitHeads(n, n.cast(k, ct), kvHeads);
  Value v4 = splitHeads(n, n.cast(v, ct), kvHeads);
  TRY(q4 && k4 && v4);
  SmallVector<SymDim> bd = n.dimsOf(q4);
  SymDim batch = bd[0];
  auto c = [](int64_t v) { return SymDim::constant(v); };
  // (B, T, X) -> (B, H, X / H, T): each step's column, for the state.
  auto perStepColumns = [&](Value x, int64_t heads) -> Value {
    int64_t last = shapeOf(x)[2];
    Value r = n.reshapeTo(x, {batch, c(steps), c(heads), c(last / heads)});
    return n.create<TransposeOp>(r, ArrayRef<int64_t>{0, 2, 3, 1});
  };
  Value decay, beta;
  if (gating) {
    Value g = n.in(4);
    if (rankOf(g) != 3 || shapeOf(g)[1] != steps ||
        (shapeOf(g)[2] != kvHeads && shapeOf(g)[2] != kvHeads * dk))
      return n.fail("LinearAttention's decay must be (batch, " + Twine(steps) +
                    ", " + Twine(kvHeads) + " or " + Twine(kvHeads * dk) + ")");
    // exp(decay) as (B, Hkv, 1 or dk, T).
    TRY(decay = perStepColumns(n.make<ExpOp>(n.cast(g, ct)), kvHeads));
  }
  if (delta) {
    Value b = n.in(5);
    int64_t last = rankOf(b) == 3 ? shapeOf(b)[2] : -1;
    if (rankOf(b) != 3 || shapeOf(b)[1] != steps ||
        (last != kvHeads && last != 1))
      return n.fail("LinearAttention's beta must be (batch, " + Twine(steps) +
                    ", " + Twine(kvHeads) + " or 1)");
    // (B, Hkv or 1, 1, T).
    TRY(beta = perStepColumns(n.cast(b, ct), last));
  }
  Value state;
  Type stateType = t;
  if (n.has(3)) {
    state = n.in(3);
    Shape ss = shapeOf(state);
    stateType = elemOf(state);
    if (rankOf(state) != 4 || !isa<FloatType>(stateType) || ss[1] != kvHeads ||
        ss[2] != dk || ss[3] != dv)
      return n.fail("LinearAttention's past_state must be (batch, " +
                    Twine(kvHeads) + ", " + Twine(dk) + ", " + Twine(dv) +
                    ") of a floating-point type");
    TRY(state = n.cast(state, ct));
  } else {
    TRY(state = n.broadcastToDims(n.scalar(ct, 0),
                                  {batch, c(kvHeads), c(dk), c(dv)}));
  }
  Value kT = n.create<TransposeOp>(k4, ArrayRef<int64_t>{0, 1, 3, 2});
  TRY(kT); // (B, Hkv, dk, T)
  Value scaleV = n.scalar(ct, scale);
  SmallVector<Value> outputs;
  for (int64_t i = 0; i < steps; ++i) {
    Value kRow = sliceAlong(n, k4, 2, i, i + 1); // (B, Hkv, 1, dk)
    Value kCol = sliceAlong(n, kT, 3, i, i + 1); // (B, Hkv, dk, 1)
    Value vRow = sliceAlong(n, v4, 2, i, i + 1); // (B, Hkv, 1, dv)
    Value qRow = sliceAlong(n, q4, 2, i, i + 1); // (B, Hq, 1, dk)
    TRY(kRow && kCol && vRow && qRow);
    if (gating)
      TRY(state = n.create<MulOp>(state, sliceAlong(n, decay, 3, i, i + 1)));
    if (delta) {
      Value recalled = n.create<MatmulOp>(kRow, state); // (B, Hkv, 1, dv)
      TRY(vRow = n.create<MulOp>(sliceAlong(n, beta, 3, i, i + 1),
                                 n.create<SubOp>(vRow, recalled)));
    }
    TRY(state = n.create<AddOp>(state, n.create<MulOp>(kCol, vRow)));
    Value read =
        n.create<MatmulOp>(qRow, repeatHeads(n, state, qHeads / kvHeads));
    TRY(read = n.create<MulOp>(read, scaleV)); // (B, Hq, 1, dv)
    outputs.push_back(read);
  }
  Value y = outputs.size() == 1 ? outputs[0] : n.create<ConcatOp>(outputs, 2);
  TRY(y);
  y = n.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1, 3});
  TRY(y = n.reshapeTo(y, {batch, c(steps), c(qHeads * dv)}));
  n.setOut(0, n.cast(y, t));
  if (n.wantsOutput(1))
    n.setOut(1, n.cast(state, stateType));
  return success();
}

LogicalResult convertFlexAttention(NodeImporter &n) {
  if (failed(n.checkAttrs(
          {"scale", "score_mod", "prob_mod", "softmax_precision"})))
    return failure();
  if (n.numInputs() != 3 || !n.has(0) || !n.has(1) || !n.has(2))
    return n.fail("FlexAttention needs Q, K and V");
  Value q = n.in(0), k = n.in(1), v = n.in(2);
  Type t = elemOf(q);
  if (!isa<FloatType>(t) || elemOf(k) != t || elemOf(v) != t)
    return n.fail("FlexAttention needs floating-point Q, K and V of one type");
  if (rankOf(q) != 4 || rankOf(k) != 4 || rankOf(v) != 4)
    return n.fail("FlexAttention needs Q, K and V of rank 4 (batch, heads, "
                  "sequence, size)");
  Shape qs = shapeOf(q), ks = shapeOf(k), vs = shapeOf(v);
  int64_t qHeads = qs[1], kvHeads = ks[1];
  if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
      vs[1] != kvHeads || kvHeads == 0 || qHeads % kvHeads)
    return n.fail("FlexAttention needs head counts known while importing, "
                  "K's and V's equal, Q's a multiple of them");
  if (ShapedType::isDynamic(qs[3]) && !n.attr("scale"))
    return n.fail("FlexAttention needs the head size known while importing "
                  "(or a 'scale')");
  // Scores in the softmax's type: f32 for f16/bf16 unless asked.
  Type st = t.getIntOrFloatBitWidth() < 32 ? Type(Float32Type::get(n.ctx)) : t;
  if (n.attr("softmax_precision")) {
    int64_t p = n.attrInt("softmax_precision", 1);
    std::string why;
    st = convertElementType(n.ctx, p, why);
    if (!st || !isa<FloatType>(st))
      return n.fail("FlexAttention's softmax_precision must be a floating-"
                    "point type");
  }
  double scale = n.attr("scale") ? n.attrFloat("scale", 1)
                                 : 1 / std::sqrt(static_cast<double>(qs[3]));
  // sqrt(scale) on each side, computed in f32 as the reference does.
  Value s = n.scalar(t, std::sqrt(static_cast<float>(scale)));
  Value kt = n.create<TransposeOp>(repeatHeads(n, k, qHeads / kvHeads),
                                   ArrayRef<int64_t>{0, 1, 3, 2});
  Value scores =
      n.create<MatmulOp>(n.create<MulOp>(q, s), n.create<MulOp>(kt, s));
  TRY(scores = n.cast(scores, st));
  auto apply = [&](StringRef name, Value &x) -> LogicalResult {
    const onnx::AttributeProto *a = n.attr(name);
    if (!a)
      return success();
    if (!a->has_g())
      return n.fail("FlexAttention's " + name + " must be a graph");
    SmallVector<Value> outs;
    if (!n.callGraph || failed(n.callGraph(a->g(), {x}, outs)))
      return failure();
    if (outs.size() != 1)
      return n.fail("FlexAttention's " + name + " must have one output");
    auto type = dyn_cast<RankedTensorType>(outs[0].getType());
    if (!type || type.getRank() != 4 || !isa<FloatType>(type.getElementType()))
      return n.fail("FlexAttention's " + name +
                    " must give a floating-point tensor of rank 4");
    Shape before = shapeOf(x), after(type.getShape());
    for (int64_t d = 0; d < 4; ++d)
      if (!ShapedType::isDynamic(before[d]) &&
          !ShapedType::isDynamic(after[d]) && before[d] != after[d])
        return n.fail("FlexAttention's " + name +
                      " changed the shape of its input");
    TRY(x = n.cast(outs[0], st));
    return success();
  };
  if (failed(apply("score_mod", scores)))
    return failure();
  Value probs = n.make<SoftmaxOp>(scores, 3);
  TRY(probs);
  if (failed(apply("prob_mod", probs)))
    return failure();
  Value y = n.create<MatmulOp>(probs,
                               n.cast(repeatHeads(n, v, qHeads / kvHeads), st));
  TRY(y);
  n.setOut(0, n.cast(y, t));
  return success();
}

/// x * rsqrt(mean(x^2 over the head) + eps) * w, per head (Qwen3's Q/K
/// norms), computed in f32 for f16/bf16.
Value headRmsNorm(NodeImporter &n, Value x, Value w, double eps) {
  Type t = elemOf(x);
  Type c = t.getIntOrFloatBitWidth() < 32 ? Type(Float32Type::get(n.ctx)) : t;
  Value xc = n.cast(x, c);
  Value ms = n.create<ReduceMeanOp>(n.create<MulOp>(xc, xc), Shape{3}, true);
  Value inv =
      ms ? n.make<RsqrtOp>(n.create<AddOp>(ms, n.scalar(c, eps))) : Value();
  Value y = inv ? n.cast(n.create<MulOp>(xc, inv), t) : Value();
  return y ? n.create<MulOp>(y, n.cast(w, t)) : Value();
}

/// com.microsoft GroupQueryAttention, the attention of ONNX Runtime's LLM
/// exports (onnxruntime-genai's model builder, the transformer optimizer):
/// query (B, S, num_heads * d) and key/value (B, S, kv_num_heads * d), or
/// one packed QKV; optional past_key/past_value (B, kv_num_heads, P, d);
/// each query head group shares one key/value head. As ONNX Runtime's
/// separate past and present buffers: batch entry b has past_b =
/// seqlens_k[b] + 1 - S valid past positions (0 for a prompt, where
/// total_sequence_length is S), its new keys and values go at past_b in
/// present_key/present_value (P + S positions, zeros after the entry's
/// own), and its query i sits at position past_b + i: it sees keys up to
/// its own position (unless causal = 0), not those local_window_size or more
/// behind, and none past seqlens_k[b]. With do_rotary the queries and new
/// keys are rotated at those positions (or position_ids) by
/// cos_cache/sin_cache. Also: softcap, smooth_softmax and head_sink (an extra
/// logit per head), attention_bias, the per-head RMS norms of Q and K. The
/// present outputs have P + S positions where ONNX Runtime's have
/// max(P, total_sequence_length) (a size known only from a value); they
/// differ only when no entry fills the past buffer. A buffer shared between
/// past and present (new keys written in place) is not this op's semantics
/// here. Scores and softmax in f32 for f16/bf16.
LogicalResult convertGroupQueryAttention(NodeImporter &n) {
  if (failed(n.checkAttrs(
          {"num_heads", "kv_num_heads", "scale", "softcap", "do_rotary",
           "rotary_interleaved", "local_window_size", "smooth_softmax",
           "qk_output", "causal", "kv_cache_bit_width", "k_quant_type",
           "v_quant_type", "sliding_window_cache", "qk_norm_epsilon"})))
    return failure();
  if (n.attrInt("qk_output", 0) || n.wantsOutput(3))
    return n.fail("GroupQueryAttention's output_qk (qk_output) is not "
                  "supported");
  if (n.attrInt("sliding_window_cache", 0))
    return n.fail("GroupQueryAttention with sliding_window_cache (window-"
                  "sized KV buffers) is not supported");
  if (n.attr("kv_cache_bit_width") || n.has(12) || n.has(13) ||
      n.attrString("k_quant_type", "NONE") != "NONE" ||
      n.attrString("v_quant_type", "NONE") != "NONE")
    return n.fail("GroupQueryAttention with a quantized KV cache is not "
                  "supported");
  int64_t heads = n.attrInt("num_heads", 0),
          kvHeads = n.attrInt("kv_num_heads", 0);
  if (heads <= 0 || kvHeads <= 0 || heads % kvHeads)
    return n.fail("GroupQueryAttention needs positive num_heads and "
                  "kv_num_heads, num_heads a multiple of kv_num_heads (got " +
                  llvm::Twine(heads) + " and " + llvm::Twine(kvHeads) + ")");
  if (!n.has(0) || !n.has(5) || !n.has(6))
    return n.fail("GroupQueryAttention needs query, seqlens_k and "
                  "total_sequence_length");
  Value q = n.in(0);
  TRY(q);
  Type t = elemOf(q);
  if (!isa<FloatType>(t) || rankOf(q) != 3)
    return n.fail("GroupQueryAttention needs a floating-point query of shape "
                  "(batch, sequence, hidden)");
  int64_t hidden = shapeOf(q)[2];
  if (ShapedType::isDynamic(hidden))
    return n.fail("GroupQueryAttention needs the hidden size known while "
                  "importing");
  Value k, v;
  int64_t d;
  if (!n.has(1)) {
    // Packed: (B, S, (num_heads + 2 kv_num_heads) d).
    if (n.has(2) || hidden % (heads + 2 * kvHeads))
      return n.fail("GroupQueryAttention without a key needs a packed QKV "
                    "query of (num_heads + 2 * kv_num_heads) * head_size");
    d = hidden / (heads + 2 * kvHeads);
    k = sliceAlong(n, q, 2, heads * d, (heads + kvHeads) * d);
    v = sliceAlong(n, q, 2, (heads + kvHeads) * d, hidden);
    q = sliceAlong(n, q, 2, 0, heads * d);
    TRY(q && k && v);
  } else {
    if (!n.has(2))
      return n.fail("GroupQueryAttention needs a value with its key");
    k = n.in(1);
    v = n.in(2);
    TRY(k && v);
    if (hidden % heads)
      return n.fail("GroupQueryAttention: num_heads does not divide the "
                    "query's hidden size");
    d = hidden / heads;
    if (rankOf(k) != 3 || rankOf(v) != 3 || elemOf(k) != t || elemOf(v) != t ||
        shapeOf(k)[2] != kvHeads * d || shapeOf(v)[2] != kvHeads * d)
      return n.fail("GroupQueryAttention needs key and value of shape (batch, "
                    "sequence, kv_num_heads * head_size = " +
                    llvm::Twine(kvHeads * d) + ") and the query's type");
  }
  q = splitHeads(n, q, heads);
  k = splitHeads(n, k, kvHeads);
  v = splitHeads(n, v, kvHeads);
  TRY(q && k && v);
  if (n.has(14) != n.has(15))
    return n.fail("GroupQueryAttention needs q_norm_weight and k_norm_weight "
                  "together");
  if (n.has(14)) {
    double eps = n.attrFloat("qk_norm_epsilon", 1e-6);
    TRY(q = headRmsNorm(n, q, n.in(14), eps));
    TRY(k = headRmsNorm(n, k, n.in(15), eps));
  }

  // Each batch entry's past length, as ONNX Runtime takes it: 0 for a
  // prompt (total_sequence_length equal to the query's length), else
  // seqlens_k[b] + 1 - S; query i of entry b sits at position past_b + i.
  if (n.has(3) != n.has(4))
    return n.fail("past_key and past_value must be given together");
  Value pk = n.has(3) ? n.in(3) : Value(), pv = n.has(4) ? n.in(4) : Value();
  if (pk) {
    TRY(pk && pv);
    if (rankOf(pk) != 4 || rankOf(pv) != 4 || elemOf(pk) != t ||
        elemOf(pv) != t)
      return n.fail("GroupQueryAttention needs past_key and past_value of "
                    "shape (batch, kv_num_heads, past, head_size) and the "
                    "query's type");
  }
  Type i64 = IntegerType::get(n.ctx, 64);
  SymDim seq = n.dimOf(q, 2), batch = n.dimOf(q, 0);
  SymDim one = SymDim::constant(1);
  auto iota = [&](SymDim len) -> Value {
    Value shape = n.shapeOperand({len});
    return shape ? n.make<IotaOp>(n.typeOf({len}, i64), shape, 0) : Value();
  };
  Value lens = n.in(5), totalLen = n.in(6);
  TRY(lens && totalLen);
  if (rankOf(lens) != 1 || !elemOf(lens).isInteger())
    return n.fail("GroupQueryAttention's seqlens_k must be a 1-D integer "
                  "tensor (one entry per batch entry)");
  if (rankOf(totalLen) > 1 || !elemOf(totalLen).isInteger())
    return n.fail("GroupQueryAttention's total_sequence_length must be an "
                  "integer scalar");
  lens = n.reshapeTo(n.cast(lens, i64), {batch, one});
  Value seqLen = n.scalarOf(seq);
  Value prompt =
      n.create<CmpOp>(CmpPredicate::eq, n.cast(totalLen, i64), seqLen);
  Value pastLen = n.create<SelectOp>(
      prompt, n.scalar(i64, 0),
      n.create<SubOp>(n.create<AddOp>(lens, n.scalar(i64, 1)), seqLen));
  TRY(lens && pastLen);
  // (B, S) positions of the queries.
  Value qpos = n.create<AddOp>(n.reshapeTo(iota(seq), {one, seq}), pastLen);
  TRY(qpos);
  if (n.attrInt("do_rotary", 0)) {
    if (!n.has(7) || !n.has(8))
      return n.fail("GroupQueryAttention with do_rotary needs cos_cache and "
                    "sin_cache");
    Value cosC = n.in(7), sinC = n.in(8);
    TRY(cosC && sinC);
    if (rankOf(cosC) != 2 || ShapedType::isDynamic(shapeOf(cosC)[1]))
      return n.fail("GroupQueryAttention needs cos_cache of shape "
                    "(max_sequence_length, rotary_dim / 2)");
    Value positions = n.has(9) ? n.cast(n.in(9), i64) : qpos;
    bool interleaved = n.attrInt("rotary_interleaved", 0);
    int64_t rot = 2 * shapeOf(cosC)[1];
    TRY(q = rotaryOf(n, q, cosC, sinC, positions, interleaved, rot, heads));
    TRY(k = rotaryOf(n, k, cosC, sinC, positions, interleaved, rot, kvHeads));
  } else if (n.has(9)) {
    return n.fail("GroupQueryAttention's position_ids need do_rotary");
  }
  // The present state (B, kv heads, P + S, d): entry b's first past_b
  // positions of its past, its new keys or values at past_b, zeros after.
  Value pastCol = n.reshapeTo(pastLen, {batch, one, one, one});
  TRY(pastCol);
  auto present = [&](Value old, Value fresh) -> Value {
    if (!old)
      return fresh; // a prompt without a cache: past_b is 0
    SmallVector<SymDim> fd = n.dimsOf(fresh);
    Value zeros = n.broadcastToDims(n.scalar(t, 0.0), fd);
    Value padded = n.create<ConcatOp>(ValueRange{old, zeros}, 2);
    if (!padded)
      return {};
    SmallVector<SymDim> pd = n.dimsOf(padded);
    Value pos = n.reshapeTo(iota(pd[2]), {one, one, pd[2], one});
    Value src = pos ? n.create<SubOp>(pos, pastCol) : Value();
    if (!src)
      return {};
    Value inside = n.create<AndOp>(
        n.create<CmpOp>(CmpPredicate::ge, src, n.scalar(i64, 0)),
        n.create<CmpOp>(CmpPredicate::lt, src, seqLen));
    Value taken =
        n.create<GatherOp>(fresh, n.broadcastToDims(src, pd), int64_t(2));
    Value kept =
        n.create<SelectOp>(n.create<CmpOp>(CmpPredicate::lt, pos, pastCol),
                           padded, n.scalar(t, 0.0));
    return n.create<SelectOp>(inside, taken, kept);
  };
  TRY(k = present(pk, k));
  TRY(v = present(pv, v));
  n.setOut(1, k);
  n.setOut(2, v);

  // Scores (B, N, S, T) in f32 for f16/bf16.
  Type c = t.getIntOrFloatBitWidth() < 32 ? Type(Float32Type::get(n.ctx)) : t;
  double scale = n.attrFloat("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(static_cast<double>(d));
  Value kt = n.create<TransposeOp>(repeatHeads(n, k, heads / kvHeads),
                                   ArrayRef<int64_t>{0, 1, 3, 2});
  Value scores = n.cast(n.create<MatmulOp>(q, kt), c);
  TRY(scores);
  TRY(scores = n.create<MulOp>(scores, n.scalar(c, scale)));
  double softcap = n.attrFloat("softcap", 0);
  if (softcap > 0) {
    Value cap = n.scalar(c, softcap);
    TRY(scores =
            n.create<MulOp>(n.make<TanhOp>(n.create<DivOp>(scores, cap)), cap));
  }
  if (n.has(10)) {
    Value bias = n.in(10);
    TRY(bias);
    if (rankOf(bias) != 4)
      return n.fail("GroupQueryAttention's attention_bias must be (batch or "
                    "1, num_heads or 1, sequence, total sequence)");
    TRY(scores = n.create<AddOp>(scores, n.cast(bias, c)));
  }
  // Hidden keys: past seqlens_k[b], after the query (causal), or
  // local_window_size or more behind it.
  SymDim total = n.dimOf(k, 2);
  Value kpos = n.reshapeTo(iota(total), {one, one, one, total});
  Value qcol = n.reshapeTo(qpos, {batch, one, seq, one});
  Value lensCol = n.reshapeTo(lens, {batch, one, one, one});
  TRY(kpos && qcol && lensCol);
  Value hide = n.create<CmpOp>(CmpPredicate::gt, kpos, lensCol);
  if (n.attrInt("causal", 1))
    TRY(hide = n.create<OrOp>(hide,
                              n.create<CmpOp>(CmpPredicate::gt, kpos, qcol)));
  int64_t window = n.attrInt("local_window_size", -1);
  if (window > 0)
    TRY(hide = n.create<OrOp>(hide, n.create<CmpOp>(CmpPredicate::ge,
                                                    n.create<SubOp>(qcol, kpos),
                                                    n.scalar(i64, window))));
  TRY(hide);
  TRY(scores = n.create<SelectOp>(
          hide, n.scalar(c, -std::numeric_limits<double>::infinity()), scores));

  // Softmax over the keys; smooth_softmax or head_sink add one more logit
  // (0, or the head's sink) to each row's denominator.
  Value probs;
  bool smooth = n.attrInt("smooth_softmax", 0);
  if (smooth || n.has(11)) {
    SmallVector<SymDim> sd = n.dimsOf(scores);
    Value sink = n.has(11)
                     ? n.reshapeTo(n.cast(n.in(11), c),
                                   {one, SymDim::constant(heads), one, one})
                     : n.scalar(c, 0.0);
    Value column = n.broadcastToDims(sink, {sd[0], sd[1], sd[2], one});
    Value wide = n.create<ConcatOp>(ValueRange{scores, column}, 3);
    Value all = n.make<SoftmaxOp>(wide, 3);
    TRY(all);
    SmallVector<SymDim> wd = n.dimsOf(all);
    if (!wd[3].isConst())
      return n.fail("GroupQueryAttention with smooth_softmax or head_sink "
                    "needs the total sequence length known while importing");
    probs = sliceAlong(n, all, 3, 0, wd[3].value - 1);
  } else {
    probs = n.make<SoftmaxOp>(scores, 3);
  }
  // A row whose every key is hidden (a padded query row behind a short
  // window) is 0, as in ONNX Runtime, not the NaN of a softmax of -inf.
  Value rowMax = n.create<ReduceMaxOp>(scores, Shape{3}, true);
  Value allHidden =
      n.create<CmpOp>(CmpPredicate::eq, rowMax,
                      n.scalar(c, -std::numeric_limits<double>::infinity()));
  TRY(allHidden);
  TRY(probs = n.create<SelectOp>(allHidden, n.scalar(elemOf(probs), 0), probs));
  probs = n.cast(probs, t);
  TRY(probs);
  Value y = n.create<MatmulOp>(probs, repeatHeads(n, v, heads / kvHeads));
  TRY(y);
  y = n.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1, 3});
  TRY(y = n.reshapeTo(y, {batch, seq, SymDim::constant(heads * d)}));
  n.setOut(0, y);
  return success();
}

} // namespace

void onnx_import::addAttentionConverters(llvm::StringMap<Converter> &table) {
  table["Attention"] = convertAttention;
  table["TensorScatter"] = convertTensorScatter;
  table["LinearAttention"] = convertLinearAttention;
  // Preview-domain ops are keyed "<domain>:<op type>".
  table["ai.onnx.preview:FlexAttention"] = convertFlexAttention;
  // ONNX Runtime's contrib op, keyed as the others of its domain.
  table["com.microsoft:GroupQueryAttention"] = convertGroupQueryAttention;
}
