//===- ConvertNarrow.cpp - float8, float4, int4 and int2 tensors ----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// ONNX's element types narrower than a byte or without IEEE semantics
// (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0,
// FLOAT4E2M1, INT4, UINT4, INT2, UINT2) are carried in Tide types of a byte:
// the float types as their bit patterns in ui8 (one element per byte), the
// integer types as their values in i8 (signed) or ui8 (unsigned). ONNX
// allows them in casts, quantization and data movement only, so the importer
// remembers each such value's ONNX type (GraphImporter::narrowTypes) and:
//
// - Cast and CastLike: decodes a float type through a table of its 256 (or
//   16) values in f32 (exact), and encodes into one with integer operations
//   on the source's bits: rounding to nearest, ties to even, as ml_dtypes
//   converts (which ONNX's reference uses), then the type's overflow rule
//   (`saturate`: the largest finite value; else infinity where the type has
//   one, NaN where it has not), NaN and signed-zero codes. A float into
//   INT4/UINT4/INT2/UINT2 truncates toward zero and wraps to the low bits
//   (as ml_dtypes), as an integer does. FLOAT8E8M0 follows
//   `round_mode` (up, nearest, down) and `saturate`.
// - QuantizeLinear and DequantizeLinear to and from all of them
//   (ConvertQuant.cpp): the integer types clamp to their ranges; the float
//   types are encoded from x / scale + zero point.
// - Data movement (Reshape, Transpose, Concat, Slice, Gather, ...) moves the
//   carrier's bytes; any other op on such a tensor is refused.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// A float8/float4 encoding: bits (8 or 4), mantissa bits, exponent bias,
/// whether it has infinities, and its NaN rule.
struct FloatFormat {
  unsigned bits;
  unsigned mantissa;
  int bias;
  bool hasInf;
  /// FNUZ types: one NaN (0x80), no negative zero.
  bool fnuz;
  /// Largest finite magnitude code.
  uint32_t maxCode;
  /// NaN's magnitude code (with the sign of the input), for types that are
  /// not FNUZ; 0 for FLOAT4E2M1 (no NaN: ml_dtypes gives zero of the
  /// opposite sign).
  uint32_t nanCode;
  const llvm::fltSemantics &(*semantics)();
};

std::optional<FloatFormat> floatFormat(int32_t dt) {
  using S = llvm::APFloat;
  switch (dt) {
  case narrow::kFloat8E4M3FN:
    return FloatFormat{8, 3, 7, false, false, 0x7E, 0x7F, &S::Float8E4M3FN};
  case narrow::kFloat8E4M3FNUZ:
    return FloatFormat{8, 3, 8, false, true, 0x7F, 0, &S::Float8E4M3FNUZ};
  case narrow::kFloat8E5M2:
    return FloatFormat{8, 2, 15, true, false, 0x7B, 0x7E, &S::Float8E5M2};
  case narrow::kFloat8E5M2FNUZ:
    return FloatFormat{8, 2, 16, false, true, 0x7F, 0, &S::Float8E5M2FNUZ};
  case narrow::kFloat4E2M1:
    return FloatFormat{4, 1, 1, false, false, 0x7, 0, &S::Float4E2M1FN};
  default:
    return std::nullopt;
  }
}

/// An integer constant of element type `t` (exact for every 64-bit value).
Value intScalar(NodeImporter &n, Type t, uint64_t v) {
  unsigned width = t.getIntOrFloatBitWidth();
  auto type = RankedTensorType::get({}, t);
  return n.constant(DenseElementsAttr::get(type, APInt(width, v)));
}

Value cmp(NodeImporter &n, CmpPredicate p, Value a, Value b) {
  return n.create<CmpOp>(p, a, b);
}

/// `v` as a tensor of `t` (same shape), bit for bit.
Value bitcast(NodeImporter &n, Value v, Type t) {
  if (!v)
    return {};
  auto type = cast<RankedTensorType>(v.getType()).clone(t);
  return n.make<BitcastOp>(type, v);
}

/// The f32 values of the 2^bits codes of a float type, for decoding.
DenseElementsAttr decodeTable(MLIRContext *ctx, int32_t dt) {
  SmallVector<float> values;
  if (dt == narrow::kFloat8E8M0) {
    for (unsigned c = 0; c < 256; ++c)
      values.push_back(c == 255 ? std::nanf("")
                                : std::ldexp(1.0f, static_cast<int>(c) - 127));
  } else {
    FloatFormat f = *floatFormat(dt);
    for (unsigned c = 0; c < (1u << f.bits); ++c) {
      llvm::APFloat v(f.semantics(), APInt(f.bits, c));
      bool lost;
      v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v.convertToFloat());
    }
  }
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    Float32Type::get(ctx));
  return DenseElementsAttr::get(type, ArrayRef<float>(values));
}

} // namespace

bool narrow::isNarrow(int32_t dt) { return dt >= 17 && dt <= 26; }

bool narrow::isFloat(int32_t dt) {
  return isNarrow(dt) && dt != kUInt4 && dt != kInt4 && dt != kUInt2 &&
         dt != kInt2;
}

std::pair<int64_t, int64_t> narrow::intRange(int32_t dt) {
  switch (dt) {
  case kInt4:
    return {-8, 7};
  case kUInt4:
    return {0, 15};
  case kInt2:
    return {-2, 1};
  default:
    return {0, 3};
  }
}

unsigned narrow::bitsOf(int32_t dt) {
  if (dt == kInt4 || dt == kUInt4 || dt == kFloat4E2M1)
    return 4;
  if (dt == kInt2 || dt == kUInt2)
    return 2;
  return 8;
}

Type narrow::carrierType(MLIRContext *ctx, int32_t dt) {
  bool isSigned = dt == kInt4 || dt == kInt2;
  return IntegerType::get(
      ctx, 8, isSigned ? IntegerType::Signless : IntegerType::Unsigned);
}

const char *narrow::name(int32_t dt) {
  static const char *names[] = {
      "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4",
      "int4",         "float4e2m1",     "float8e8m0", "uint2",          "int2"};
  return isNarrow(dt) ? names[dt - 17] : "?";
}

Value narrow::decodeFloat(NodeImporter &n, Value codes, int32_t dt) {
  if (!codes)
    return {};
  // A lookup of the flattened codes in the table (tide.gather takes indices
  // of the table's rank), reshaped back.
  Value table = n.constant(decodeTable(n.ctx, dt));
  Value index = n.cast(codes, IntegerType::get(n.ctx, 64));
  SmallVector<SymDim> dims = n.dimsOf(index);
  SymDim total = SymDim::constant(1);
  for (const SymDim &d : dims)
    total = n.combine("Mul", total, d);
  Value flat = n.reshapeTo(index, {total});
  Value values = flat ? n.create<GatherOp>(table, flat, 0) : Value();
  return values ? n.reshapeTo(values, dims) : Value();
}

Value narrow::encode(NodeImporter &n, Value x, int32_t dt, bool saturate,
                     StringRef roundMode) {
  if (!x)
    return {};
  MLIRContext *ctx = n.ctx;
  Type from = elemOf(x);
  Type carrier = carrierType(ctx, dt);
  Type f32 = Float32Type::get(ctx);

  if (!isFloat(dt)) {
    // INT4/UINT4/INT2/UINT2.
    auto [lo, hi] = intRange(dt);
    auto i32 = IntegerType::get(ctx, 32);
    Value v;
    if (isa<FloatType>(from)) {
      // Truncated toward zero, then wrapped as an integer is (ml_dtypes,
      // which ONNX's reference and test data use: 9.0 to INT4 is -7); 0
      // for NaN, infinities and values past the i32 range.
      Type f = from.isF64() ? from : f32;
      Value w = n.cast(x, f);
      Value zero = n.scalar(f, 0.0);
      Value t = n.create<SelectOp>(cmp(n, CmpPredicate::lt, w, zero),
                                   n.make<CeilOp>(w), n.make<FloorOp>(w));
      Value in = n.create<AndOp>(
          cmp(n, CmpPredicate::ge, t, n.scalar(f, -2147483648.0)),
          cmp(n, CmpPredicate::le, t, n.scalar(f, 2147483647.0)));
      v = n.cast(n.create<SelectOp>(in, t, zero), i32);
    } else {
      v = n.cast(x, i32);
    }
    (void)hi;
    // An integer (or bool) wraps to its low bits, sign-extended for the
    // signed types.
    unsigned bits = bitsOf(dt);
    v = n.create<AndOp>(v, intScalar(n, i32, (1u << bits) - 1));
    if (lo < 0) {
      Value sign = intScalar(n, i32, 1u << (bits - 1));
      v = n.create<SubOp>(n.create<XorOp>(v, sign), sign);
    }
    return n.cast(v, carrier);
  }

  // Floats: from the bits of an f32 (f16 and bf16 widen exactly; integers
  // and f64 convert to f32 first, as ml_dtypes and ONNX's reference do: an
  // f64 is rounded twice).
  Type f = f32;
  unsigned width = 32, srcMantissa = 23;
  int srcBias = 127;
  Type u = IntegerType::get(ctx, width, IntegerType::Unsigned);
  auto k = [&](uint64_t v) { return intScalar(n, u, v); };
  Value bits = bitcast(n, n.cast(x, f), u);
  uint64_t signBit = uint64_t(1) << (width - 1);
  uint64_t expMask = ((uint64_t(1) << (width - 1 - srcMantissa)) - 1)
                     << srcMantissa;
  Value a = n.create<AndOp>(bits, k(signBit - 1)); // |x|'s bits
  Value negative = cmp(n, CmpPredicate::ge, bits, k(signBit));
  Value isNaN = cmp(n, CmpPredicate::gt, a, k(expMask));

  if (dt == kFloat8E8M0) {
    // ONNX's to_float8e8m0: the exponent field, rounded by round_mode
    // (the sign is ignored); NaN and infinity give 0xFF.
    Value e = n.create<ShrOp>(a, k(srcMantissa));
    Value fraction = n.create<AndOp>(a, k((uint64_t(1) << srcMantissa) - 1));
    Value up;
    if (roundMode == "up") {
      up = cmp(n, CmpPredicate::ne, fraction, k(0));
    } else if (roundMode == "nearest") {
      uint64_t g = uint64_t(1) << (srcMantissa - 1);
      Value guard = cmp(n, CmpPredicate::ne, n.create<AndOp>(a, k(g)), k(0));
      Value rest = cmp(n, CmpPredicate::ne, n.create<AndOp>(a, k(g - 1)), k(0));
      Value lsb = cmp(n, CmpPredicate::gt, e, k(0));
      up = n.create<AndOp>(guard, n.create<OrOp>(rest, lsb));
    } else if (roundMode != "down") {
      n.error() << "round_mode must be \"up\", \"nearest\" or \"down\" (got \""
                << roundMode << "\")";
      return {};
    }
    if (up) {
      if (saturate)
        up = n.create<AndOp>(up, cmp(n, CmpPredicate::ne, e, k(0xFE)));
      e = n.create<AddOp>(e, n.cast(up, u));
    }
    Value special = cmp(n, CmpPredicate::ge, a, k(expMask));
    e = n.create<SelectOp>(special, k(0xFF), e);
    return n.cast(e, carrier);
  }

  FloatFormat fmt = *floatFormat(dt);
  unsigned m = fmt.mantissa;
  int emin = 1 - fmt.bias;
  // Normal results: round the source's exponent and mantissa fields to m
  // mantissa bits (ties to even), then rebase the exponent.
  unsigned shift = srcMantissa - m;
  Value lsb = n.create<AndOp>(n.create<ShrOp>(a, k(shift)), k(1));
  Value rounded = n.create<AddOp>(
      n.create<AddOp>(a, k((uint64_t(1) << (shift - 1)) - 1)), lsb);
  Value normal = n.create<SubOp>(n.create<ShrOp>(rounded, k(shift)),
                                 k(uint64_t(srcBias - fmt.bias) << m));
  // Subnormal results (|x| < 2^emin): |x| / 2^(emin - m) rounded to an
  // integer (ties to even) is the code; 2^m is the smallest normal's code.
  Value absx = bitcast(n, a, f);
  Value minNormal = n.scalar(f, std::ldexp(1.0, emin));
  Value small = cmp(n, CmpPredicate::lt, absx, minNormal);
  Value scaled =
      n.create<MulOp>(n.create<MinimumOp>(absx, minNormal),
                      n.scalar(f, std::ldexp(1.0, static_cast<int>(m) - emin)));
  Value sub = n.cast(n.make<RoundOp>(scaled), u);
  Value mag = n.create<SelectOp>(small, sub, normal);
  // Overflow (infinity included): the largest finite value when saturating
  // (FLOAT4E2M1 always), else infinity or NaN.
  Value over = cmp(n, CmpPredicate::gt, mag, k(fmt.maxCode));
  uint64_t signCode = uint64_t(1) << (fmt.bits - 1);
  bool saturates = saturate || fmt.bits == 4;
  uint64_t overCode = saturates    ? fmt.maxCode
                      : fmt.hasInf ? fmt.maxCode + 1
                      : fmt.fnuz   ? 0
                                   : fmt.nanCode;
  mag = n.create<SelectOp>(over, k(overCode), mag);
  Value signed_ = n.create<SelectOp>(negative, k(signCode), k(0));
  Value code = n.create<OrOp>(mag, signed_);
  if (fmt.fnuz) {
    // No negative zero; NaN (and overflow without saturate) is 0x80.
    Value zero = cmp(n, CmpPredicate::eq, mag, k(0));
    code = n.create<SelectOp>(zero, k(0), code);
    if (!saturates)
      code = n.create<SelectOp>(over, k(0x80), code);
    code = n.create<SelectOp>(isNaN, k(0x80), code);
  } else if (fmt.bits == 4) {
    // No NaN: ml_dtypes gives zero with the opposite sign.
    code = n.create<SelectOp>(
        isNaN, n.create<SelectOp>(negative, k(0), k(signCode)), code);
  } else {
    code = n.create<SelectOp>(isNaN, n.create<OrOp>(signed_, k(fmt.nanCode)),
                              code);
  }
  return n.cast(code, carrier);
}
