//===- ConvertContrib.cpp - ONNX Runtime's contrib ops (com.microsoft) ----===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The ops of ONNX Runtime's `com.microsoft` domain that its transformer
// optimizer (onnxruntime.transformers.optimizer) and its 4-bit weight
// quantizer (MatMulNBitsQuantizer) write into models people then share, as
// decompositions into tide ops with ONNX Runtime's semantics (checked
// against ONNX Runtime in test/Frontend/ONNX/contrib.test):
//
// - Gelu, BiasGelu (erf form), FastGelu (tanh form, optional bias),
//   QuickGelu (x * sigmoid(alpha x)), BiasAdd (x + bias + skip);
// - FusedMatMul: alpha * op(A) op(B), op a transpose of the last two axes;
// - SkipLayerNormalization, SkipSimplifiedLayerNormalization: a layer (or
//   RMS) normalization over the last axis of input + skip (+ bias), with the
//   sum as an optional output; SimplifiedLayerNormalization (RMS);
// - EmbedLayerNormalization: word, position and segment embeddings added and
//   layer-normalized; Attention (packed Q/K/V weights) and
//   MultiHeadAttention, with key masks, causal masking and attention bias;
// - RotaryEmbedding: ONNX's (opset 23) with ONNX Runtime's input order and
//   its position offset form; QuantizeLinear and DequantizeLinear, the
//   default domain's; FusedConv and FusedGemm, a Conv (+ Add) or Gemm and
//   its activation;
// - MatMulNBits: A times the transpose of B, B block-quantized to 2, 4 or 8
//   bits along K (codes packed low bits first, a scale and an optional zero
//   point per block, 2^(bits - 1) without). B and its parameters are
//   initializers in the models the quantizer writes; they are dequantized
//   while importing into a constant K x N weight of A's type, so the product
//   is an ordinary tide.matmul (cuBLAS, oneDNN).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <limits>

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
SmallVector<int64_t> shapeOf(Value v) {
  return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
}

Value sc(NodeImporter &n, Value like, double v) {
  return n.scalar(elemOf(like), v);
}

LogicalResult floatInput(NodeImporter &n, unsigned i) {
  if (!n.has(i) || !n.in(i))
    return n.fail("needs input " + llvm::Twine(i));
  if (!isa<FloatType>(elemOf(n.in(i))))
    return n.fail("input " + llvm::Twine(i) + " must be a float tensor");
  return success();
}

LogicalResult setOut(NodeImporter &n, Value v) {
  if (!v)
    return failure();
  n.setOut(0, v);
  return success();
}

LogicalResult convertGelu(NodeImporter &n) {
  if (failed(n.checkAttrs({})) || failed(floatInput(n, 0)))
    return failure();
  return setOut(n, geluOf(n, n.in(0), /*tanhForm=*/false));
}

LogicalResult convertBiasGelu(NodeImporter &n) {
  if (failed(n.checkAttrs({})) || failed(floatInput(n, 0)) ||
      failed(floatInput(n, 1)))
    return failure();
  return setOut(n, geluOf(n, n.create<AddOp>(n.in(0), n.in(1)), false));
}

LogicalResult convertFastGelu(NodeImporter &n) {
  if (failed(n.checkAttrs({})) || failed(floatInput(n, 0)))
    return failure();
  Value x = n.in(0);
  if (n.has(1))
    TRY(x = n.create<AddOp>(x, n.in(1)));
  return setOut(n, geluOf(n, x, /*tanhForm=*/true));
}

LogicalResult convertQuickGelu(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha"})) || failed(floatInput(n, 0)))
    return failure();
  double alpha = n.attrFloat("alpha", 1.702);
  return setOut(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
                  Value s =
                      n.make<SigmoidOp>(n.create<MulOp>(x, sc(n, x, alpha)));
                  return s ? n.create<MulOp>(x, s) : Value();
                }));
}

LogicalResult convertBiasAdd(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(floatInput(n, i)))
      return failure();
  return setOut(n, n.create<AddOp>(n.create<AddOp>(n.in(0), n.in(1)), n.in(2)));
}

/// The last two axes of `v` swapped.
Value swapLast(NodeImporter &n, Value v) {
  int64_t r = rankOf(v);
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i);
  std::swap(perm[r - 1], perm[r - 2]);
  return n.create<TransposeOp>(v, perm);
}

LogicalResult convertFusedMatMul(NodeImporter &n) {
  if (failed(n.checkAttrs(
          {"alpha", "transA", "transB", "transBatchA", "transBatchB"})) ||
      failed(floatInput(n, 0)) || failed(floatInput(n, 1)))
    return failure();
  if (n.attrInt("transBatchA", 0) || n.attrInt("transBatchB", 0))
    return n.fail("FusedMatMul with transBatchA or transBatchB is not "
                  "supported");
  Value a = n.in(0), b = n.in(1);
  if (rankOf(a) < 2 || rankOf(b) < 2)
    return n.fail("FusedMatMul needs operands of rank 2 or more");
  if (n.attrInt("transA", 0))
    TRY(a = swapLast(n, a));
  if (n.attrInt("transB", 0))
    TRY(b = swapLast(n, b));
  Value y = n.create<MatmulOp>(a, b);
  TRY(y);
  double alpha = n.attrFloat("alpha", 1.0);
  if (alpha != 1.0)
    TRY(y = n.create<MulOp>(y, sc(n, y, alpha)));
  return setOut(n, y);
}

/// SkipLayerNormalization and SkipSimplifiedLayerNormalization: the sum
/// input + skip (+ bias) normalized over the last axis (LayerNormalization,
/// or RMS with `simplified`), in f32 for f16, times gamma (+ beta). Outputs:
/// the result, the mean and 1/std (optional), the sum (optional, output 3).
LogicalResult convertSkipNorm(NodeImporter &n, bool simplified) {
  if (failed(n.checkAttrs({"epsilon"})) || failed(floatInput(n, 0)) ||
      failed(floatInput(n, 1)) || failed(floatInput(n, 2)))
    return failure();
  unsigned biasInput = simplified ? 3 : 4;
  Value x = n.create<AddOp>(n.in(0), n.in(1));
  if (n.has(biasInput))
    TRY(x = x ? n.create<AddOp>(x, n.in(biasInput)) : Value());
  TRY(x);
  Type t = elemOf(x);
  int64_t rank = rankOf(x);
  if (rank < 1)
    return n.fail("needs an input of rank 1 or more");
  double eps = n.attrFloat("epsilon", 1e-12);
  Type compute = normComputeType(n, t);
  Value xc = n.cast(x, compute);
  SmallVector<int64_t> axes{rank - 1};
  Value y, mean, invStd;
  if (simplified) {
    Value ms = n.create<ReduceMeanOp>(n.create<MulOp>(xc, xc), axes, true);
    TRY(ms);
    invStd = n.make<RsqrtOp>(n.create<AddOp>(ms, sc(n, ms, eps)));
    TRY(invStd);
    y = n.create<MulOp>(xc, invStd);
  } else {
    y = normalizeOver(n, xc, axes, eps, &mean, &invStd);
  }
  TRY(y);
  TRY(y = n.create<MulOp>(n.cast(y, t), n.in(2)));
  if (!simplified && n.has(3))
    TRY(y = n.create<AddOp>(y, n.in(3)));
  n.setOut(0, y);
  if (n.wantsOutput(1)) {
    if (!mean)
      return n.fail("SkipSimplifiedLayerNormalization has no mean output");
    n.setOut(1, mean);
  }
  if (n.wantsOutput(2))
    n.setOut(2, invStd);
  if (n.wantsOutput(3))
    n.setOut(3, x);
  return success();
}

LogicalResult convertSkipLayerNorm(NodeImporter &n) {
  return convertSkipNorm(n, /*simplified=*/false);
}
LogicalResult convertSkipSimplifiedLayerNorm(NodeImporter &n) {
  return convertSkipNorm(n, /*simplified=*/true);
}

/// SimplifiedLayerNormalization: x / sqrt(mean(x^2 over axis..) + epsilon)
/// * scale in the stash type; output 1 is 1/std.
LogicalResult convertSimplifiedLayerNorm(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "epsilon", "stash_type"})) ||
      failed(floatInput(n, 0)) || failed(floatInput(n, 1)))
    return failure();
  Value x = n.in(0);
  Type t = elemOf(x);
  int64_t rank = rankOf(x);
  auto axis = n.normAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes;
  for (int64_t i = *axis; i < rank; ++i)
    axes.push_back(i);
  Value xc = n.cast(x, normComputeType(n, t));
  TRY(xc);
  Value ms = n.create<ReduceMeanOp>(n.create<MulOp>(xc, xc), axes, true);
  TRY(ms);
  Value inv = n.make<RsqrtOp>(
      n.create<AddOp>(ms, sc(n, ms, n.attrFloat("epsilon", 1e-5))));
  TRY(inv);
  Value y = n.cast(n.create<MulOp>(xc, inv), t);
  TRY(y);
  TRY(y = n.create<MulOp>(y, n.in(1)));
  n.setOut(0, y);
  if (n.wantsOutput(1))
    n.setOut(1, inv);
  return success();
}

/// The bytes of a constant (a dense attribute or a blob); none if neither.
std::optional<ArrayRef<char>> rawBytes(ElementsAttr attr,
                                       std::vector<char> &splat) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (!dense.isSplat())
      return dense.getRawData();
    ArrayRef<char> one = dense.getRawData();
    int64_t count = dense.getNumElements();
    for (int64_t i = 0; i < count; ++i)
      splat.insert(splat.end(), one.begin(), one.end());
    return ArrayRef<char>(splat);
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (resource.getRawHandle().getBlob())
      return resource.getRawHandle().getBlob()->getData();
  return std::nullopt;
}

/// MatMulNBits: Y = A B^T (+ bias), B (N, k_blocks, blob) of `bits`-bit
/// codes, dequantized while importing.
LogicalResult convertMatMulNBits(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"K", "N", "bits", "block_size", "accuracy_level"})) ||
      failed(floatInput(n, 0)))
    return failure();
  if (!n.attr("K") || !n.attr("N") || !n.attr("block_size"))
    return n.fail("MatMulNBits needs the attributes K, N and block_size");
  int64_t k = n.attrInt("K", 0), cols = n.attrInt("N", 0),
          bits = n.attrInt("bits", 4), block = n.attrInt("block_size", 0);
  if (bits != 2 && bits != 4 && bits != 8)
    return n.fail("MatMulNBits with bits = " + llvm::Twine(bits) +
                  " is not supported (2, 4 or 8)");
  if (k <= 0 || cols <= 0 || block < 16 || (block & (block - 1)))
    return n.fail("MatMulNBits needs positive K and N and a block_size that "
                  "is a power of two, 16 or more");
  if (n.has(4))
    return n.fail("MatMulNBits with g_idx (act-order) is not supported");
  Value a = n.in(0);
  Type t = elemOf(a);
  auto aShape = shapeOf(a);
  if (aShape.empty() || aShape.back() != k)
    return n.fail("input A's last dimension must be K = " + llvm::Twine(k));
  int64_t blocks = (k + block - 1) / block, blob = block * bits / 8;
  auto bAttr = n.constIn(1), sAttr = n.constIn(2);
  if (!bAttr || !sAttr)
    return n.fail("MatMulNBits needs B and its scales as initializers "
                  "(they are dequantized while importing)");
  auto bType = cast<RankedTensorType>(bAttr->getShapedType());
  if (!bType.getElementType().isUnsignedInteger(8) ||
      bType.getNumElements() != cols * blocks * blob)
    return n.fail("B must be uint8 with N x ceil(K / block_size) x "
                  "block_size * bits / 8 = " +
                  llvm::Twine(cols * blocks * blob) + " elements");
  std::vector<char> splatB;
  auto bBytes = rawBytes(*bAttr, splatB);
  auto scales = readHostValues(*sAttr, int64_t(1) << 30);
  if (!bBytes || !scales || scales->size() != cols * blocks ||
      !scales->isFloat())
    return n.fail("the scales must be floats, N x ceil(K / block_size) = " +
                  llvm::Twine(cols * blocks) + " of them");
  // Zero points: none (2^(bits - 1)), packed uint8 codes or floats.
  std::vector<double> zero(cols * blocks, std::ldexp(1.0, bits - 1));
  if (n.has(3)) {
    auto zAttr = n.constIn(3);
    auto z = zAttr ? readHostValues(*zAttr, int64_t(1) << 30) : std::nullopt;
    if (!z)
      return n.fail("MatMulNBits needs its zero points as an initializer");
    if (z->isFloat()) {
      if (z->size() != cols * blocks)
        return n.fail("float zero points must be N x ceil(K / block_size)");
      zero = z->floats;
    } else {
      int64_t perByte = 8 / bits, rowBytes = (blocks + perByte - 1) / perByte;
      if (z->size() != cols * rowBytes)
        return n.fail("packed zero points must be N x ceil(ceil(K / "
                      "block_size) * bits / 8) = " +
                      llvm::Twine(cols * rowBytes) + " bytes");
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t j = 0; j < blocks; ++j) {
          uint64_t byte =
              static_cast<uint8_t>(z->ints[c * rowBytes + j / perByte]);
          zero[c * blocks + j] = static_cast<double>(
              (byte >> (bits * (j % perByte))) & ((1u << bits) - 1));
        }
    }
  }
  if (overComputedLimit(k, cols))
    return n.fail("MatMulNBits's dequantized weight (" + llvm::Twine(k) +
                  " x " + llvm::Twine(cols) + ") is too large");
  // W^T: K x N in A's type, from codes packed low bits first along K.
  ArrayRef<char> packed = *bBytes;
  int64_t perByte = 8 / bits;
  auto type = RankedTensorType::get({k, cols}, t);
  int64_t width = t.getIntOrFloatBitWidth() / 8;
  std::vector<char> out(k * cols * width);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t i = 0; i < k; ++i) {
      int64_t j = i / block, at = i % block;
      uint64_t byte =
          static_cast<uint8_t>(packed[(c * blocks + j) * blob + at / perByte]);
      double code = (byte >> (bits * (at % perByte))) & ((1u << bits) - 1);
      double w = (code - zero[c * blocks + j]) * scales->floats[c * blocks + j];
      char *p = out.data() + (i * cols + c) * width;
      if (t.isF32()) {
        float f = static_cast<float>(w);
        std::memcpy(p, &f, 4);
      } else if (t.isF64()) {
        std::memcpy(p, &w, 8);
      } else {
        llvm::APFloat v(w);
        bool lost;
        v.convert(cast<FloatType>(t).getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        uint16_t bitsOut = v.bitcastToAPInt().getZExtValue();
        std::memcpy(p, &bitsOut, 2);
      }
    }
  ArrayRef<char> bytes(out.data(), out.size());
  ElementsAttr weight;
  if (k * cols <= 64)
    weight = DenseElementsAttr::getFromRawBuffer(type, bytes);
  else
    weight = DenseResourceElementsAttr::get(
        type, "matmulnbits_weight",
        HeapAsmResourceBlob::allocateAndCopyInferAlign(bytes));
  Value w = n.make<ConstantOp>(type, weight);
  Value y = n.create<MatmulOp>(a, w);
  TRY(y);
  if (n.has(5))
    TRY(y = n.create<AddOp>(y, n.in(5)));
  return setOut(n, y);
}

/// Multi-head attention of projected q (B, S, heads * d), k (B, L, heads *
/// d) and v (B, L, heads * dv): softmax(q k^T * scale + mask) v with the
/// heads merged back, (B, S, heads * dv). `keyMask` (B, L) of i1, true for
/// keys to hide, and `causal` add `filter` (ONNX Runtime's
/// mask_filter_value) to the scores they hide; `bias` (broadcasting to
/// (B, heads, S, L)) is added as it is. `pastLength` is the number of keys
/// before the first query's (a past state's length, else 0).
Value attend(NodeImporter &n, Value q, Value k, Value v, int64_t heads,
             double scale, Value keyMask, bool causal, Value bias,
             double filter, int64_t pastLength) {
  SmallVector<SymDim> qd = n.dimsOf(q), kd = n.dimsOf(k), vd = n.dimsOf(v);
  int64_t hq = shapeOf(q)[2], hv = shapeOf(v)[2];
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hv) || hq % heads ||
      hv % heads || shapeOf(k)[2] != hq) {
    n.error() << "the hidden sizes (" << hq << ", " << shapeOf(k)[2] << ", "
              << hv << ") must be static, equal for Q and K and divisible by "
              << "num_heads = " << heads;
    return {};
  }
  int64_t d = hq / heads, dv = hv / heads;
  auto split = [&](Value x, ArrayRef<SymDim> dims, int64_t size,
                   ArrayRef<int64_t> perm) {
    Value r = n.reshapeTo(
        x, {dims[0], dims[1], SymDim::constant(heads), SymDim::constant(size)});
    return r ? n.create<TransposeOp>(r, perm) : Value();
  };
  Value qh = split(q, qd, d, {0, 2, 1, 3});  // (B, N, S, d)
  Value kt = split(k, kd, d, {0, 2, 3, 1});  // (B, N, d, L)
  Value vh = split(v, vd, dv, {0, 2, 1, 3}); // (B, N, L, dv)
  if (!qh || !kt || !vh)
    return {};
  Value scores = n.create<MatmulOp>(qh, kt);
  if (!scores)
    return {};
  scores = n.create<MulOp>(scores, sc(n, scores, scale));
  if (scores && bias)
    scores = n.create<AddOp>(scores, n.cast(bias, elemOf(scores)));
  if (!scores)
    return {};
  if (keyMask) {
    Value hide = n.reshapeTo(
        keyMask, {kd[0], SymDim::constant(1), SymDim::constant(1), kd[1]});
    scores =
        n.create<AddOp>(scores, n.create<SelectOp>(hide, sc(n, scores, filter),
                                                   sc(n, scores, 0.0)));
  }
  if (causal) {
    int64_t sq = shapeOf(q)[1], sk = shapeOf(k)[1];
    if (ShapedType::isDynamic(sq) || ShapedType::isDynamic(sk) ||
        ShapedType::isDynamic(pastLength)) {
      n.error() << "unidirectional attention needs static sequence lengths";
      return {};
    }
    // ONNX Runtime's rule: query i sees key j <= past + i, except the last
    // query, which sees every key (the same where the keys are the past and
    // the queries' own, as in self-attention); a key it hides gets the
    // type's lowest value, not mask_filter_value.
    SmallVector<bool> future;
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < sk; ++j)
        future.push_back(i < sq - 1 && j > pastLength + i);
    auto type = RankedTensorType::get({sq, sk}, IntegerType::get(n.ctx, 1));
    Value hide = n.constant(DenseElementsAttr::get(type, future));
    Type e = elemOf(scores);
    double lowest = e.isF16()    ? -65504.0
                    : e.isBF16() ? -3.3895313892515355e38
                    : e.isF64()  ? std::numeric_limits<double>::lowest()
                                 : std::numeric_limits<float>::lowest();
    scores = n.create<SelectOp>(hide, sc(n, scores, lowest), scores);
  }
  if (!scores)
    return {};
  Value probs = n.make<SoftmaxOp>(scores, 3);
  Value o = probs ? n.create<MatmulOp>(probs, vh) : Value();
  o = o ? n.create<TransposeOp>(o, ArrayRef<int64_t>{0, 2, 1, 3}) : Value();
  return o ? n.reshapeTo(o, {qd[0], qd[1], SymDim::constant(heads * dv)})
           : Value();
}

/// ONNX Runtime's key masks: `mask` (B, L) of 0/1 (0 hides; any integer
/// type), or (B) valid lengths (keys from the length on are hidden). True
/// where a key is hidden.
FailureOr<Value> keyMaskOf(NodeImporter &n, Value mask, Value k) {
  if (!mask)
    return Value();
  int64_t r = rankOf(mask);
  Type i64 = IntegerType::get(n.ctx, 64);
  if (r == 2) // (ONNX Runtime keeps the keys whose entry is above 0.)
    return n.create<CmpOp>(CmpPredicate::le, n.cast(mask, i64),
                           n.scalar(i64, 0));
  if (r == 1) {
    SmallVector<SymDim> kd = n.dimsOf(k);
    Value shape = n.shapeOperand({kd[1]});
    Value pos =
        shape ? n.make<IotaOp>(n.typeOf({kd[1]}, i64), shape, 0) : Value();
    Value lens = n.reshapeTo(n.cast(mask, i64), {kd[0], SymDim::constant(1)});
    if (!pos || !lens)
      return failure();
    return n.create<CmpOp>(CmpPredicate::ge, pos, lens);
  }
  n.error() << "the key mask must be (batch, keys) or (batch) valid lengths "
               "(got rank "
            << r << "); other forms are not supported";
  return failure();
}

/// The new keys or values `x` (B, L, heads * d) after a past state `past`
/// (B, heads, P, d; none: P = 0): the present state (B, heads, P + L, d) and
/// the whole sequence as attend() takes it, (B, P + L, heads * d).
std::pair<Value, Value> appendPast(NodeImporter &n, Value past, Value x,
                                   int64_t heads) {
  SmallVector<SymDim> xd = n.dimsOf(x);
  int64_t hidden = shapeOf(x)[2];
  if (ShapedType::isDynamic(hidden) || hidden % heads) {
    n.error() << "the hidden size " << hidden
              << " must be static and divisible by num_heads = " << heads;
    return {};
  }
  SymDim h = SymDim::constant(heads), d = SymDim::constant(hidden / heads);
  Value x4 = n.reshapeTo(x, {xd[0], xd[1], h, d});
  Value present =
      x4 ? n.create<TransposeOp>(x4, ArrayRef<int64_t>{0, 2, 1, 3}) : Value();
  if (present && past) {
    if (rankOf(past) != 4 || shapeOf(past)[1] != heads ||
        shapeOf(past)[3] != hidden / heads || elemOf(past) != elemOf(x)) {
      n.error() << "the past state must be (batch, num_heads = " << heads
                << ", past, head size = " << hidden / heads
                << ") of the input's type";
      return {};
    }
    present = n.create<ConcatOp>(ValueRange{past, present}, 2);
  }
  if (!present)
    return {};
  SymDim total = n.dimOf(present, 2);
  Value back = n.create<TransposeOp>(present, ArrayRef<int64_t>{0, 2, 1, 3});
  Value flat = back
                   ? n.reshapeTo(back, {xd[0], total, SymDim::constant(hidden)})
                   : Value();
  if (!flat)
    return {};
  return {present, flat};
}

/// com.microsoft Attention: input (B, S, hidden) times the packed Q/K/V
/// weights (hidden, 3 * hidden) plus bias, then multi-head attention.
LogicalResult convertContribAttention(NodeImporter &n) {
  if (failed(n.checkAttrs({"num_heads", "unidirectional", "scale",
                           "mask_filter_value", "qkv_hidden_sizes", "do_rotary",
                           "past_present_share_buffer"})) ||
      failed(floatInput(n, 0)) || failed(floatInput(n, 1)))
    return failure();
  if (n.has(6) || n.attrInt("past_present_share_buffer", 0))
    return n.fail("Attention with a shared past/present buffer "
                  "(past_sequence_length, past_present_share_buffer) is not "
                  "supported");
  if (n.attrInt("do_rotary", 0))
    return n.fail("Attention with do_rotary is not supported");
  int64_t heads = n.attrInt("num_heads", 0);
  if (heads <= 0)
    return n.fail("Attention needs a positive num_heads");
  Value x = n.in(0), w = n.in(1);
  if (rankOf(x) != 3 || rankOf(w) != 2)
    return n.fail("Attention needs input (batch, sequence, hidden) and "
                  "weights (hidden, 3 * hidden)");
  int64_t total = shapeOf(w)[1];
  SmallVector<int64_t> sizes;
  if (auto qkv = n.attrInts("qkv_hidden_sizes")) {
    sizes.assign(qkv->begin(), qkv->end());
  } else if (!ShapedType::isDynamic(total) && total % 3 == 0) {
    sizes.assign(3, total / 3);
  }
  if (sizes.size() != 3 || sizes[0] + sizes[1] + sizes[2] != total)
    return n.fail("the weights' " + llvm::Twine(total) +
                  " columns must split into Q, K and V (qkv_hidden_sizes)");
  Value qkv = n.create<MatmulOp>(x, w);
  if (n.has(2))
    TRY(qkv = qkv ? n.create<AddOp>(qkv, n.in(2)) : Value());
  TRY(qkv);
  Value q = sliceAlong(n, qkv, 2, 0, sizes[0]);
  Value k = sliceAlong(n, qkv, 2, sizes[0], sizes[0] + sizes[1]);
  Value v = sliceAlong(n, qkv, 2, sizes[0] + sizes[1], total);
  TRY(q && k && v);
  // The KV cache: past (2, B, heads, P, d) in front of the new keys and
  // values; present (2, B, heads, P + S, d).
  if (n.has(4) || n.wantsOutput(1)) {
    Value pk, pv;
    if (n.has(4)) {
      Value past = n.in(4);
      TRY(past);
      if (rankOf(past) != 5 || shapeOf(past)[0] != 2)
        return n.fail("Attention's past must be (2, batch, num_heads, past, "
                      "head size)");
      SmallVector<SymDim> pd = n.dimsOf(past);
      SmallVector<SymDim> one = {pd[1], pd[2], pd[3], pd[4]};
      pk = n.reshapeTo(sliceAlong(n, past, 0, 0, 1), one);
      pv = n.reshapeTo(sliceAlong(n, past, 0, 1, 2), one);
      TRY(pk && pv);
    }
    if (sizes[1] != sizes[2])
      return n.fail("Attention with a past state needs K and V of one size");
    auto [presentK, allK] = appendPast(n, pk, k, heads);
    auto [presentV, allV] = appendPast(n, pv, v, heads);
    TRY(presentK && presentV);
    k = allK;
    v = allV;
    if (n.wantsOutput(1)) {
      SmallVector<SymDim> d = n.dimsOf(presentK);
      SmallVector<SymDim> d5 = {SymDim::constant(1), d[0], d[1], d[2], d[3]};
      Value both = n.create<ConcatOp>(
          ValueRange{n.reshapeTo(presentK, d5), n.reshapeTo(presentV, d5)}, 0);
      TRY(both);
      n.setOut(1, both);
    }
  }
  auto mask = keyMaskOf(n, n.has(3) ? n.in(3) : Value(), k);
  if (failed(mask))
    return failure();
  double scale = n.attrFloat("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(static_cast<double>(sizes[0] / heads));
  int64_t pastLength = n.has(4) ? shapeOf(n.in(4))[3] : 0;
  return setOut(n,
                attend(n, q, k, v, heads, scale, *mask,
                       n.attrInt("unidirectional", 0) != 0,
                       n.has(5) ? n.in(5) : Value(),
                       n.attrFloat("mask_filter_value", -10000.0), pastLength));
}

/// com.microsoft MultiHeadAttention with separate projected Q, K, V
/// (B, sequence, hidden), optional bias (Q, K and V's concatenated), key
/// padding mask and attention bias.
LogicalResult convertMultiHeadAttention(NodeImporter &n) {
  if (failed(n.checkAttrs(
          {"num_heads", "unidirectional", "scale", "mask_filter_value"})) ||
      failed(floatInput(n, 0)) || failed(floatInput(n, 1)) ||
      failed(floatInput(n, 2)))
    return failure();
  if (n.has(8) || n.has(9))
    return n.fail("MultiHeadAttention with a shared past/present buffer "
                  "(past_sequence_length) or beam search's "
                  "cache_indirection is not supported");
  if (n.has(6) != n.has(7))
    return n.fail("MultiHeadAttention needs past_key and past_value "
                  "together");
  if (n.wantsOutput(3))
    return n.fail("MultiHeadAttention's qk output is not supported");
  int64_t heads = n.attrInt("num_heads", 0);
  if (heads <= 0)
    return n.fail("MultiHeadAttention needs a positive num_heads");
  Value q = n.in(0), k = n.in(1), v = n.in(2);
  if (rankOf(q) != 3 || rankOf(k) != 3 || rankOf(v) != 3)
    return n.fail("MultiHeadAttention takes query, key and value of shape "
                  "(batch, sequence, hidden); packed forms are not "
                  "supported");
  if (n.has(3)) {
    int64_t hq = shapeOf(q)[2], hv = shapeOf(v)[2];
    // (Sizes known only at run time, or too large to add: the bias's slices
    // are computed while importing.)
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hv) ||
        hq > (std::numeric_limits<int64_t>::max() - hv) / 2)
      return n.fail("MultiHeadAttention with a bias needs static hidden "
                    "sizes of query and value");
    Value b = n.in(3);
    TRY(b);
    q = n.create<AddOp>(q, sliceAlong(n, b, 0, 0, hq));
    k = n.create<AddOp>(k, sliceAlong(n, b, 0, hq, 2 * hq));
    v = n.create<AddOp>(v, sliceAlong(n, b, 0, 2 * hq, 2 * hq + hv));
    TRY(q && k && v);
  }
  // The KV cache: past_key/past_value (B, heads, P, d) in front of the new
  // keys and values; present_key/present_value the whole sequence.
  if (n.has(6) || n.wantsOutput(1) || n.wantsOutput(2)) {
    Value pk = n.has(6) ? n.in(6) : Value(), pv = n.has(7) ? n.in(7) : Value();
    if (n.has(6))
      TRY(pk && pv);
    auto [presentK, allK] = appendPast(n, pk, k, heads);
    auto [presentV, allV] = appendPast(n, pv, v, heads);
    TRY(presentK && presentV);
    k = allK;
    v = allV;
    n.setOut(1, presentK);
    n.setOut(2, presentV);
  }
  auto mask = keyMaskOf(n, n.has(4) ? n.in(4) : Value(), k);
  if (failed(mask))
    return failure();
  double scale = n.attrFloat("scale", 0.0);
  if (scale == 0.0)
    scale = 1.0 / std::sqrt(static_cast<double>(shapeOf(q)[2] / heads));
  int64_t pastLength = n.has(6) ? shapeOf(n.in(6))[2] : 0;
  return setOut(n,
                attend(n, q, k, v, heads, scale, *mask,
                       n.attrInt("unidirectional", 0) != 0,
                       n.has(5) ? n.in(5) : Value(),
                       n.attrFloat("mask_filter_value", -10000.0), pastLength));
}

/// EmbedLayerNormalization (BERT after ONNX Runtime's optimizer): word,
/// position (ids, or 0 .. S - 1) and segment embeddings looked up and added,
/// then a layer normalization over the hidden axis; mask_index is each
/// sequence's count of mask ones (ONNX Runtime assumes them contiguous).
LogicalResult convertEmbedLayerNorm(NodeImporter &n) {
  if (failed(n.checkAttrs({"epsilon", "mask_index_type"})) ||
      failed(floatInput(n, 2)) || failed(floatInput(n, 3)) ||
      failed(floatInput(n, 5)) || failed(floatInput(n, 6)))
    return failure();
  Value ids = n.in(0);
  TRY(ids);
  if (rankOf(ids) != 2 || !isa<IntegerType>(elemOf(ids)))
    return n.fail("input_ids must be integers of shape (batch, sequence)");
  Type i64 = IntegerType::get(n.ctx, 64);
  // Ids past a table are errors (ONNX Runtime: "input index out of range").
  auto lookup = [&](int table, Value ids, const char *what) -> Value {
    Value checked =
        checkedIndices(n, n.cast(ids, i64), {n.dimOf(n.in(table), 0)},
                       Twine("the rows of the ") + what + " embedding",
                       /*negative=*/false);
    return checked ? takeAlong(n, n.in(table), checked, 0) : Value();
  };
  Value y = lookup(2, ids, "word"); // (B, S, H)
  TRY(y);
  SmallVector<SymDim> dims = n.dimsOf(ids);
  Value positions;
  if (n.has(8)) {
    positions = n.cast(n.in(8), i64);
  } else {
    Value shape = n.shapeOperand({dims[1]});
    positions =
        shape ? n.make<IotaOp>(n.typeOf({dims[1]}, i64), shape, 0) : Value();
  }
  TRY(positions);
  TRY(y = n.create<AddOp>(y, lookup(3, positions, "position")));
  if (n.has(1) != n.has(4))
    return n.fail("segment_ids and segment_embedding come together");
  if (n.has(1))
    TRY(y = n.create<AddOp>(y, lookup(4, n.in(1), "segment")));
  Type t = elemOf(y);
  Value sum = y;
  int64_t rank = rankOf(y);
  Value normal = normalizeOver(n, n.cast(y, normComputeType(n, t)),
                               SmallVector<int64_t>{rank - 1},
                               n.attrFloat("epsilon", 1e-12));
  TRY(normal);
  TRY(y = n.create<MulOp>(n.cast(normal, t), n.in(5)));
  TRY(y = n.create<AddOp>(y, n.in(6)));
  n.setOut(0, y);
  if (n.wantsOutput(1)) {
    if (!n.has(7))
      return n.fail("the mask_index output needs the mask input");
    Type i32 = IntegerType::get(n.ctx, 32);
    Value count = n.create<ReduceSumOp>(n.cast(n.in(7), i32),
                                        SmallVector<int64_t>{1}, false);
    TRY(count);
    n.setOut(1, count);
  }
  if (n.wantsOutput(2))
    n.setOut(2, sum);
  return success();
}

/// com.microsoft RotaryEmbedding: ONNX's RotaryEmbedding (opset 23) with
/// the inputs in ONNX Runtime's order (input, position_ids, cos_cache,
/// sin_cache); position_ids (batch, sequence), or one offset o for
/// positions o .. o + S - 1.
LogicalResult convertContribRotary(NodeImporter &n) {
  if (failed(n.checkAttrs({"interleaved", "is_packed_batching", "num_heads",
                           "rotary_embedding_dim", "scale"})) ||
      failed(floatInput(n, 0)) || failed(floatInput(n, 2)) ||
      failed(floatInput(n, 3)) || !n.has(1) || !n.in(1))
    return failure();
  if (n.attrInt("is_packed_batching", 0))
    return n.fail("RotaryEmbedding with is_packed_batching is not supported");
  Value x = n.in(0), positions = n.in(1);
  // (Checked here too: the offset form below reads the sequence axis.)
  if (rankOf(x) != 3 && rankOf(x) != 4)
    return n.fail("RotaryEmbedding needs an input of rank 3 or 4");
  Type i64 = IntegerType::get(n.ctx, 64);
  positions = n.cast(positions, i64);
  auto ps = shapeOf(positions);
  if (ps.size() == 1 && ps[0] == 1) {
    // An offset: 0 .. S - 1 after it (S is the input's sequence axis).
    int64_t seqAxis = rankOf(x) == 4 ? 2 : 1;
    SymDim len = n.dimsOf(x)[seqAxis];
    Value shape = n.shapeOperand({len});
    Value iota =
        shape ? n.make<IotaOp>(n.typeOf({len}, i64), shape, 0) : Value();
    TRY(iota);
    positions = n.reshapeTo(n.create<AddOp>(iota, positions),
                            {SymDim::constant(1), len});
    TRY(positions);
  } else if (ps.size() != 2) {
    return n.fail("position_ids must be (batch, sequence) or one offset");
  }
  return rotaryEmbedding(n, x, n.in(2), n.in(3), positions);
}

/// ONNX Runtime's fused activations: Relu, Sigmoid, Tanh, LeakyRelu
/// (alpha), Clip (min, max), HardSigmoid (alpha, beta), with `params` in
/// that order; "" is none. Null (reported) for another.
Value applyActivation(NodeImporter &n, Value y, StringRef act,
                      ArrayRef<double> params) {
  auto param = [&](size_t i, double dflt) {
    return i < params.size() ? params[i] : dflt;
  };
  if (!y || act.empty())
    return y;
  if (act == "Relu")
    return n.make<ReluOp>(y);
  if (act == "Sigmoid")
    return n.make<SigmoidOp>(y);
  if (act == "Tanh")
    return n.make<TanhOp>(y);
  if (act == "LeakyRelu") {
    Value neg = n.create<CmpOp>(CmpPredicate::lt, y, sc(n, y, 0.0));
    return n.create<SelectOp>(neg, n.create<MulOp>(y, sc(n, y, param(0, 0.01))),
                              y);
  }
  if (act == "Clip")
    return n.create<MinimumOp>(
        n.create<MaximumOp>(y, sc(n, y, param(0, -3.4028234663852886e38))),
        sc(n, y, param(1, 3.4028234663852886e38)));
  if (act == "HardSigmoid") {
    Value h = n.create<AddOp>(n.create<MulOp>(y, sc(n, y, param(0, 0.2))),
                              sc(n, y, param(1, 0.5)));
    return n.create<MinimumOp>(n.create<MaximumOp>(h, sc(n, y, 0.0)),
                               sc(n, y, 1.0));
  }
  (void)n.fail(n.opType() + "'s activation '" + act +
               "' is not one of Relu, Sigmoid, Tanh, LeakyRelu, Clip, "
               "HardSigmoid");
  return {};
}

/// `n` converted as the default-domain op `op` with the attributes other
/// than `drop` and at most `inputs` inputs; its output 0.
Value convertBase(NodeImporter &n, const char *op, ArrayRef<StringRef> drop,
                  int inputs) {
  onnx::NodeProto base = n.node;
  base.set_op_type(op);
  base.clear_domain();
  base.clear_attribute();
  for (const auto &a : n.node.attribute())
    if (!llvm::is_contained(drop, a.name()))
      *base.add_attribute() = a;
  while (base.input_size() > inputs)
    base.mutable_input()->RemoveLast();
  Converter convert = lookupConverter(op);
  if (!convert || failed(n.convertAs(base, convert)))
    return {};
  return n.outValue(0);
}

/// FusedConv (what ONNX Runtime's graph optimizer writes for Conv (+ Add) +
/// activation when it saves an optimized model): activation(Conv(X, W, B)
/// + Z), the activation's parameters in activation_params.
LogicalResult convertFusedConv(NodeImporter &n) {
  SmallVector<double> params;
  if (const auto *a = n.attr("activation_params"))
    params.assign(a->floats().begin(), a->floats().end());
  Value y = convertBase(n, "Conv", {"activation", "activation_params"}, 3);
  TRY(y);
  if (n.has(3))
    TRY(y = n.create<AddOp>(y, n.in(3)));
  return setOut(n,
                applyActivation(n, y, n.attrString("activation", ""), params));
}

/// FusedGemm: activation(Gemm(A, B, C)), the activation's parameters in
/// activation_alpha and activation_beta.
LogicalResult convertFusedGemm(NodeImporter &n) {
  SmallVector<double> params;
  std::string act = n.attrString("activation", "");
  if (act == "LeakyRelu" || act == "HardSigmoid")
    params.push_back(
        n.attrFloat("activation_alpha", act == "LeakyRelu" ? 0.01 : 0.2));
  if (act == "HardSigmoid")
    params.push_back(n.attrFloat("activation_beta", 0.5));
  Value y = convertBase(
      n, "Gemm",
      {"activation", "activation_alpha", "activation_beta", "activation_gamma"},
      3);
  TRY(y);
  return setOut(n, applyActivation(n, y, act, params));
}

} // namespace

void onnx_import::addContribConverters(llvm::StringMap<Converter> &table) {
  const std::pair<const char *, Converter> ops[] = {
      {"Gelu", convertGelu},
      {"BiasGelu", convertBiasGelu},
      {"FastGelu", convertFastGelu},
      {"QuickGelu", convertQuickGelu},
      {"BiasAdd", convertBiasAdd},
      {"FusedMatMul", convertFusedMatMul},
      {"SkipLayerNormalization", convertSkipLayerNorm},
      {"SkipSimplifiedLayerNormalization", convertSkipSimplifiedLayerNorm},
      {"SimplifiedLayerNormalization", convertSimplifiedLayerNorm},
      {"MatMulNBits", convertMatMulNBits},
      {"Attention", convertContribAttention},
      {"MultiHeadAttention", convertMultiHeadAttention},
      {"EmbedLayerNormalization", convertEmbedLayerNorm},
      {"RotaryEmbedding", convertContribRotary},
      {"FusedConv", convertFusedConv},
      {"FusedGemm", convertFusedGemm},
  };
  for (auto [name, convert] : ops)
    table[std::string("com.microsoft:") + name] = convert;
  // The contrib domain's own QuantizeLinear and DequantizeLinear (older
  // quantized models) mean the default domain's.
  for (const char *name : {"QuantizeLinear", "DequantizeLinear"})
    if (Converter c = table.lookup(name))
      table[std::string("com.microsoft:") + name] = c;
  // ONNX Runtime registers SimplifiedLayerNormalization in the default
  // domain; its optimizer writes it there.
  if (!table.count("SimplifiedLayerNormalization"))
    table["SimplifiedLayerNormalization"] = convertSimplifiedLayerNorm;
}
