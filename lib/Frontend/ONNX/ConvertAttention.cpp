//===- ConvertAttention.cpp - ONNX Attention ------------------------------===//
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
// Not imported (a message names each): nonpad_kv_seqlen (opset 24's external
// KV cache), a causal or windowed mask whose sequence lengths are known only
// at run time.
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
  if (n.has(6))
    return n.fail("Attention's nonpad_kv_seqlen (an external KV cache, "
                  "opset 24) is not supported");
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
  if (n.has(4)) {
    Value pk = n.in(4), pv = n.in(5);
    if (rankOf(pk) != 4 || rankOf(pv) != 4)
      return n.fail("past_key and past_value must have rank 4");
    past = shapeOf(pk)[2];
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
    if (rankOf(mask) == 0 || ShapedType::isDynamic(mlen) ||
        ShapedType::isDynamic(kvLen) || mlen > kvLen)
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
  if (causal || window) {
    if (ShapedType::isDynamic(qLen) || ShapedType::isDynamic(kvLen) ||
        ShapedType::isDynamic(past))
      return n.fail("causal or windowed Attention needs the query, key and "
                    "past counts known while importing");
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

} // namespace

void onnx_import::addAttentionConverters(llvm::StringMap<Converter> &table) {
  table["Attention"] = convertAttention;
}
