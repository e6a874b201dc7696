//===- ConvertQuant.cpp - ONNX quantization ops ---------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The quantization ops of ONNX as decompositions into tide ops:
//
// - QuantizeLinear: round(x / scale) (halves to even) + zero point, clamped
//   to the integer type's range, then cast (exact: the value is integral
//   and in range);
// - DequantizeLinear: (x - zero point) * scale, in floating point (exact
//   for 8- and 16-bit integers);
// - DynamicQuantizeLinear: the ONNX function (scale and zero point from the
//   tensor's range, which always includes 0), then QuantizeLinear;
// - MatMulInteger / ConvInteger: zero points subtracted in i32, an i32
//   tide.matmul, or a tide.conv in f32 (f64 where a sum could pass 2^24), so
//   exact;
// - QLinearMatMul / QLinearConv: the same i32 product (plus QLinearConv's
//   i32 bias), scaled by a_scale * b_scale / y_scale in f32, rounded
//   (halves to even), the output zero point added and saturated, as ONNX
//   Runtime requantizes.
//
// Per-axis scales and zero points (rank 1) broadcast along their axis;
// blocked ones (opset 21's `block_size`: the input's rank, with
// ceil(size / block_size) entries along the axis) are repeated block_size
// times along it and cut to the input's size. float8, float4, int4 and int2
// (ConvertNarrow.cpp): the integer types clamp to their ranges, the float
// types are converted from x / scale + zero point (rounded to nearest).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

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

/// True for the 8- and 16-bit integer types quantized values use.
bool isQuantType(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return it && (it.getWidth() == 8 || it.getWidth() == 16);
}

/// The range of a quantized integer type.
std::pair<double, double> quantRange(Type t) {
  auto it = cast<IntegerType>(t);
  unsigned bits = it.getWidth();
  if (it.isUnsigned())
    return {0.0, std::ldexp(1.0, bits) - 1};
  return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
}

/// Input `i`, an optional quantization parameter (scale or zero point): a
/// scalar, or a rank-1 tensor along `axis` (negative counts from the end) of
/// a rank-`rank` tensor, reshaped to broadcast there. Null if absent; failure
/// if it cannot be used.
FailureOr<Value> quantParam(NodeImporter &n, unsigned i, int64_t axis,
                            int64_t rank, StringRef what,
                            int64_t axisSize = ShapedType::kDynamic) {
  if (!n.has(i))
    return Value();
  Value p = n.in(i);
  if (!p)
    return failure();
  int64_t r = rankOf(p);
  if (r == 0)
    return p;
  Shape s = shapeOf(p);
  if (r == 1 && s[0] == 1)
    return n.reshape(p, {});
  if (r != 1 || rank == 0) {
    n.error() << "the " << what
              << " must be a scalar or a 1-D tensor (one value per element "
                 "of the quantization axis), or of the input's rank with a "
                 "block_size";
    return failure();
  }
  auto a = n.normAxis(axis, rank);
  if (failed(a))
    return failure();
  // One value per element of the axis: a size-1 axis would otherwise
  // broadcast to the parameter's size (a result of another shape).
  if (!ShapedType::isDynamic(axisSize) && !ShapedType::isDynamic(s[0]) &&
      s[0] != axisSize) {
    n.error() << "the " << what << " has " << s[0] << " values; the input has "
              << axisSize << " along axis " << axis;
    return failure();
  }
  Shape spread(rank, 1);
  spread[*a] = s[0];
  Value v = n.reshape(p, spread);
  if (!v)
    return failure();
  return v;
}

/// quantParam for the input `x` of QuantizeLinear/DequantizeLinear, which
/// may be blocked (opset 21): with a positive `block` (block_size), input
/// `i` has `x`'s rank and one entry per block of `block` elements along
/// `axis`; it is repeated to `x`'s shape.
FailureOr<Value> quantParamFor(NodeImporter &n, unsigned i, Value x,
                               int64_t axis, int64_t block, StringRef what) {
  int64_t rank = rankOf(x);
  if (block < 0) {
    n.error() << "block_size must not be negative (got " << block << ")";
    return failure();
  }
  if (block == 0 || !n.has(i)) {
    int64_t axisSize = ShapedType::kDynamic;
    if (rank > 0 && axis >= -rank && axis < rank)
      axisSize = shapeOf(x)[axis < 0 ? axis + rank : axis];
    return quantParam(n, i, axis, rank, what, axisSize);
  }
  Value p = n.in(i);
  if (!p)
    return failure();
  auto a = n.normAxis(axis, rank);
  if (failed(a))
    return failure();
  Shape s = shapeOf(p), xs = shapeOf(x);
  if (rankOf(p) != rank || llvm::any_of(s, ShapedType::isDynamic) ||
      ShapedType::isDynamic(xs[*a])) {
    n.error() << "blocked quantization needs a " << what
              << " of the input's rank (" << rank
              << ") with sizes known while importing";
    return failure();
  }
  int64_t blocks = (xs[*a] + block - 1) / block;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = d == *a ? blocks : xs[d];
    if (!ShapedType::isDynamic(want) && s[d] != want) {
      n.error() << "the " << what << " has size " << s[d] << " in dimension "
                << d << "; block_size " << block
                << " over the input's shape needs " << want;
      return failure();
    }
  }
  // (.., blocks, ..) -> (.., blocks, 1, ..) -> (.., blocks, block, ..)
  // -> (.., blocks * block, ..), cut to the input's size along the axis.
  Shape split = s;
  split.insert(split.begin() + *a + 1, 1);
  Shape spread = split;
  spread[*a + 1] = block;
  Shape merged = s;
  merged[*a] = blocks * block;
  Value v = n.reshape(n.broadcastTo(n.reshape(p, split), spread), merged);
  if (v && blocks * block != xs[*a])
    v = sliceAlong(n, v, *a, 0, xs[*a]);
  if (!v)
    return failure();
  return v;
}

/// round(v) (halves to even) + zp, clamped to [lo, hi] (`q`'s range by
/// default), cast to `q`. `v` and `zp` (may be null) are floating point.
Value requantize(NodeImporter &n, Value v, Value zp, Type q,
                 std::optional<std::pair<double, double>> range = {}) {
  Type f = elemOf(v);
  Value y = n.make<RoundOp>(v);
  if (y && zp)
    y = n.create<AddOp>(y, n.cast(zp, f));
  auto [lo, hi] = range ? *range : quantRange(q);
  if (y)
    y = n.create<MaximumOp>(y, n.scalar(f, lo));
  if (y)
    y = n.create<MinimumOp>(y, n.scalar(f, hi));
  // NaN saturates to the type's lowest value, as ONNX Runtime (a NaN cast to
  // an integer has no defined value).
  Value nan = y ? n.create<CmpOp>(CmpPredicate::ne, y, y) : Value();
  if (nan)
    y = n.create<SelectOp>(nan, n.scalar(f, lo), y);
  return y ? n.cast(y, q) : Value();
}

/// The floating-point type quantization math runs in: f64 for f64, else
/// f32 (f16 and bf16 are widened, like ONNX Runtime does).
Type mathType(NodeImporter &n, Type t) {
  return t.isF64() ? Type(Float64Type::get(n.ctx)) : Float32Type::get(n.ctx);
}

LogicalResult convertQuantizeLinear(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "saturate", "block_size", "output_dtype"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1))
    return n.fail("needs inputs x and y_scale");
  Value x = n.in(0);
  int64_t axis = n.attrInt("axis", 1), block = n.attrInt("block_size", 0);
  auto scale = quantParamFor(n, 1, x, axis, block, "scale");
  auto zp = quantParamFor(n, 2, x, axis, block, "zero point");
  if (failed(scale) || failed(zp))
    return failure();
  Type q = IntegerType::get(n.ctx, 8, IntegerType::Unsigned);
  int32_t qNarrow = 0;
  if (*zp) {
    q = elemOf(*zp);
    qNarrow = n.narrowIn(2);
    if (const auto *a = n.attr("output_dtype"); a && a->i() != 0) {
      std::string why;
      Type want = convertElementType(n.ctx, a->i(), why);
      if (narrow::isNarrow(a->i()) ? a->i() != qNarrow
                                   : (qNarrow != 0 || want != q))
        return n.fail("output_dtype does not match the zero point's type");
    }
  } else if (const auto *a = n.attr("output_dtype"); a && a->i() != 0) {
    std::string why;
    q = convertElementType(n.ctx, a->i(), why);
    if (!q)
      return n.fail("output_dtype: " + why);
    if (narrow::isNarrow(a->i()))
      qNarrow = a->i();
  }
  if (!qNarrow && !isQuantType(q))
    return n.fail("quantizing to a type other than (u)int8, (u)int16, "
                  "float8, float4, (u)int4 and (u)int2 is not supported");
  Type f = mathType(n, elemOf(x));
  Value v = n.create<DivOp>(n.cast(x, f), n.cast(*scale, f));
  TRY(v);
  Value y;
  if (qNarrow && narrow::isFloat(qNarrow)) {
    // x / scale + zero point, converted (rounded to nearest, ties to even;
    // saturated unless `saturate` = 0).
    // (A zero point of 0 is not added: -0 + 0 would be +0, where ONNX
    // Runtime and the reference keep -0.)
    if (*zp) {
      Value z = n.cast(narrow::decodeFloat(n, *zp, qNarrow), f);
      TRY(z);
      TRY(v = n.create<SelectOp>(
              n.create<CmpOp>(CmpPredicate::eq, z, n.scalar(f, 0.0)), v,
              n.create<AddOp>(v, z)));
    }
    y = narrow::encode(n, v, qNarrow, n.attrInt("saturate", 1) != 0);
  } else if (qNarrow) {
    auto [lo, hi] = narrow::intRange(qNarrow);
    y = requantize(
        n, v, *zp, q,
        std::make_pair(static_cast<double>(lo), static_cast<double>(hi)));
  } else {
    y = requantize(n, v, *zp, q);
  }
  TRY(y);
  n.setOut(0, y);
  n.setNarrowOut(0, qNarrow);
  return success();
}

LogicalResult convertDequantizeLinear(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "block_size", "output_dtype"})))
    return failure();
  if (!n.has(0) || !n.in(0) || !n.has(1))
    return n.fail("needs inputs x and x_scale");
  Value x = n.in(0);
  int32_t xNarrow = n.narrowIn(0);
  if (!isa<IntegerType>(elemOf(x)))
    return n.fail("dequantizing a type other than an integer, float8 or "
                  "float4 type is not supported");
  int64_t axis = n.attrInt("axis", 1), block = n.attrInt("block_size", 0);
  auto scale = quantParamFor(n, 1, x, axis, block, "scale");
  auto zp = quantParamFor(n, 2, x, axis, block, "zero point");
  if (failed(scale) || failed(zp))
    return failure();
  if (*zp && (elemOf(*zp) != elemOf(x) || n.narrowIn(2) != xNarrow))
    return n.fail("the zero point's type differs from the input's");
  Type out = elemOf(*scale);
  // DequantizeLinear-25's output_dtype: the result's type (the scale's when
  // absent).
  if (const auto *a = n.attr("output_dtype"); a && a->i() != 0) {
    std::string why;
    out = convertElementType(n.ctx, a->i(), why);
    if (!out || !isa<FloatType>(out))
      return n.fail("output_dtype must be a floating-point type" +
                    (why.empty() ? std::string() : ": " + why));
  }
  Type f = mathType(n, out);
  // float8/float4 codes: their values (exact in f32).
  bool codes = xNarrow && narrow::isFloat(xNarrow);
  Value v = n.cast(codes ? narrow::decodeFloat(n, x, xNarrow) : x, f);
  if (*zp)
    TRY(v = n.create<SubOp>(
            v, n.cast(codes ? narrow::decodeFloat(n, *zp, xNarrow) : *zp, f)));
  TRY(v = n.create<MulOp>(v, n.cast(*scale, f)));
  TRY(v = n.cast(v, out));
  n.setOut(0, v);
  return success();
}

LogicalResult convertDynamicQuantizeLinear(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input x");
  Value x = n.in(0);
  if (!isa<FloatType>(elemOf(x)))
    return n.fail("DynamicQuantizeLinear needs a floating-point input");
  Type f = elemOf(x);
  Type u8 = IntegerType::get(n.ctx, 8, IntegerType::Unsigned);
  Shape all;
  for (int64_t i = 0; i < rankOf(x); ++i)
    all.push_back(i);
  Value lo = x, hi = x;
  if (!all.empty()) {
    lo = n.create<ReduceMinOp>(x, all, false);
    hi = n.create<ReduceMaxOp>(x, all, false);
  }
  TRY(lo && hi);
  // The range always includes 0.
  TRY(lo = n.create<MinimumOp>(lo, n.scalar(f, 0)));
  TRY(hi = n.create<MaximumOp>(hi, n.scalar(f, 0)));
  Value scale = n.create<DivOp>(n.create<SubOp>(hi, lo), n.scalar(f, 255));
  TRY(scale);
  // An input of zeros only (or no elements) has an empty range: scale 1, as
  // ONNX Runtime (a scale of 0 made the zero point 0 / 0, a NaN cast to u8).
  Value empty = n.create<CmpOp>(CmpPredicate::eq, hi, lo);
  TRY(empty);
  TRY(scale = n.create<SelectOp>(empty, n.scalar(f, 1), scale));
  // zero point = round(clamp(0 - lo / scale, 0, 255)).
  Value zpf = n.create<SubOp>(n.scalar(f, 0), n.create<DivOp>(lo, scale));
  TRY(zpf);
  Value zp = requantize(n, zpf, Value(), u8);
  TRY(zp);
  Value y = requantize(n, n.create<DivOp>(x, scale), zp, u8);
  TRY(y);
  n.setOut(0, y);
  n.setOut(1, scale);
  n.setOut(2, zp);
  return success();
}

/// `v` - `zp` in i32 (`zp` may be null).
Value shifted(NodeImporter &n, Value v, Value zp) {
  Type i32 = IntegerType::get(n.ctx, 32);
  v = n.cast(v, i32);
  if (!v || !zp)
    return v;
  return n.create<SubOp>(v, n.cast(zp, i32));
}

/// The i32 product (A - a_zp) @ (B - b_zp); `aZp`/`bZp` are the inputs of
/// the zero points (a scalar, A's rows, or B's columns).
FailureOr<Value> integerMatmul(NodeImporter &n, unsigned a, unsigned aZp,
                               unsigned b, unsigned bZp) {
  Value av = n.in(a), bv = n.in(b);
  if (!av || !bv)
    return n.fail("needs inputs " + Twine(a) + " and " + Twine(b));
  if (!isQuantType(elemOf(av)) || !isQuantType(elemOf(bv)))
    return n.fail("the matrices must be 8- or 16-bit integers");
  if (rankOf(av) < 2 || rankOf(bv) < 2)
    return n.fail("the matrices must have rank 2 or more");
  // A's zero point is per row ([M] -> [M, 1]), B's per column ([N]).
  auto za = quantParam(n, aZp, rankOf(av) - 2, rankOf(av), "zero point of A");
  auto zb = quantParam(n, bZp, rankOf(bv) - 1, rankOf(bv), "zero point of B");
  if (failed(za) || failed(zb))
    return failure();
  Value lhs = shifted(n, av, *za), rhs = shifted(n, bv, *zb);
  if (!lhs || !rhs)
    return failure();
  Value y = n.create<MatmulOp>(lhs, rhs);
  if (!y)
    return failure();
  return y;
}

LogicalResult convertMatMulInteger(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  auto y = integerMatmul(n, 0, 2, 1, 3);
  if (failed(y))
    return failure();
  n.setOut(0, *y);
  return success();
}

/// The i32 convolution (X - x_zp) * (W - w_zp) with Conv's attributes;
/// w_zp is a scalar or one value per output channel.
FailureOr<Value> integerConv(NodeImporter &n, unsigned x, unsigned xZp,
                             unsigned w, unsigned wZp) {
  Value xv = n.in(x), wv = n.in(w);
  if (!xv || !wv)
    return n.fail("needs inputs " + Twine(x) + " and " + Twine(w));
  if (!isQuantType(elemOf(xv)) || !isQuantType(elemOf(wv)))
    return n.fail("the input and the weight must be 8- or 16-bit integers");
  auto input = cast<RankedTensorType>(xv.getType());
  if (input.getRank() < 3 || rankOf(wv) != input.getRank())
    return n.fail("the input and the weight need the same rank, 3 or more");
  Shape weightShape = shapeOf(wv);
  Shape kernel(weightShape.begin() + 2, weightShape.end());
  if (llvm::any_of(kernel, ShapedType::isDynamic))
    return n.fail("the weight's spatial sizes must be known while importing");
  if (auto k = n.attrInts("kernel_shape"); k && Shape(*k) != kernel)
    return n.fail("kernel_shape does not match the weight's spatial sizes");
  Shape strides, dilations, pads;
  if (failed(readConvWindow(n, input, kernel, strides, dilations, pads)))
    return failure();
  auto zx = quantParam(n, xZp, 0, 0, "zero point of x");
  auto zw = quantParam(n, wZp, 0, rankOf(wv), "zero point of w");
  if (failed(zx) || failed(zw))
    return failure();
  Value lhs = shifted(n, xv, *zx), rhs = shifted(n, wv, *zw);
  if (!lhs || !rhs)
    return failure();
  // tide.conv is floating point: convolve the shifted integers in f32 when
  // every sum is exact there (below 2^24), else in f64 (exact below 2^53).
  auto range = [](Type t) {
    return std::ldexp(1.0, cast<IntegerType>(t).getWidth()) - 1;
  };
  double bound = range(elemOf(xv)) * range(elemOf(wv));
  // (A channel count known only at run time: no bound, f64.)
  for (int64_t d : ArrayRef<int64_t>(weightShape).drop_front())
    bound *= ShapedType::isDynamic(d) ? std::ldexp(1.0, 60) : double(d);
  Type f = bound < std::ldexp(1.0, 24) ? Type(Float32Type::get(n.ctx))
                                       : Type(Float64Type::get(n.ctx));
  Value y = n.create<ConvOp>(n.cast(lhs, f), n.cast(rhs, f), strides, dilations,
                             pads, n.attrInt("group", 1));
  if (!y)
    return failure();
  return n.cast(y, IntegerType::get(n.ctx, 32));
}

LogicalResult checkConvAttrs(NodeImporter &n) {
  return n.checkAttrs(
      {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
}

LogicalResult convertConvInteger(NodeImporter &n) {
  if (failed(checkConvAttrs(n)))
    return failure();
  auto y = integerConv(n, 0, 2, 1, 3);
  if (failed(y))
    return failure();
  n.setOut(0, *y);
  return success();
}

/// The i32 accumulator `acc` scaled by scaleA * scaleB / scaleY, rounded,
/// shifted by the output zero point (input `yZp`) and saturated.
LogicalResult requantizeOutput(NodeImporter &n, Value acc, Value scaleA,
                               Value scaleB, unsigned yScale, unsigned yZp,
                               int64_t axis) {
  int64_t rank = rankOf(acc);
  auto sy = quantParam(n, yScale, axis, rank, "output scale");
  auto zy = quantParam(n, yZp, axis, rank, "output zero point");
  if (failed(sy) || failed(zy))
    return failure();
  if (!*sy || !*zy)
    return n.fail("needs the output scale and zero point");
  Type q = elemOf(*zy);
  if (!isQuantType(q))
    return n.fail("the output zero point must be an 8- or 16-bit integer");
  Type f32 = Float32Type::get(n.ctx);
  Value m = n.create<MulOp>(n.cast(scaleA, f32), n.cast(scaleB, f32));
  TRY(m);
  TRY(m = n.create<DivOp>(m, n.cast(*sy, f32)));
  Value v = n.create<MulOp>(n.cast(acc, f32), m);
  TRY(v);
  Value y = requantize(n, v, *zy, q);
  TRY(y);
  n.setOut(0, y);
  return success();
}

LogicalResult convertQLinearMatMul(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  for (unsigned i : {1u, 4u, 6u, 7u})
    if (!n.has(i))
      return n.fail("needs input " + Twine(i) + " (a scale or zero point)");
  auto acc = integerMatmul(n, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  int64_t rank = rankOf(*acc);
  auto sa = quantParam(n, 1, rank - 2, rank, "scale of A");
  auto sb = quantParam(n, 4, rank - 1, rank, "scale of B");
  if (failed(sa) || failed(sb))
    return failure();
  return requantizeOutput(n, *acc, *sa, *sb, 6, 7, rank - 1);
}

LogicalResult convertQLinearConv(NodeImporter &n) {
  if (failed(checkConvAttrs(n)))
    return failure();
  for (unsigned i : {1u, 4u, 6u, 7u})
    if (!n.has(i))
      return n.fail("needs input " + Twine(i) + " (a scale or zero point)");
  auto acc = integerConv(n, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  int64_t rank = rankOf(*acc);
  if (n.has(8)) {
    // The bias: i32, one value per output channel.
    Value bias = n.in(8);
    TRY(bias);
    if (rankOf(bias) != 1 || !elemOf(bias).isInteger(32))
      return n.fail("the bias must be a 1-D int32 tensor");
    // One value per output channel (ONNX Runtime refuses a single value).
    int64_t channels = shapeOf(*acc)[1], values = shapeOf(bias)[0];
    if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(values) &&
        values != channels)
      return n.fail("the bias has " + Twine(values) +
                    " values; the output has " + Twine(channels) + " channels");
    Shape s(rank - 1, 1);
    s[0] = shapeOf(bias)[0];
    TRY(*acc = n.create<AddOp>(*acc, n.reshape(bias, s)));
  }
  auto sx = quantParam(n, 1, 0, 0, "scale of x");
  // The weight's scale is a scalar or one value per output channel.
  auto sw = quantParam(n, 4, 1, rank, "scale of w");
  if (failed(sx) || failed(sw))
    return failure();
  return requantizeOutput(n, *acc, *sx, *sw, 6, 7, 1);
}

} // namespace

void onnx_import::addQuantConverters(llvm::StringMap<Converter> &table) {
  table["QuantizeLinear"] = convertQuantizeLinear;
  table["DequantizeLinear"] = convertDequantizeLinear;
  table["DynamicQuantizeLinear"] = convertDynamicQuantizeLinear;
  table["MatMulInteger"] = convertMatMulInteger;
  table["ConvInteger"] = convertConvInteger;
  table["QLinearMatMul"] = convertQLinearMatMul;
  table["QLinearConv"] = convertQLinearConv;
}
