//===- ConvertOps.cpp - ONNX ops to tide ops ------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// One converter per ONNX op type of the default domain. A converter reads the
// node's inputs and attributes (per opset where the op changed), checks what
// Tide's verifiers cannot (attributes, values that set shapes), and builds
// tide ops whose result types Tide infers. ONNX functions (LayerNormalization,
// Gelu, HardSwish, ...) convert directly into their primitives.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

SymDim productOf(NodeImporter &n, ArrayRef<SymDim> dims);

Shape shapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return Shape(t.getShape());
}
int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}
/// "[2, ?, 4]".
std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// The inputs a converter needs, all present; else reports.
LogicalResult need(NodeImporter &n, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    if (!n.has(i) || !n.in(i))
      return n.fail("needs input " + llvm::Twine(i));
  return success();
}

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

/// Sets output 0, failing when the op could not be built.
LogicalResult out(NodeImporter &n, Value v) {
  if (!v)
    return failure();
  n.setOut(0, v);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult unary(NodeImporter &n) {
  if (failed(n.checkAttrs({})) || failed(need(n, 1)))
    return failure();
  return out(n, n.make<OpTy>(n.in(0)));
}

/// Before opset 7, binary ops broadcast only with `broadcast = 1`, aligning
/// the second operand at `axis`.
Value legacyBroadcast(NodeImporter &n, Value lhs, Value rhs) {
  if (n.opset >= 7 || !n.attr("broadcast") || n.attrInt("broadcast", 0) == 0)
    return rhs;
  int64_t r = rankOf(rhs), big = rankOf(lhs);
  int64_t axis = n.attrInt("axis", big - r);
  if (axis < 0)
    axis += big;
  Shape shape(axis, 1);
  llvm::append_range(shape, shapeOf(rhs));
  shape.resize(big, 1);
  return n.reshape(rhs, shape);
}

/// The operands of an ONNX broadcasting op, where a size known only at run
/// time might be 1 against another size (two run-time sizes importing
/// cannot prove equal, or one against a static size above 1), stretched
/// there at run time (tide.broadcast_to stretch_dynamic) to the size NumPy's
/// rule gives: the first operand's unless it is 1, and so on. Tide's
/// elementwise ops then see operands of one size, as they assume. Operands
/// whose sizes importing knows equal, or static, are left alone.
LogicalResult stretchUnitSizes(NodeImporter &n, MutableArrayRef<Value> ops,
                               int64_t skip = 0) {
  // (With `skip`, the last `skip` dimensions of each operand take no part:
  // a product's matrix dimensions.)
  int64_t rank = 0;
  for (Value v : ops) {
    if (!v)
      return failure();
    rank = std::max(rank, rankOf(v) - skip);
  }
  SmallVector<std::optional<SymDim>> target(rank);
  bool any = false;
  for (int64_t d = 0; d < rank; ++d) {
    SmallVector<SymDim> sizes;
    bool dynamic = false;
    for (Value v : ops) {
      int64_t i = d - (rank - (rankOf(v) - skip));
      if (i < 0)
        continue;
      SymDim size = n.dimOf(v, i);
      if (size.isConst(1))
        continue;
      dynamic |= !size.isConst();
      if (!llvm::is_contained(sizes, size))
        sizes.push_back(size);
    }
    if (!dynamic || sizes.size() < 2)
      continue;
    SymDim t = sizes.front();
    for (const SymDim &size : ArrayRef<SymDim>(sizes).drop_front())
      t = n.select(n.combine("Equal", t, SymDim::constant(1)), size, t);
    target[d] = t;
    any = true;
  }
  if (!any)
    return success();
  for (Value &v : ops) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t offset = rank - (type.getRank() - skip);
    SmallVector<SymDim> dims = n.dimsOf(v);
    bool stretch = false;
    for (int64_t i = 0; i < type.getRank() - skip; ++i)
      if (target[i + offset] && type.isDynamicDim(i)) {
        dims[i] = *target[i + offset];
        stretch = true;
      }
    if (!stretch)
      continue;
    Value shape = n.shapeOperand(dims);
    TRY(shape);
    v = n.make<BroadcastToOp>(type, v, shape, n.b.getUnitAttr());
    TRY(v);
  }
  return success();
}

template <typename OpTy>
Value binaryOp(NodeImporter &n, Value a, Value b) {
  SmallVector<Value> ops = {a, b};
  if (failed(stretchUnitSizes(n, ops)))
    return {};
  return n.create<OpTy>(ops[0], ops[1]);
}

template <typename OpTy>
LogicalResult binary(NodeImporter &n) {
  if (failed(n.checkAttrs({"broadcast", "axis"})) || failed(need(n, 2)))
    return failure();
  Value lhs = n.in(0);
  Value rhs = legacyBroadcast(n, lhs, n.in(1));
  return out(n, binaryOp<OpTy>(n, lhs, rhs));
}

/// Sum, Max, Min, Mean: any number of operands, broadcast.
template <typename OpTy>
LogicalResult variadic(NodeImporter &n) {
  if (failed(n.checkAttrs({"consumed_inputs"})) || n.numInputs() == 0)
    return n.fail("needs at least one input");
  Value acc = n.in(0);
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    TRY(n.in(i));
    acc = binaryOp<OpTy>(n, acc, n.in(i));
    TRY(acc);
  }
  if (n.opType() == "Mean") {
    if (!isa<FloatType>(elemOf(acc)))
      return n.fail("Mean needs floating-point inputs");
    acc = n.create<DivOp>(acc, n.scalar(elemOf(acc), n.numInputs()));
  }
  return out(n, acc);
}

template <CmpPredicate P>
LogicalResult compare(NodeImporter &n) {
  if (failed(n.checkAttrs({"broadcast", "axis"})) || failed(need(n, 2)))
    return failure();
  SmallVector<Value> ops = {n.in(0), Value()};
  ops[1] = legacyBroadcast(n, ops[0], n.in(1));
  if (failed(stretchUnitSizes(n, ops)))
    return failure();
  return out(n, n.create<CmpOp>(P, ops[0], ops[1]));
}

LogicalResult convertWhere(NodeImporter &n) {
  if (failed(need(n, 3)))
    return failure();
  SmallVector<Value> ops = {n.in(0), n.in(1), n.in(2)};
  if (failed(stretchUnitSizes(n, ops)))
    return failure();
  return out(n, n.create<SelectOp>(ops[0], ops[1], ops[2]));
}

LogicalResult convertIdentity(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  n.setOut(0, n.in(0));
  return success();
}

LogicalResult convertDropout(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  if (n.attrInt("is_test", 1) == 0 && n.opset < 7)
    return n.fail("training-mode Dropout is not supported");
  if (n.has(2)) {
    auto training = n.constIn(2);
    auto v = training ? readHostValues(*training) : std::nullopt;
    if (!v || v->size() != 1 || v->intAt(0) != 0)
      return n.fail("training-mode Dropout (random) is not supported");
  }
  Value x = n.in(0);
  n.setOut(0, x);
  if (n.wantsOutput(1)) {
    auto type = cast<RankedTensorType>(x.getType());
    if (!type.hasStaticShape())
      return n.fail("Dropout's mask output needs a static shape");
    auto maskType = type.clone(IntegerType::get(n.ctx, 1));
    n.setConstOut(1, DenseElementsAttr::get(maskType, true));
  }
  return success();
}

/// Cast or CastLike to or from a narrow type (narrow::isNarrow): float
/// codes decoded to f32 (exact), then cast or encoded.
LogicalResult castNarrow(NodeImporter &n, Type to, int32_t toNarrow) {
  Value x = n.in(0);
  int32_t from = n.narrowIn(0);
  if (from && narrow::isFloat(from))
    x = narrow::decodeFloat(n, x, from);
  Value y = toNarrow
                ? narrow::encode(n, x, toNarrow, n.attrInt("saturate", 1) != 0,
                                 n.attrString("round_mode", "up"))
                : n.cast(x, to);
  if (!y)
    return failure();
  n.setOut(0, y);
  n.setNarrowOut(0, toNarrow);
  return success();
}

LogicalResult convertCast(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Type to;
  int32_t toNarrow = 0;
  if (n.opType() == "CastLike") {
    TRY(n.in(1));
    to = elemOf(n.in(1));
    toNarrow = n.narrowIn(1);
  } else {
    const auto *a = n.attr("to");
    if (!a)
      return n.fail("Cast needs the 'to' attribute");
    std::string why;
    int32_t dt = a->i();
    if (a->type() == onnx::AttributeProto::STRING) {
      // Opset 1 spells the type as a string ("FLOAT").
      std::string s = a->s();
      static const std::pair<const char *, int32_t> names[] = {
          {"FLOAT", onnx::TensorProto::FLOAT},
          {"DOUBLE", onnx::TensorProto::DOUBLE},
          {"FLOAT16", onnx::TensorProto::FLOAT16},
          {"INT8", onnx::TensorProto::INT8},
          {"INT16", onnx::TensorProto::INT16},
          {"INT32", onnx::TensorProto::INT32},
          {"INT64", onnx::TensorProto::INT64},
          {"BOOL", onnx::TensorProto::BOOL}};
      dt = -1;
      for (auto [name, value] : names)
        if (s == name)
          dt = value;
    }
    to = convertElementType(n.ctx, dt, why);
    if (!to)
      return n.fail("cannot cast to " + why.substr(0, why.find(" is not")) +
                    (why.find("unsigned") != std::string::npos
                         ? ": Tide has no unsigned integer types yet"
                         : ": not supported"));
    if (narrow::isNarrow(dt))
      toNarrow = dt;
  }
  TRY(n.in(0));
  if (toNarrow || n.narrowIn(0))
    return castNarrow(n, to, toNarrow);
  return out(n, n.cast(n.in(0), to));
}

/// BitCast (opset 26): the bits read as `to`, of the same width. ONNX
/// stores a bool in a byte: bool to (u)int8 is its 0 or 1, (u)int8 to bool
/// is != 0 (bytes other than 0 and 1 are no valid bool).
LogicalResult convertBitCast(NodeImporter &n) {
  if (failed(n.checkAttrs({"to"})) || failed(need(n, 1)))
    return failure();
  const auto *a = n.attr("to");
  if (!a)
    return n.fail("BitCast needs the 'to' attribute");
  std::string why;
  Type to = convertElementType(n.ctx, static_cast<int32_t>(a->i()), why);
  if (!to)
    return n.fail("cannot bit-cast to " + why);
  Value x = n.in(0);
  Type from = elemOf(x);
  unsigned fromBits = from.isInteger(1) ? 8 : from.getIntOrFloatBitWidth();
  unsigned toBits = to.isInteger(1) ? 8 : to.getIntOrFloatBitWidth();
  if (fromBits != toBits)
    return n.fail("BitCast needs types of one width, got " +
                  std::to_string(fromBits) + " and " + std::to_string(toBits) +
                  " bits");
  if (from.isInteger(1) || to.isInteger(1))
    return out(n, n.cast(x, to));
  auto type = cast<RankedTensorType>(x.getType()).clone(to);
  return out(n, n.make<BitcastOp>(type, x));
}

//===----------------------------------------------------------------------===//
// Activations (ONNX functions and simple compositions)
//===----------------------------------------------------------------------===//

Value sc(NodeImporter &n, Value like, double v) {
  return n.scalar(elemOf(like), v);
}

LogicalResult requireFloat(NodeImporter &n, Value x) {
  if (!isa<FloatType>(elemOf(x)))
    return n.fail(n.opType() + " needs a floating-point input");
  return success();
}

LogicalResult convertReciprocal(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, n.create<DivOp>(sc(n, n.in(0), 1.0), n.in(0)));
}

LogicalResult convertLeakyRelu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Value neg = n.create<CmpOp>(CmpPredicate::lt, x, sc(n, x, 0));
  Value scaled = n.create<MulOp>(x, sc(n, x, n.attrFloat("alpha", 0.01)));
  TRY(neg && scaled);
  return out(n, n.create<SelectOp>(neg, scaled, x));
}

LogicalResult convertPRelu(NodeImporter &n) {
  if (failed(need(n, 2)))
    return failure();
  Value x = n.in(0), slope = n.in(1);
  if (n.opset < 7 && rankOf(slope) == 1 && rankOf(x) > 2 &&
      shapeOf(slope)[0] == shapeOf(x)[1]) {
    Shape s(rankOf(x) - 1, 1);
    s[0] = shapeOf(slope)[0];
    slope = n.reshape(slope, s);
  }
  Value neg = n.create<CmpOp>(CmpPredicate::lt, x, sc(n, x, 0));
  Value scaled = binaryOp<MulOp>(n, x, slope);
  TRY(neg && scaled);
  SmallVector<Value> ops = {neg, scaled, x};
  if (failed(stretchUnitSizes(n, ops)))
    return failure();
  return out(n, n.create<SelectOp>(ops[0], ops[1], ops[2]));
}

LogicalResult convertElu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n,
             n.make<EluOp>(n.in(0), llvm::APFloat(n.attrFloat("alpha", 1.0))));
}

LogicalResult convertSelu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  double alpha = n.attrFloat("alpha", 1.67326319217681884765625);
  double gamma = n.attrFloat("gamma", 1.05070102214813232421875);
  return out(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
               Value e = n.make<EluOp>(x, llvm::APFloat(alpha));
               return e ? n.create<MulOp>(e, sc(n, x, gamma)) : Value();
             }));
}

LogicalResult convertCelu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  double alpha = n.attrFloat("alpha", 1.0);
  // ONNX's function body, max(0, x) + min(0, alpha * (exp(x / alpha) - 1)):
  // a positive x comes back exactly (alpha * elu(x / alpha) need not, and a
  // Mod or Equal after it would see the difference). exp(x / alpha) - 1 is
  // elu(x / alpha) where x / alpha <= 0, so for a positive alpha (expm1's
  // accuracy); a negative alpha takes it as written.
  return out(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
               Value scaled = n.create<DivOp>(x, sc(n, x, alpha));
               Value e;
               if (alpha > 0)
                 e = scaled ? n.make<EluOp>(scaled, llvm::APFloat(1.0))
                            : Value();
               else if (Value ex = scaled ? n.make<ExpOp>(scaled) : Value())
                 e = n.create<SubOp>(ex, sc(n, x, 1));
               Value neg = e ? n.create<MulOp>(e, sc(n, x, alpha)) : Value();
               neg = neg ? n.create<MinimumOp>(neg, sc(n, x, 0)) : Value();
               Value pos = n.create<MaximumOp>(x, sc(n, x, 0));
               return neg && pos ? n.create<AddOp>(pos, neg) : Value();
             }));
}

Value hardSigmoid(NodeImporter &n, Value x, double alpha, double beta) {
  Value y = n.create<MulOp>(x, sc(n, x, alpha));
  if (!y)
    return {};
  y = n.create<AddOp>(y, sc(n, x, beta));
  if (!y)
    return {};
  y = n.create<MaximumOp>(y, sc(n, x, 0));
  if (!y)
    return {};
  return n.create<MinimumOp>(y, sc(n, x, 1));
}

LogicalResult convertHardSigmoid(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  double alpha = n.attrFloat("alpha", 0.2), beta = n.attrFloat("beta", 0.5);
  return out(n, inWideFloat(n, n.in(0), [&](Value x) {
               return hardSigmoid(n, x, alpha, beta);
             }));
}

LogicalResult convertHardSwish(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
               Value h = hardSigmoid(n, x, 1.0 / 6.0, 0.5);
               return h ? n.create<MulOp>(x, h) : Value();
             }));
}

/// log(1 + e^x) without overflow: max(x, 0) + log(1 + e^-|x|).
Value softplus(NodeImporter &n, Value x) {
  Value pos = n.create<MaximumOp>(x, sc(n, x, 0));
  Value negAbs = n.make<NegOp>(n.make<AbsOp>(x));
  Value e = n.make<ExpOp>(negAbs);
  Value l = n.make<LogOp>(n.create<AddOp>(e, sc(n, x, 1)));
  if (!pos || !l)
    return {};
  return n.create<AddOp>(pos, l);
}

LogicalResult convertSoftplus(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n,
             inWideFloat(n, n.in(0), [&](Value x) { return softplus(n, x); }));
}

LogicalResult convertSoftsign(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
               Value d = n.create<AddOp>(n.make<AbsOp>(x), sc(n, x, 1));
               return d ? n.create<DivOp>(x, d) : Value();
             }));
}

LogicalResult convertMish(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, inWideFloat(n, n.in(0), [&](Value x) -> Value {
               Value sp = softplus(n, x);
               return sp ? n.create<MulOp>(x, n.make<TanhOp>(sp)) : Value();
             }));
}

/// x * sigmoid(alpha * x).
Value swish(NodeImporter &n, Value x, double alpha) {
  Value scaled = alpha == 1.0 ? x : n.create<MulOp>(x, sc(n, x, alpha));
  Value s = n.make<SigmoidOp>(scaled);
  if (!s)
    return {};
  return n.create<MulOp>(x, s);
}

/// Swish (opset 24).
LogicalResult convertSwish(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha"})) || failed(need(n, 1)) ||
      failed(requireFloat(n, n.in(0))))
    return failure();
  double alpha = n.attrFloat("alpha", 1.0);
  return out(
      n, inWideFloat(n, n.in(0), [&](Value x) { return swish(n, x, alpha); }));
}

/// SwiGLU (opset 28): Swish_alpha(A) * B, A and B of one shape.
LogicalResult convertSwiGLU(NodeImporter &n) {
  if (failed(n.checkAttrs({"alpha"})) || failed(need(n, 2)) ||
      failed(requireFloat(n, n.in(0))))
    return failure();
  Value a = n.in(0), b = n.in(1);
  if (elemOf(a) != elemOf(b) || shapeOf(a) != shapeOf(b))
    return n.fail("SwiGLU needs A and B of one type and shape (it does not "
                  "broadcast), got " +
                  shapeString(shapeOf(a)) + " and " + shapeString(shapeOf(b)));
  double alpha = n.attrFloat("alpha", 1.0);
  Type type = elemOf(a);
  bool wide = type.isF16() || type.isBF16();
  if (wide) {
    a = n.cast(a, n.b.getF32Type());
    b = n.cast(b, n.b.getF32Type());
  }
  Value g = swish(n, a, alpha);
  TRY(g);
  Value y = n.create<MulOp>(g, b);
  return out(n, wide && y ? n.cast(y, type) : y);
}

LogicalResult convertThresholdedRelu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Value gt =
      n.create<CmpOp>(CmpPredicate::gt, x, sc(n, x, n.attrFloat("alpha", 1)));
  TRY(gt);
  return out(n, n.create<SelectOp>(gt, x, sc(n, x, 0)));
}

LogicalResult convertGelu(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  std::string approx = n.attrString("approximate", "none");
  if (approx != "none" && approx != "tanh")
    return n.fail("approximate = '" + approx +
                  "' is not a Gelu mode (none or tanh)");
  return out(n, geluOf(n, n.in(0), approx == "tanh"));
}

LogicalResult convertIsNaN(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, n.create<CmpOp>(CmpPredicate::ne, n.in(0), n.in(0)));
}

LogicalResult convertIsInf(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  bool pos = n.attrInt("detect_positive", 1),
       neg = n.attrInt("detect_negative", 1);
  double inf = std::numeric_limits<double>::infinity();
  Value isPos = n.create<CmpOp>(CmpPredicate::eq, x, sc(n, x, inf));
  Value isNeg = n.create<CmpOp>(CmpPredicate::eq, x, sc(n, x, -inf));
  TRY(isPos && isNeg);
  if (pos && neg)
    return out(n, n.create<OrOp>(isPos, isNeg));
  if (pos)
    return out(n, isPos);
  if (neg)
    return out(n, isNeg);
  return out(n, n.create<AndOp>(isPos, isNeg)); // never true
}

LogicalResult convertClip(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  Value lo, hi;
  if (n.opset < 11) {
    if (n.attr("min"))
      lo = sc(n, x, n.attrFloat("min", 0));
    if (n.attr("max"))
      hi = sc(n, x, n.attrFloat("max", 0));
  } else {
    if (n.has(1))
      lo = n.in(1);
    if (n.has(2))
      hi = n.in(2);
  }
  // A bound not given is the type's lowest or largest value (ONNX's
  // defaults, as ONNX Runtime): for floats that clamps infinities to the
  // largest finite values.
  if (auto ft = dyn_cast<FloatType>(elemOf(x))) {
    double largest =
        llvm::APFloat::getLargest(ft.getFloatSemantics()).convertToDouble();
    if (!lo)
      lo = sc(n, x, -largest);
    if (!hi)
      hi = sc(n, x, largest);
  }
  if (lo) {
    x = n.create<MaximumOp>(x, lo);
    TRY(x);
  }
  if (hi) {
    x = n.create<MinimumOp>(x, hi);
    TRY(x);
  }
  return out(n, x);
}

LogicalResult convertPow(NodeImporter &n) {
  if (failed(need(n, 2)))
    return failure();
  SmallVector<Value> ops = {n.in(0), Value()};
  ops[1] = legacyBroadcast(n, n.in(0), n.in(1));
  if (failed(stretchUnitSizes(n, ops)))
    return failure();
  Value x = ops[0], y = ops[1];
  Type t = elemOf(x);
  if (auto ft = dyn_cast<FloatType>(t)) {
    // An exponent of a wider float type is not rounded to the base's first
    // (ONNX Runtime computes pow(float, double) in double): the power in the
    // wider type, rounded once to the base's.
    auto fy = dyn_cast<FloatType>(elemOf(y));
    if (fy && fy.getWidth() > ft.getWidth()) {
      Value r = n.create<PowOp>(n.cast(x, fy), y);
      TRY(r);
      return out(n, n.cast(r, t));
    }
    return out(n, n.create<PowOp>(x, n.cast(y, t)));
  }
  // Integer bases: compute in f64 (exact for results below 2^53).
  Type f64 = Float64Type::get(n.ctx);
  Value r = n.create<PowOp>(n.cast(x, f64), n.cast(y, f64));
  TRY(r);
  return out(n, n.cast(r, t));
}

/// ONNX Mod: the divisor's sign (Python, tide.mod) unless fmod = 1 (C,
/// tide.rem); floats need fmod = 1 before opset 28.
LogicalResult convertMod(NodeImporter &n) {
  if (failed(n.checkAttrs({"fmod"})) || failed(need(n, 2)))
    return failure();
  bool fmod = n.attrInt("fmod", 0);
  // Opset 28 defines fmod = 0 on floats as NumPy's floored modulo.
  if (isa<FloatType>(elemOf(n.in(0))) && !fmod && n.opset < 28)
    return n.fail("Mod of floating-point values needs fmod = 1 (or opset 28, "
                  "which defines fmod = 0 on them)");
  SmallVector<Value> ops = {n.in(0), n.in(1)};
  if (failed(stretchUnitSizes(n, ops)))
    return failure();
  if (fmod)
    return out(n, n.create<RemOp>(ops[0], ops[1]));
  return out(n, n.create<ModOp>(ops[0], ops[1]));
}

/// ONNX BitShift: tide.shl / tide.shr (logical on unsigned integers; signed
/// ones, from opset 28, shift right arithmetically).
LogicalResult convertBitShift(NodeImporter &n) {
  if (failed(n.checkAttrs({"direction"})) || failed(need(n, 2)))
    return failure();
  const auto *a = n.attr("direction");
  if (!a || (a->s() != "LEFT" && a->s() != "RIGHT"))
    return n.fail("BitShift needs direction = \"LEFT\" or \"RIGHT\"");
  if (a->s() == "LEFT")
    return out(n, n.create<ShlOp>(n.in(0), n.in(1)));
  // Signed integers (opset 28) shift arithmetically: a negative x is
  // ~(~x >> s), whose logical shift fills with ones (-1 once s is out of
  // range); tide.shr alone is logical.
  auto it = dyn_cast<IntegerType>(elemOf(n.in(0)));
  if (it && !it.isUnsigned() && it.getWidth() > 1) {
    Value x = n.in(0);
    Value neg = n.create<CmpOp>(CmpPredicate::lt, x, sc(n, x, 0));
    Value fill = n.make<NotOp>(n.create<ShrOp>(n.make<NotOp>(x), n.in(1)));
    Value plain = n.create<ShrOp>(x, n.in(1));
    TRY(neg && fill && plain);
    return out(n, n.create<SelectOp>(neg, fill, plain));
  }
  return out(n, n.create<ShrOp>(n.in(0), n.in(1)));
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

Value matmul(NodeImporter &n, Value a, Value b) {
  bool aVec = rankOf(a) == 1, bVec = rankOf(b) == 1;
  if (aVec)
    a = n.reshape(a, {1, shapeOf(a)[0]});
  if (bVec)
    b = n.reshape(b, {shapeOf(b)[0], 1});
  Value r = n.create<MatmulOp>(a, b);
  if (!r || (!aVec && !bVec))
    return r;
  Shape s = shapeOf(r);
  if (bVec)
    s.pop_back();
  if (aVec)
    s.erase(s.end() - (bVec ? 1 : 2));
  return n.reshape(r, s);
}

LogicalResult convertMatMul(NodeImporter &n) {
  if (failed(need(n, 2)))
    return failure();
  if (rankOf(n.in(0)) == 0 || rankOf(n.in(1)) == 0)
    return n.fail("MatMul operands must have rank 1 or more");
  // Batch dimensions broadcast (a run-time size of 1 too); a vector has none.
  SmallVector<Value> ops = {n.in(0), n.in(1)};
  if (rankOf(ops[0]) > 2 && rankOf(ops[1]) > 2 &&
      failed(stretchUnitSizes(n, ops, /*skip=*/2)))
    return failure();
  return out(n, matmul(n, ops[0], ops[1]));
}

Value transpose2D(NodeImporter &n, Value v) {
  return n.create<TransposeOp>(v, ArrayRef<int64_t>{1, 0});
}

LogicalResult convertGemm(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"alpha", "beta", "transA", "transB", "broadcast"})) ||
      failed(need(n, 2)))
    return failure();
  Value a = n.in(0), b = n.in(1);
  if (rankOf(a) != 2 || rankOf(b) != 2)
    return n.fail("Gemm operands must be matrices");
  if (n.attrInt("transA", 0))
    TRY(a = transpose2D(n, a));
  if (n.attrInt("transB", 0))
    TRY(b = transpose2D(n, b));
  Value y = n.create<MatmulOp>(a, b);
  TRY(y);
  double alpha = n.attrFloat("alpha", 1.0), beta = n.attrFloat("beta", 1.0);
  if (alpha != 1.0)
    TRY(y = n.create<MulOp>(y, sc(n, y, alpha)));
  if (n.has(2) && beta != 0.0) {
    Value c = n.in(2);
    if (beta != 1.0)
      TRY(c = n.create<MulOp>(c, sc(n, c, beta)));
    TRY(y = binaryOp<AddOp>(n, y, c));
  }
  return out(n, y);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The axes of a reduction (attribute before the opset that moved them to an
/// input), normalized; empty means "all" unless noop_with_empty_axes.
FailureOr<std::optional<Shape>> reductionAxes(NodeImporter &n, int64_t rank,
                                              int64_t inputSince) {
  Shape axes;
  bool given = false;
  if (n.opset >= inputSince) {
    // The attribute is gone from this opset: reducing every axis instead
    // would be a result of another shape.
    if (n.attr("axes"))
      return (void)n.fail("'axes' is an input from opset " + Twine(inputSince) +
                          ", not an attribute"),
             failure();
    if (n.has(1)) {
      auto v = n.requireInts(1, "axes");
      if (failed(v))
        return failure();
      axes = *v;
      given = true;
    }
  } else if (auto a = n.attrInts("axes")) {
    axes = *a;
    given = true;
  }
  if (!given || axes.empty()) {
    if (n.attrInt("noop_with_empty_axes", 0))
      return std::optional<Shape>();
    axes.clear();
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  for (int64_t &a : axes) {
    auto na = n.normAxis(a, rank);
    if (failed(na))
      return failure();
    a = *na;
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    n.error() << "reduction axes repeat an axis";
    return failure();
  }
  return std::optional<Shape>(axes);
}

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

template <ReduceKind K>
LogicalResult convertReduce(NodeImporter &n) {
  if (failed(n.checkAttrs({"axes", "keepdims", "noop_with_empty_axes"})) ||
      failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  int64_t since = K == ReduceKind::Sum ? 13 : 18;
  auto axes = reductionAxes(n, rank, since);
  if (failed(axes))
    return failure();
  bool keep = n.attrInt("keepdims", 1);
  if (!*axes) {
    // noop_with_empty_axes: the input, after the elementwise part.
    switch (K) {
    case ReduceKind::L1:
      return out(n, n.make<AbsOp>(x));
    case ReduceKind::L2:
      return out(n, n.make<AbsOp>(x));
    case ReduceKind::SumSquare:
      return out(n, n.create<MulOp>(x, x));
    case ReduceKind::LogSum:
      return out(n, n.make<LogOp>(x));
    default:
      return out(n, x);
    }
  }
  Shape ax = **axes;
  // Reducing nothing (a rank-0 input): the identity.
  if (ax.empty() && rank == 0) {
    if (K == ReduceKind::SumSquare)
      return out(n, n.create<MulOp>(x, x));
    if (K == ReduceKind::L1 || K == ReduceKind::L2)
      return out(n, n.make<AbsOp>(x));
    if (K == ReduceKind::LogSum)
      return out(n, n.make<LogOp>(x));
    return out(n, x);
  }
  auto sum = [&](Value v) { return n.create<ReduceSumOp>(v, ax, keep); };
  switch (K) {
  case ReduceKind::Sum:
    return out(n, sum(x));
  case ReduceKind::Mean: {
    if (isa<FloatType>(elemOf(x)))
      return out(n, n.create<ReduceMeanOp>(x, ax, keep));
    // Integers (as ONNX Runtime computes them): the sum divided by the
    // count, truncated.
    SmallVector<SymDim> dims = n.dimsOf(x), reduced;
    for (int64_t a : ax)
      reduced.push_back(dims[a < 0 ? a + rank : a]);
    SymDim count = productOf(n, reduced);
    Value total = sum(x);
    TRY(total);
    Value divisor;
    if (count.isConst()) {
      divisor = sc(n, total, static_cast<double>(count.value));
    } else {
      Value c = n.shapeOperand({count});
      TRY(c);
      divisor = n.cast(n.reshape(c, {}), elemOf(x));
    }
    TRY(divisor);
    return out(n, n.create<DivOp>(total, divisor));
  }
  case ReduceKind::Max:
  case ReduceKind::Min: {
    // Booleans (opset 20): any / all, through ui8, whose empty maximum is 0
    // (false) and empty minimum 255 (true).
    Type bit = elemOf(x);
    if (bit.isInteger(1))
      x = n.cast(x, IntegerType::get(n.ctx, 8, IntegerType::Unsigned));
    Value r = K == ReduceKind::Max ? n.create<ReduceMaxOp>(x, ax, keep)
                                   : n.create<ReduceMinOp>(x, ax, keep);
    TRY(r);
    return out(n, bit.isInteger(1) ? n.cast(r, bit) : r);
  }
  case ReduceKind::Prod:
    return out(n, n.create<ReduceProdOp>(x, ax, keep));
  case ReduceKind::L1:
    return out(n, sum(n.make<AbsOp>(x)));
  case ReduceKind::SumSquare:
    return out(n, sum(n.create<MulOp>(x, x)));
  case ReduceKind::L2: {
    Value s = sum(n.create<MulOp>(x, x));
    TRY(s);
    if (!isa<FloatType>(elemOf(s))) {
      // Integer L2: the root in f64, truncated back as ONNX's reference does.
      Value r = n.make<SqrtOp>(n.cast(s, Float64Type::get(n.ctx)));
      TRY(r);
      return out(n, n.cast(r, elemOf(s)));
    }
    return out(n, n.make<SqrtOp>(s));
  }
  case ReduceKind::LogSum: {
    if (failed(requireFloat(n, x)))
      return failure();
    Value s = sum(x);
    TRY(s);
    return out(n, n.make<LogOp>(s));
  }
  case ReduceKind::LogSumExp: {
    if (failed(requireFloat(n, x)))
      return failure();
    Value m = n.create<ReduceMaxOp>(x, ax, /*keepdims=*/true);
    TRY(m);
    // A max of -inf (all -inf) or +inf would make x - m NaN; use 0 there
    // (the sum is then 0 or inf, and the result -inf or inf).
    Value isInf =
        n.create<CmpOp>(CmpPredicate::eq, n.make<AbsOp>(m),
                        sc(n, m, std::numeric_limits<double>::infinity()));
    TRY(isInf);
    m = n.create<SelectOp>(isInf, sc(n, m, 0), m);
    TRY(m);
    Value e = n.make<ExpOp>(n.create<SubOp>(x, m));
    TRY(e);
    Value s = sum(e);
    TRY(s);
    Value l = n.make<LogOp>(s);
    TRY(l);
    Value mk = keep ? m : n.reshape(m, shapeOf(l));
    return out(n, n.create<AddOp>(l, mk));
  }
  }
  return failure();
}

Value take(NodeImporter &n, Value data, Value indices, int64_t axis);
Value indexVector(NodeImporter &n, ArrayRef<SymDim> values, Type it);

/// `x` with `axis` reversed: one take at positions size - 1, ..., 0
/// (computed from an iota when the size is known only at run time: x's own
/// size, not that of a value the model says has the same size, so that a
/// model whose inputs disagree at run time fails the check of the op that
/// combines them rather than reading clamped positions here).
Value reverseAxis(NodeImporter &n, Value x, int64_t axis) {
  SymDim size = cast<RankedTensorType>(x.getType()).isDynamicDim(axis)
                    ? SymDim::dim(x, axis)
                    : n.dimOf(x, axis);
  Type i64 = n.b.getI64Type();
  Value positions;
  if (size.isConst()) {
    SmallVector<SymDim> ints;
    for (int64_t k = size.value - 1; k >= 0; --k)
      ints.push_back(SymDim::constant(k));
    if (ints.size() <= 1)
      return x;
    positions = indexVector(n, ints, i64);
  } else {
    Value shape = n.shapeOperand({size});
    if (!shape)
      return {};
    Value iota = n.make<IotaOp>(n.typeOf({size}, i64), shape, 0);
    Value last = n.shapeOperand({n.combine("Sub", size, SymDim::constant(1))});
    if (!iota || !last)
      return {};
    positions = n.create<SubOp>(last, iota);
  }
  if (!positions)
    return {};
  return take(n, x, positions, axis);
}

template <bool IsMax>
LogicalResult convertArg(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "keepdims", "select_last_index"})) ||
      failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  auto axis = n.normAxis(n.attrInt("axis", 0), rankOf(x));
  if (failed(axis))
    return failure();
  bool keep = n.attrInt("keepdims", 1);
  if (n.attrInt("select_last_index", 0)) {
    // The last index of the extreme: reverse the axis, take the first, map
    // back with size - 1 - i.
    Value rev = reverseAxis(n, x, *axis);
    TRY(rev);
    Value idx = IsMax ? n.create<ArgmaxOp>(rev, Shape{*axis}, keep)
                      : n.create<ArgminOp>(rev, Shape{*axis}, keep);
    TRY(idx);
    SymDim size = n.dimOf(x, *axis);
    if (size.isConst())
      return out(n, n.create<SubOp>(sc(n, idx, size.value - 1), idx));
    Value last = n.shapeOperand({n.combine("Sub", size, SymDim::constant(1))});
    last = n.reshape(last, {});
    TRY(last);
    return out(n, n.create<SubOp>(last, idx));
  }
  if (IsMax)
    return out(n, n.create<ArgmaxOp>(x, Shape{*axis}, keep));
  return out(n, n.create<ArgminOp>(x, Shape{*axis}, keep));
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult convertSoftmax(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis"})) || failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank == 0)
    return n.fail("Softmax needs a tensor of rank 1 or more");
  if (n.opset >= 13) {
    auto axis = n.normAxis(n.attrInt("axis", -1), rank);
    if (failed(axis))
      return failure();
    return out(n, n.make<OpTy>(x, *axis));
  }
  // Before opset 13: the input is coerced to 2-D at `axis`.
  auto axis = n.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return n.fail("axis " + llvm::Twine(n.attrInt("axis", 1)) +
                  " is out of range");
  Shape s = shapeOf(x);
  auto prod = [&](auto b, auto e) {
    int64_t p = 1;
    for (auto it = b; it != e; ++it) {
      if (ShapedType::isDynamic(*it))
        return ShapedType::kDynamic;
      p *= *it;
    }
    return p;
  };
  int64_t rows = prod(s.begin(), s.begin() + axis);
  int64_t cols = prod(s.begin() + axis, s.end());
  if (ShapedType::isDynamic(cols) || (ShapedType::isDynamic(rows) && axis != 1))
    return n.fail("Softmax before opset 13 needs static dimensions");
  Value flat = n.reshape(x, {rows, cols});
  Value r = n.make<OpTy>(flat, 1);
  TRY(r);
  return out(n, n.reshape(r, s));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// The size a Reshape's -1 stands for, from the input's sizes `in` and the
/// other entries `others`: static when the dynamic sizes cancel, a dynamic
/// dimension when one is left over, else computed at run time (a -1 entry
/// in the shape operand, which the lowering resolves).
FailureOr<SymDim> inferReshapeSize(NodeImporter &n, ArrayRef<SymDim> in,
                                   ArrayRef<SymDim> others) {
  using Root = std::pair<Value, int64_t>;
  // A product past int64 (tide-fuzz-onnx, UBSan) is an error.
  bool overflow = false;
  auto factor = [&overflow](ArrayRef<SymDim> dims, int64_t &c,
                            SmallVector<Root> &roots, bool &expr) {
    c = 1;
    for (const SymDim &d : dims) {
      if (d.isConst())
        overflow |= __builtin_mul_overflow(c, d.value, &c);
      else if (d.isDim())
        roots.push_back({d.source, d.axis});
      else
        expr = true;
    }
  };
  int64_t cin, cout;
  SmallVector<Root> rin, rout;
  bool ein = false, eout = false;
  factor(in, cin, rin, ein);
  factor(others, cout, rout, eout);
  if (overflow)
    return (void)n.fail("the shape's sizes multiply to more than 2^63 - 1"),
           failure();
  SymDim dynamic = SymDim::expr(n.constant(
      makeDense(RankedTensorType::get({1}, n.b.getI64Type()), {-1}, {})));
  if (ein || eout)
    return dynamic;
  for (const Root &r : rout) {
    auto it = llvm::find(rin, r);
    if (it == rin.end())
      return dynamic;
    rin.erase(it);
  }
  if (rin.empty()) {
    if (cout == 0 || cin % cout != 0)
      return (void)n.fail("cannot reshape " + llvm::Twine(cin) +
                          " elements into a shape whose known sizes "
                          "multiply to " +
                          llvm::Twine(cout)),
             failure();
    return SymDim::constant(cin / cout);
  }
  if (rin.size() == 1 && cin == cout)
    return SymDim::dim(rin[0].first, rin[0].second);
  return dynamic;
}

/// Reshape to a shape known up to run-time sizes.
LogicalResult convertReshapeSymbolic(NodeImporter &n, Value x,
                                     const ShapeValue &shape) {
  SmallVector<SymDim> in = n.dimsOf(x), target;
  bool allowZero = n.attrInt("allowzero", 0);
  int64_t inferAt = -1;
  for (auto [i, d] : llvm::enumerate(shape.elems)) {
    if (d.isConst(0) && !allowZero) {
      if (i >= in.size())
        return n.fail("shape entry " + llvm::Twine(i) +
                      " is 0 (copy the input's dimension) but the input has "
                      "rank " +
                      llvm::Twine(in.size()));
      target.push_back(in[i]);
    } else if (d.isConst(-1)) {
      if (inferAt >= 0)
        return n.fail("the shape has more than one -1");
      inferAt = i;
      target.push_back(d);
    } else if (d.isConst() && d.value < -1) {
      return n.fail("shape entry " + llvm::Twine(d.value) + " is not a size");
    } else if (d.kind == SymDim::Kind::Expr && !allowZero && i < in.size()) {
      // 0 at run time copies the input's size.
      target.push_back(
          n.select(n.combine("Equal", d, SymDim::constant(0)), in[i], d));
    } else {
      target.push_back(d);
    }
  }
  if (inferAt >= 0) {
    SmallVector<SymDim> others(target);
    others.erase(others.begin() + inferAt);
    auto size = inferReshapeSize(n, in, others);
    if (failed(size))
      return failure();
    target[inferAt] = *size;
  }
  return out(n, n.reshapeTo(x, target));
}

LogicalResult convertReshape(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  if (n.opset >= 5)
    if (auto shape = n.shapeIn(1); shape && !shape->isConstant())
      return convertReshapeSymbolic(n, n.in(0), *shape);
  Shape target;
  if (n.opset < 5) {
    auto s = n.attrInts("shape");
    if (!s)
      return n.fail("Reshape needs the 'shape' attribute");
    target = *s;
  } else {
    auto s = n.requireInts(1, "shape");
    if (failed(s))
      return failure();
    target = *s;
  }
  Value x = n.in(0);
  Shape in = shapeOf(x);
  // Run-time input sizes: the result's sizes as expressions of them (a
  // reshape with more than one run-time size takes them as an operand).
  if (llvm::any_of(in, ShapedType::isDynamic)) {
    ShapeValue shape{
        RankedTensorType::get({static_cast<int64_t>(target.size())},
                              n.b.getI64Type()),
        {}};
    for (int64_t d : target)
      shape.elems.push_back(SymDim::constant(d));
    return convertReshapeSymbolic(n, x, shape);
  }
  bool allowZero = n.attrInt("allowzero", 0);
  int64_t known = 1, inferAt = -1;
  bool dynamic = false;
  for (auto [i, d] : llvm::enumerate(target)) {
    if (d == 0 && !allowZero) {
      if (i >= in.size())
        return n.fail("shape entry " + llvm::Twine(i) +
                      " is 0 (copy the input's dimension) but the input has "
                      "rank " +
                      llvm::Twine(in.size()));
      d = in[i];
      if (ShapedType::isDynamic(d)) {
        dynamic = true;
        continue;
      }
    }
    if (d == -1) {
      if (inferAt >= 0)
        return n.fail("the shape has more than one -1");
      inferAt = i;
      continue;
    }
    if (d < -1)
      return n.fail("shape entry " + llvm::Twine(d) + " is not a size");
    if (ShapedType::isDynamic(d))
      dynamic = true;
    else if (llvm::MulOverflow(known, d, known))
      return n.fail("the shape's sizes multiply to more than 2^63 - 1");
  }
  if (inferAt >= 0) {
    int64_t total = 1;
    for (int64_t d : in) {
      if (ShapedType::isDynamic(d)) {
        dynamic = true;
        break;
      }
      if (llvm::MulOverflow(total, d, total))
        return n.fail("the input's sizes multiply to more than 2^63 - 1");
    }
    if (dynamic)
      target[inferAt] = ShapedType::kDynamic;
    else if (known == 0 || total % known != 0)
      return n.fail("cannot reshape " + llvm::Twine(total) +
                    " elements into a shape whose known sizes multiply to " +
                    llvm::Twine(known));
    else
      target[inferAt] = total / known;
  }
  auto type = cast<RankedTensorType>(x.getType()).clone(target);
  return out(n, n.make<ReshapeOp>(type, x));
}

LogicalResult convertFlatten(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  int64_t axis = n.attrInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return n.fail("axis " + llvm::Twine(n.attrInt("axis", 1)) +
                  " is out of range for rank " + llvm::Twine(rank));
  SmallVector<SymDim> dims = n.dimsOf(x);
  SymDim a = SymDim::constant(1), b = SymDim::constant(1);
  for (int64_t i = 0; i < rank; ++i) {
    SymDim &p = i < axis ? a : b;
    p = n.combine("Mul", p, dims[i]);
  }
  return out(n, n.reshapeTo(x, {a, b}));
}

FailureOr<Shape> axesFromAttrOrInput(NodeImporter &n, int64_t inputSince,
                                     bool required) {
  if (n.opset >= inputSince) {
    if (!n.has(1)) {
      if (required)
        return (void)n.fail("needs the axes input"), failure();
      return Shape();
    }
    auto v = n.requireInts(1, "axes");
    if (failed(v))
      return failure();
    return Shape(*v);
  }
  auto a = n.attrInts("axes");
  if (!a) {
    if (required)
      return (void)n.fail("needs the 'axes' attribute"), failure();
    return Shape();
  }
  return Shape(*a);
}

/// Squeeze without axes whose declared result rank needs some, but not all,
/// of the sizes known only at run time to be 1: which ones is known only
/// when the model runs, so the result's sizes are computed then. Output
/// size j is the j-th size of the input other than 1 (those statically 1
/// are dropped, the static others kept): with k_i = (d_i != 1) and c_i =
/// k_0 + ... + k_i, size j = sum over i of k_i * d_i where c_i = j + 1. A
/// tide.check ends the call when the input has another count of sizes
/// other than 1 than the declared rank.
LogicalResult squeezeSomeAtRunTime(NodeImporter &n, Value x,
                                   ArrayRef<bool> staticallyOne, int64_t rank) {
  SmallVector<SymDim> dims = n.dimsOf(x), kept, ends;
  SymDim one = SymDim::constant(1), zero = SymDim::constant(0), count = zero;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (staticallyOne[i])
      continue;
    SymDim keep = n.select(n.combine("Equal", d, one), zero, one);
    count = n.combine("Add", count, keep);
    kept.push_back(n.combine("Mul", keep, d));
    ends.push_back(count);
  }
  SmallVector<SymDim> sizes;
  for (int64_t j = 0; j < rank; ++j) {
    SymDim size = zero;
    for (auto [k, c] : llvm::zip(kept, ends))
      size = n.combine(
          "Add", size,
          n.select(n.combine("Equal", c, SymDim::constant(j + 1)), k, zero));
    sizes.push_back(size);
  }
  Value holds = n.scalarOf(n.combine("Equal", count, SymDim::constant(rank)),
                           IntegerType::get(n.ctx, 1));
  TRY(holds);
  std::string what =
      "Squeeze without axes: the model declares a result of rank " +
      std::to_string(rank) +
      ", and the input's sizes other than 1 at run time are not that many";
  x = n.make<CheckOp>(x.getType(), x, holds, n.b.getStringAttr(what));
  TRY(x);
  return out(n, n.reshapeTo(x, sizes));
}

LogicalResult convertSqueeze(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  auto axes = axesFromAttrOrInput(n, 13, false);
  if (failed(axes))
    return failure();
  Shape s = shapeOf(x);
  SmallVector<bool> drop(s.size(), false);
  if (axes->empty()) {
    // Every dimension of size 1 goes. Whether a run-time size is 1 decides
    // the result's rank, which Tide needs while compiling: the rank the
    // model declares for the output decides (all run-time sizes 1, none, or
    // some: those that are 1 when it runs, squeezeSomeAtRunTime); without
    // one they are kept. Either way it is checked when the model
    // runs (the reshape below checks dropped ones are 1; a check here that
    // kept ones are not), so a size that does not fit is an error, never a
    // result of another shape.
    SmallVector<int64_t> runTime;
    int64_t staticKept = 0;
    for (auto [i, d] : llvm::enumerate(s)) {
      if (ShapedType::isDynamic(d))
        runTime.push_back(i);
      else if (d == 1)
        drop[i] = true;
      else
        ++staticKept;
    }
    if (!runTime.empty()) {
      bool dropRunTime = false;
      auto declared = n.graphImporter().declaredRanks.find(n.node.output(0));
      if (declared != n.graphImporter().declaredRanks.end()) {
        int64_t rank = declared->second;
        if (rank == staticKept)
          dropRunTime = true;
        else if (rank < staticKept ||
                 rank > staticKept + static_cast<int64_t>(runTime.size()))
          return n.fail(
              "Squeeze without axes drops every dimension of size "
              "1; the model declares a result of rank " +
              Twine(rank) + ", but the input has " + Twine(staticKept) +
              " static size(s) other than 1 and " + Twine(runTime.size()) +
              " known only at run time, so that rank cannot come "
              "out");
        else if (rank != staticKept + static_cast<int64_t>(runTime.size()))
          return squeezeSomeAtRunTime(n, x, drop, rank);
      }
      if (dropRunTime) {
        for (int64_t i : runTime)
          drop[i] = true;
      } else {
        Value one = n.constant(
            makeDense(RankedTensorType::get({1}, IntegerType::get(n.ctx, 64)),
                      SmallVector<int64_t>{1}, {}));
        Value holds;
        SmallVector<SymDim> dims = n.dimsOf(x);
        for (int64_t i : runTime) {
          Value notOne =
              n.create<CmpOp>(CmpPredicate::ne, n.shapeOperand({dims[i]}), one);
          holds = holds ? n.create<AndOp>(holds, notOne) : notOne;
          TRY(holds);
        }
        std::string what;
        llvm::raw_string_ostream os(what);
        os << "a size known only at run time (dimension";
        if (runTime.size() > 1)
          os << "s";
        for (auto [k, i] : llvm::enumerate(runTime))
          os << (k ? ", " : " ") << i;
        os << ") is 1: Squeeze without axes would drop it, and Tide kept it "
              "(the result's rank is fixed while compiling); give the axes";
        x = n.make<CheckOp>(x.getType(), x, holds, n.b.getStringAttr(what));
        TRY(x);
      }
    }
  }
  for (int64_t a : *axes) {
    auto na = n.normAxis(a, s.size());
    if (failed(na))
      return failure();
    if (s[*na] != 1 && !ShapedType::isDynamic(s[*na]))
      return n.fail("cannot squeeze axis " + llvm::Twine(a) + " of size " +
                    llvm::Twine(s[*na]));
    drop[*na] = true;
  }
  SmallVector<SymDim> dims = n.dimsOf(x), kept;
  for (auto [i, d] : llvm::enumerate(dims))
    if (!drop[i])
      kept.push_back(d);
  return out(n, n.reshapeTo(x, kept));
}

LogicalResult convertUnsqueeze(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  auto axes = axesFromAttrOrInput(n, 13, true);
  if (failed(axes))
    return failure();
  Shape s = shapeOf(x);
  int64_t rank = s.size() + axes->size();
  SmallVector<bool> isNew(rank, false);
  for (int64_t a : *axes) {
    auto na = n.normAxis(a, rank);
    if (failed(na))
      return failure();
    if (isNew[*na])
      return n.fail("axis " + llvm::Twine(a) + " repeats");
    isNew[*na] = true;
  }
  SmallVector<SymDim> dims = n.dimsOf(x), r;
  unsigned k = 0;
  for (int64_t i = 0; i < rank; ++i)
    r.push_back(isNew[i] ? SymDim::constant(1) : dims[k++]);
  return out(n, n.reshapeTo(x, r));
}

LogicalResult convertTranspose(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  Shape perm;
  if (auto p = n.attrInts("perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  return out(n, n.create<TransposeOp>(x, perm));
}

/// NumPy broadcasting of two static-or-dynamic shapes.
FailureOr<Shape> broadcastShapes(NodeImporter &n, Shape a, Shape b) {
  Shape r(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < r.size(); ++i) {
    int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t &d = r[r.size() - 1 - i];
    if (x == 1)
      d = y;
    else if (y == 1 || x == y)
      d = x;
    else if (ShapedType::isDynamic(x) || ShapedType::isDynamic(y))
      d = ShapedType::isDynamic(x) ? y : x;
    else {
      n.error() << "shapes do not broadcast: size " << x << " against " << y;
      return failure();
    }
  }
  return r;
}

LogicalResult convertExpand(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  auto symbolic = n.shapeIn(1);
  // A constant shape over an input with run-time sizes: the same rules (a
  // run-time size against a constant entry above 1 may be 1 and stretch).
  std::optional<SmallVector<SymDim>> constantEntries;
  if (!(symbolic && !symbolic->isConstant()) && n.in(0) &&
      !cast<RankedTensorType>(n.in(0).getType()).hasStaticShape()) {
    if (auto c = n.constIn(1)) {
      if (auto values = readHostValues(*c)) {
        constantEntries.emplace();
        for (int64_t i = 0; i < c->getNumElements(); ++i)
          constantEntries->push_back(SymDim::constant(values->intAt(i)));
      }
    } else if (symbolic) {
      constantEntries = symbolic->elems;
    }
  }
  if ((symbolic && !symbolic->isConstant()) || constantEntries) {
    // NumPy broadcasting of the input's sizes and the shape's, known up to
    // run-time sizes. A dynamic input size that importing cannot tell from
    // the shape's entry (it may be 1 at run time) is stretched when the
    // model runs (broadcast_to stretch_dynamic, given the shape's entries
    // there).
    Value x = n.in(0);
    SmallVector<SymDim> a = n.dimsOf(x),
                        s = constantEntries ? *constantEntries
                                            : symbolic->elems,
                        r;
    size_t rank = std::max(a.size(), s.size());
    bool stretch = false;
    for (size_t k = 0; k < rank; ++k) {
      SymDim p =
          k + a.size() >= rank ? a[k + a.size() - rank] : SymDim::constant(1);
      SymDim q =
          k + s.size() >= rank ? s[k + s.size() - rank] : SymDim::constant(1);
      stretch |= !p.isConst() && !q.isConst(1) && !(p == q);
    }
    if (stretch) {
      SmallVector<SymDim> entries;
      for (size_t k = 0; k < rank; ++k) {
        SymDim p =
            k + a.size() >= rank ? a[k + a.size() - rank] : SymDim::constant(1);
        SymDim q =
            k + s.size() >= rank ? s[k + s.size() - rank] : SymDim::constant(1);
        if (p.isConst() && q.isConst() && !p.isConst(1) && !q.isConst(1) &&
            p.value != q.value)
          return n.fail("shapes do not broadcast: size " +
                        llvm::Twine(p.value) + " against " +
                        llvm::Twine(q.value));
        // The result's size where the input decides it (the shape's entry
        // 1, or a static input size other than 1), the entry where it does
        // (the input's size 1, or a static entry), else the larger of the
        // two when the model runs: with both known only then, either may be
        // the 1 (an input of 5 expanded by a shape entry of 1 is 5; taking
        // the entry made Shape() of the result say 1).
        if (q.isConst(1) || (p.isConst() && !p.isConst(1)) || p == q)
          entries.push_back(p);
        else if (p.isConst() || q.isConst())
          entries.push_back(q);
        else
          entries.push_back(n.combine("Max", p, q));
      }
      Value shape = n.shapeOperand(entries);
      TRY(shape);
      return out(n, n.make<BroadcastToOp>(n.typeOf(entries, elemOf(x)), x,
                                          shape, n.b.getUnitAttr()));
    }
    for (size_t k = 0; k < rank; ++k) {
      SymDim p =
          k + a.size() >= rank ? a[k + a.size() - rank] : SymDim::constant(1);
      SymDim q =
          k + s.size() >= rank ? s[k + s.size() - rank] : SymDim::constant(1);
      if (q.isConst(1) || p == q)
        r.push_back(p);
      else if (p.isConst(1))
        r.push_back(q);
      else if (p.isConst() && q.isConst())
        return n.fail("shapes do not broadcast: size " + llvm::Twine(p.value) +
                      " against " + llvm::Twine(q.value));
      else if (q.isConst())
        r.push_back(q);
      else if (p.isConst())
        r.push_back(p);
      else
        r.push_back(n.combine("Max", p, q));
    }
    return out(n, n.broadcastToDims(x, r));
  }
  auto shape = n.requireInts(1, "shape");
  if (failed(shape))
    return failure();
  auto target = broadcastShapes(n, shapeOf(n.in(0)), *shape);
  if (failed(target))
    return failure();
  return out(n, n.broadcastTo(n.in(0), *target));
}

LogicalResult convertConcat(NodeImporter &n) {
  if (n.numInputs() == 0)
    return n.fail("needs at least one input");
  SmallVector<Value> ins;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    TRY(n.in(i));
    ins.push_back(n.in(i));
  }
  if (!n.attr("axis") && n.opset >= 4)
    return n.fail("Concat needs the 'axis' attribute");
  auto axis = n.normAxis(n.attrInt("axis", 1), rankOf(ins[0]));
  if (failed(axis))
    return failure();
  if (ins.size() == 1)
    return out(n, ins[0]);
  return out(n, n.create<ConcatOp>(ins, *axis));
}

/// Split of an axis whose size is known only at run time: equal parts
/// (num_outputs or one per output: ceil(size / parts) each, the last what is
/// left) or the given constant sizes, each part a tide.dynamic_slice whose
/// bounds are clamped to the size (sizes that do not add up to it at run
/// time are not an error: the parts are cut where the input ends).
LogicalResult convertSplitDynamic(NodeImporter &n, Value x, int64_t axis) {
  SmallVector<SymDim> dims = n.dimsOf(x);
  SymDim size = dims[axis];
  SmallVector<SymDim> bounds = {SymDim::constant(0)};
  std::optional<SmallVector<int64_t>> given;
  if (n.has(1)) {
    auto v = n.requireInts(1, "split");
    if (failed(v))
      return failure();
    given = *v;
  } else if (n.opset < 13) {
    given = n.attrInts("split");
  }
  if (given) {
    if (given->size() != n.numOutputs())
      return n.fail("split gives " + llvm::Twine(given->size()) +
                    " sizes for " + llvm::Twine(n.numOutputs()) + " outputs");
    int64_t total = 0;
    for (int64_t part : *given) {
      if (part < 0)
        return n.fail("split sizes must not be negative");
      if (part > std::numeric_limits<int64_t>::max() - total)
        return n.fail("split sizes add up to more than 2^63 - 1");
      total += part;
    }
    // The sizes must add up to the run-time size: x is reshaped to their
    // sum, which the reshape checks at run time.
    dims[axis] = SymDim::constant(total);
    TRY(x = n.reshapeTo(x, dims));
    dims = n.dimsOf(x);
    size = dims[axis];
    int64_t at = 0;
    for (int64_t part : *given) {
      at += part;
      bounds.push_back(SymDim::constant(at));
    }
  } else {
    int64_t parts = n.opset >= 18 && n.attr("num_outputs")
                        ? n.attrInt("num_outputs", 1)
                        : n.numOutputs();
    if (parts <= 0)
      return n.fail("num_outputs must be positive");
    if (static_cast<int64_t>(n.numOutputs()) != parts)
      return n.fail("num_outputs is " + llvm::Twine(parts) +
                    " but the node has " + llvm::Twine(n.numOutputs()) +
                    " outputs");
    SymDim chunk =
        n.combine("Div", n.combine("Add", size, SymDim::constant(parts - 1)),
                  SymDim::constant(parts));
    // As for a static size (convertSplit), checked when the model runs.
    std::optional<SymDim> valid;
    if (n.opset < 18)
      valid =
          n.combine("Equal", n.combine("Mod", size, SymDim::constant(parts)),
                    SymDim::constant(0));
    else if (n.attr("num_outputs"))
      valid = n.combine(
          "Less", n.combine("Mul", chunk, SymDim::constant(parts - 1)), size);
    if (valid) {
      Value holds = n.scalarOf(*valid, IntegerType::get(n.ctx, 1));
      TRY(holds);
      x = n.make<CheckOp>(
          x.getType(), x, holds,
          n.b.getStringAttr(
              n.opset < 18
                  ? "Split: the axis does not split evenly into " +
                        std::to_string(parts) +
                        " outputs (before opset 18 the parts are equal)"
                  : "Split: num_outputs " + std::to_string(parts) +
                        " leaves an empty last part of the axis"));
      TRY(x);
    }
    for (int64_t i = 1; i <= parts; ++i)
      bounds.push_back(
          n.combine("Min", n.combine("Mul", chunk, SymDim::constant(i)), size));
  }
  int64_t rank = dims.size();
  Shape strides(rank, 1);
  for (unsigned i = 0; i + 1 < bounds.size(); ++i) {
    SmallVector<SymDim> start(rank, SymDim::constant(0)), limit = dims,
                                                          shape = dims;
    start[axis] = bounds[i];
    limit[axis] = bounds[i + 1];
    shape[axis] = n.combine("Sub", bounds[i + 1], bounds[i]);
    Value startV = n.shapeOperand(start), limitV = n.shapeOperand(limit);
    TRY(startV && limitV);
    auto type = n.typeOf(shape, elemOf(x));
    Value part = n.make<DynamicSliceOp>(type, x, startV, limitV, strides);
    TRY(part);
    n.setOut(i, part);
  }
  return success();
}

LogicalResult convertSplit(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  auto axis = n.normAxis(n.attrInt("axis", 0), rankOf(x));
  if (failed(axis))
    return failure();
  int64_t size = shapeOf(x)[*axis];
  if (ShapedType::isDynamic(size))
    return convertSplitDynamic(n, x, *axis);
  Shape sizes;
  if (n.opset >= 13 && n.has(1)) {
    auto v = n.requireInts(1, "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (n.opset < 13 && n.attrInts("split")) {
    sizes = *n.attrInts("split");
  } else if (n.opset < 13 && n.has(1)) {
    auto v = n.requireInts(1, "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else {
    int64_t parts = n.opset >= 18 && n.attr("num_outputs")
                        ? n.attrInt("num_outputs", 1)
                        : n.numOutputs();
    if (parts <= 0)
      return n.fail("num_outputs must be positive");
    int64_t chunk = (size + parts - 1) / parts;
    // Before opset 18 the parts are equal; from it, num_outputs parts of
    // ceil(size / parts) with a smaller but not empty last one (ONNX
    // Runtime refuses the others).
    if (n.opset < 18 && size % parts)
      return n.fail("the axis size " + llvm::Twine(size) +
                    " does not split evenly into " + llvm::Twine(parts) +
                    " outputs (before opset 18 the parts are equal)");
    if (n.opset >= 18 && n.attr("num_outputs") &&
        (parts > size || (parts - 1) * chunk >= size))
      return n.fail("num_outputs " + llvm::Twine(parts) +
                    " leaves an empty last part of the axis size " +
                    llvm::Twine(size));
    for (int64_t i = 0, left = size; i < parts; ++i) {
      sizes.push_back(std::min(chunk, left));
      left -= sizes.back();
    }
  }
  if (sizes.size() != n.numOutputs())
    return n.fail("split gives " + llvm::Twine(sizes.size()) + " sizes for " +
                  llvm::Twine(n.numOutputs()) + " outputs");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.fail("split sizes must not be negative");
    total += s;
  }
  if (total != size)
    return n.fail("split sizes add up to " + llvm::Twine(total) +
                  ", not the axis size " + llvm::Twine(size));
  int64_t at = 0;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    Value part = n.sliceAxis(x, *axis, at, at + s);
    TRY(part);
    n.setOut(i, part);
    at += s;
  }
  return success();
}

/// A slice bound normalized as ONNX does for a positive step: negative
/// counts from the end, then clamped to [0, size].
SymDim sliceBound(NodeImporter &n, const SymDim &bound, const SymDim &size) {
  // Exporters write "to the end" as a huge end (INT64_MAX); no size is this
  // large.
  constexpr int64_t kHuge = int64_t(1) << 40;
  SymDim zero = SymDim::constant(0);
  if (bound.isConst()) {
    if (bound.value >= kHuge)
      return size;
    if (bound.value < 0)
      return n.combine("Max", n.combine("Add", size, bound), zero);
    return bound.isConst(0) ? zero : n.combine("Min", bound, size);
  }
  if (bound.isDim())
    return n.combine("Min", bound, size);
  return n.select(n.combine("Less", bound, zero),
                  n.combine("Max", n.combine("Add", size, bound), zero),
                  n.combine("Min", bound, size));
}

/// Slice of dynamic dimensions, or with bounds known only at run time
/// (positive steps): a tide.dynamic_slice whose bounds the host computes.
LogicalResult convertSliceDynamic(NodeImporter &n, Value x,
                                  ArrayRef<SymDim> starts,
                                  ArrayRef<SymDim> ends, ArrayRef<int64_t> axes,
                                  ArrayRef<int64_t> steps) {
  SmallVector<SymDim> sizes = n.dimsOf(x);
  int64_t rank = sizes.size();
  SmallVector<SymDim> start(rank, SymDim::constant(0)), limit(sizes);
  Shape strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = n.normAxis(axes[i], rank);
    if (failed(a))
      return failure();
    if (seen[*a])
      return n.fail("axis " + llvm::Twine(axes[i]) + " repeats");
    seen[*a] = true;
    if (steps[i] == 0)
      return n.fail("a slice step of 0");
    if (steps[i] < 0) {
      // A negative step over a run-time size: the axis reversed, then a
      // positive step from position size - 1 - start (ONNX clamps a start
      // into [0, size - 1] and an end into [-1, size - 1] for it).
      if (!starts[i].isConst() || !ends[i].isConst())
        return n.fail("Slice with a negative step needs constant bounds on "
                      "axis " +
                      llvm::Twine(*a) +
                      " (here they are known only at run time); fix them "
                      "with --bind-input or --bind-shape");
      constexpr int64_t kHuge = int64_t(1) << 40;
      SymDim size = sizes[*a], zero = SymDim::constant(0);
      SymDim last = n.combine("Sub", size, SymDim::constant(1));
      int64_t b = starts[i].value, e = ends[i].value;
      // size - 1 - clamp(start); at least 0 (an axis of size 0 has no
      // position size - 1 to start from).
      SymDim from =
          b >= kHuge ? zero
          : b < 0
              ? n.combine("Max",
                          n.combine("Min", SymDim::constant(-1 - b), last),
                          zero)
              : n.combine("Max", n.combine("Sub", last, SymDim::constant(b)),
                          zero);
      // size - 1 - clamp(end)
      SymDim to =
          e >= kHuge    ? zero
          : e <= -kHuge ? size
          : e < 0
              ? n.combine("Min", SymDim::constant(-1 - e), size)
              : n.combine("Max", n.combine("Sub", last, SymDim::constant(e)),
                          zero);
      x = reverseAxis(n, x, *a);
      if (!x)
        return failure();
      start[*a] = from;
      limit[*a] = to;
      strides[*a] = -steps[i];
      continue;
    }
    start[*a] = sliceBound(n, starts[i], sizes[*a]);
    limit[*a] = sliceBound(n, ends[i], sizes[*a]);
    strides[*a] = steps[i];
  }
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (start[d].isConst() && limit[d].isConst())
      shape.push_back(std::max<int64_t>(
          0, (limit[d].value - start[d].value + strides[d] - 1) / strides[d]));
    else if (start[d].isConst(0) && strides[d] == 1 && limit[d].isConst())
      shape.push_back(limit[d].value);
    else
      shape.push_back(ShapedType::kDynamic);
  }
  Value startV = n.shapeOperand(start), limitV = n.shapeOperand(limit);
  TRY(startV);
  TRY(limitV);
  auto type = cast<RankedTensorType>(x.getType()).clone(shape);
  return out(n, n.make<DynamicSliceOp>(type, x, startV, limitV, strides));
}

LogicalResult convertSlice(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  Shape s = shapeOf(x);
  int64_t rank = s.size();
  Shape starts, ends, axes, steps;
  // Bounds known up to run-time sizes, or a sliced dynamic dimension: a
  // dynamic slice (positive steps).
  auto dynamicPath =
      [&](ArrayRef<SymDim> symStarts,
          ArrayRef<SymDim> symEnds) -> std::optional<LogicalResult> {
    Shape ax = axes, st = steps;
    if (ax.empty())
      for (size_t i = 0; i < symStarts.size(); ++i)
        ax.push_back(i);
    if (st.empty())
      st.assign(symStarts.size(), 1);
    if (symEnds.size() != symStarts.size() || ax.size() != symStarts.size() ||
        st.size() != symStarts.size())
      return n.fail("starts, ends, axes and steps must have the same length");
    bool symbolic =
        llvm::any_of(symStarts, [](const SymDim &d) { return !d.isConst(); }) ||
        llvm::any_of(symEnds, [](const SymDim &d) { return !d.isConst(); });
    // tide.slice's limits are static: a dynamic dimension, sliced or not,
    // needs run-time bounds.
    bool dynamicInput = llvm::any_of(s, ShapedType::isDynamic);
    if (!symbolic && !dynamicInput)
      return std::nullopt;
    return convertSliceDynamic(n, x, symStarts, symEnds, ax, st);
  };
  if (n.opset < 10) {
    auto a = n.attrInts("starts"), b = n.attrInts("ends");
    if (!a || !b)
      return n.fail("Slice needs 'starts' and 'ends'");
    starts = *a;
    ends = *b;
    if (auto c = n.attrInts("axes"))
      axes = *c;
    SmallVector<SymDim> symStarts, symEnds;
    for (int64_t v : starts)
      symStarts.push_back(SymDim::constant(v));
    for (int64_t v : ends)
      symEnds.push_back(SymDim::constant(v));
    if (auto r = dynamicPath(symStarts, symEnds))
      return *r;
  } else {
    if (n.has(3)) {
      auto c = n.requireInts(3, "axes");
      if (failed(c))
        return failure();
      axes = *c;
    }
    if (n.has(4)) {
      auto d = n.requireInts(4, "steps");
      if (failed(d))
        return failure();
      steps = *d;
      // INT64_MIN selects what -INT64_MAX does on any real size, and has no
      // negation (the reversed slice's stride).
      for (int64_t &step : steps)
        step = std::max(step, -std::numeric_limits<int64_t>::max());
    }
    auto symStarts = n.shapeIn(1), symEnds = n.shapeIn(2);
    if (symStarts && symEnds)
      if (auto r = dynamicPath(symStarts->elems, symEnds->elems))
        return *r;
    auto a = n.requireInts(1, "starts");
    if (failed(a))
      return failure();
    auto b = n.requireInts(2, "ends");
    if (failed(b))
      return failure();
    starts = *a;
    ends = *b;
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.fail("starts, ends, axes and steps must have the same length");
  Shape st(rank, 0), lim = s, str(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto a = n.normAxis(axes[i], rank);
    if (failed(a))
      return failure();
    if (seen[*a])
      return n.fail("axis " + llvm::Twine(axes[i]) + " repeats");
    seen[*a] = true;
    int64_t dim = s[*a];
    int64_t step = steps[i];
    if (step == 0)
      return n.fail("a slice step of 0");
    // Sizes known only at run time take the dynamic path above; bounds it
    // cannot express (not from the model's constants or shapes) stop here,
    // before any arithmetic with the unknown size.
    if (ShapedType::isDynamic(dim))
      return n.fail("slicing axis " + llvm::Twine(*a) +
                    ", whose size is only known at run time, with bounds "
                    "the importer cannot express");
    int64_t b = starts[i], e = ends[i];
    if (b < 0)
      b += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      // ONNX clamps a start into [0, size - 1] for a negative step (a
      // start before the first element selects it), as ONNX Runtime
      // does.
      b = dim == 0 ? -1 : std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    st[*a] = b;
    lim[*a] = e;
    str[*a] = step;
    if (step < 0) {
      // Negative steps: one take along the axis at the constant positions
      // b, b + step, ... (a reversal when the step is -1).
      SmallVector<SymDim> positions;
      for (int64_t k = b; k > e; k += step)
        positions.push_back(SymDim::constant(k));
      Value r;
      if (positions.size() <= 1) {
        int64_t k = positions.empty() ? 0 : positions[0].value;
        r = n.sliceAxis(x, *a, k, k + static_cast<int64_t>(positions.size()));
      } else {
        Value idx = indexVector(n, positions, n.b.getI64Type());
        TRY(idx);
        r = take(n, x, idx, *a);
      }
      TRY(r);
      x = r;
      s = shapeOf(x);
      st[*a] = 0;
      lim[*a] = s[*a];
      str[*a] = 1;
      continue;
    }
    if (e < b)
      lim[*a] = b;
  }
  // Limits are recomputed against the (possibly reversed) input.
  for (int64_t i = 0; i < rank; ++i)
    if (!seen[i])
      lim[i] = s[i];
  return out(n, n.create<SliceOp>(x, st, lim, str));
}

LogicalResult convertTile(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  // Repeats known while importing, or computed from run-time sizes (an
  // exporter's Tile by the batch size): either way element by element.
  SmallVector<SymDim> repeats;
  if (auto symbolic = n.shapeIn(1); symbolic && !symbolic->isConstant()) {
    repeats = symbolic->elems;
  } else {
    auto ints = n.requireInts(1, "repeats");
    if (failed(ints))
      return failure();
    for (int64_t r : *ints)
      repeats.push_back(SymDim::constant(r));
  }
  Value x = n.in(0);
  SmallVector<SymDim> dims = n.dimsOf(x);
  if (repeats.size() != dims.size())
    return n.fail("repeats has " + llvm::Twine(repeats.size()) +
                  " entries for an input of rank " + llvm::Twine(dims.size()));
  // x (d0, d1, ...) as (1, d0, 1, d1, ...), broadcast to (r0, d0, r1, d1,
  // ...), then (r0 * d0, r1 * d1, ...).
  SmallVector<SymDim> spread, wide, result;
  for (auto [d, r] : llvm::zip(dims, repeats)) {
    if (r.isConst() && r.value < 0)
      return n.fail("a negative repeat count");
    spread.append({SymDim::constant(1), d});
    wide.append({r, d});
    result.push_back(n.combine("Mul", r, d));
  }
  Value y = n.reshapeTo(x, spread);
  TRY(y);
  y = n.broadcastToDims(y, wide);
  TRY(y);
  return out(n, n.reshapeTo(y, result));
}

LogicalResult convertDepthToSpace(NodeImporter &n) {
  if (failed(n.checkAttrs({"blocksize", "mode"})) || failed(need(n, 1)))
    return failure();
  std::string mode = n.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return n.fail("mode must be \"DCR\" or \"CRD\", got \"" + mode + "\"");
  // SpaceToDepth has a mode from opset 28.
  if (n.opType() == "SpaceToDepth" && n.attr("mode") && n.opset < 28)
    return n.fail("SpaceToDepth has a 'mode' from opset 28; the model "
                  "imports opset " +
                  std::to_string(n.opset));
  Value x = n.in(0);
  Shape s = shapeOf(x);
  // Any size may be known only at run time (sizes computed from tide.dim;
  // a run-time channel count that is not a multiple of blocksize^2 is not
  // checked).
  if (s.size() != 4)
    return n.fail(n.opType() + " needs a 4-D input");
  int64_t bs = n.attrInt("blocksize", 0);
  if (bs <= 0)
    return n.fail("blocksize must be positive");
  if (bs > (int64_t(1) << 24))
    return n.fail("blocksize " + Twine(bs) + " is too large");
  SmallVector<SymDim> ds = n.dimsOf(x);
  SymDim N = ds[0], C = ds[1], H = ds[2], W = ds[3], B = SymDim::constant(bs);
  auto k = [](int64_t v) { return SymDim::constant(v); };
  Value y;
  if (n.opType() == "DepthToSpace") {
    if (C.isConst() && C.value % (bs * bs))
      return n.fail("channels are not a multiple of blocksize^2");
    SymDim c = n.combine("Div", C, k(bs * bs));
    if (mode == "CRD") {
      y = n.reshapeTo(x, {N, c, B, B, H, W});
      y = n.create<TransposeOp>(y, Shape{0, 1, 4, 2, 5, 3});
    } else {
      y = n.reshapeTo(x, {N, B, B, c, H, W});
      y = n.create<TransposeOp>(y, Shape{0, 3, 4, 1, 5, 2});
    }
    TRY(y);
    return out(n, n.reshapeTo(y, {N, c, n.combine("Mul", H, B),
                                  n.combine("Mul", W, B)}));
  }
  // (Run-time sizes that are not multiples of the block are not checked.)
  if ((H.isConst() && H.value % bs) || (W.isConst() && W.value % bs))
    return n.fail("height and width must be multiples of blocksize");
  SymDim h = n.combine("Div", H, B), w = n.combine("Div", W, B);
  y = n.reshapeTo(x, {N, C, h, B, w, B});
  // DCR: the block offsets outermost in the channels; CRD: innermost.
  y = n.create<TransposeOp>(y, mode == "CRD" ? Shape{0, 1, 3, 5, 2, 4}
                                             : Shape{0, 3, 5, 1, 2, 4});
  TRY(y);
  return out(n, n.reshapeTo(y, {N, n.combine("Mul", C, k(bs * bs)), h, w}));
}

/// Pad (constant, edge, reflect) with pads known while importing.
LogicalResult convertPad(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  Shape pads;
  double value = 0;
  std::optional<Value> valueTensor;
  if (n.opset < 11) {
    auto p = n.attrInts(n.opset < 2 ? "paddings" : "pads");
    if (!p)
      return n.fail("Pad needs 'pads'");
    pads = *p;
    value = n.attrFloat("value", 0);
  } else {
    auto p = n.requireInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (n.has(2))
      valueTensor = n.in(2);
  }
  Shape axes;
  if (n.opset >= 18 && n.has(3)) {
    auto a = n.requireInts(3, "axes");
    if (failed(a))
      return failure();
    for (int64_t ax : *a) {
      auto na = n.normAxis(ax, rank);
      if (failed(na))
        return failure();
      axes.push_back(*na);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    return n.fail("pads has " + llvm::Twine(pads.size()) + " entries; " +
                  llvm::Twine(2 * axes.size()) + " expected");
  std::string mode = n.attrString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap")
    return n.fail("mode '" + mode + "' is not a Pad mode");
  Value fill;
  if (mode == "constant") {
    if (valueTensor) {
      fill = n.reshape(*valueTensor, {});
    } else {
      fill = sc(n, x, value);
    }
    TRY(fill);
  }
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k];
    int64_t before = pads[k], after = pads[k + axes.size()];
    int64_t dim = shapeOf(x)[axis];
    if (before == 0 && after == 0)
      continue; // a symbolic batch is left as it is
    bool dynamic = ShapedType::isDynamic(dim);
    if (before < -(int64_t(1) << 62) || after < -(int64_t(1) << 62))
      return n.fail("pads of axis " + llvm::Twine(axis) + " are out of range");
    if (dynamic && (before < 0 || after < 0)) {
      // A crop of a run-time size: a dynamic slice from min(-before, size)
      // to max(that, size + after) (a crop larger than the size at run time
      // leaves nothing, where ONNX Runtime reports an error).
      int64_t rank = shapeOf(x).size();
      SmallVector<SymDim> start(rank, SymDim::constant(0)), limit = n.dimsOf(x);
      SymDim size = limit[axis];
      start[axis] = n.combine(
          "Min", SymDim::constant(std::max<int64_t>(-before, 0)), size);
      limit[axis] =
          n.combine("Max", start[axis],
                    n.combine("Sub", size,
                              SymDim::constant(std::max<int64_t>(-after, 0))));
      Value startV = n.shapeOperand(start), limitV = n.shapeOperand(limit);
      TRY(startV && limitV);
      TRY(x = n.make<DynamicSliceOp>(cast<RankedTensorType>(x.getType()), x,
                                     startV, limitV,
                                     SmallVector<int64_t>(rank, 1)));
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
    }
    // Negative pads crop.
    if (before < 0 || after < 0) {
      int64_t b = before < 0 ? -before : 0, e = dim - (after < 0 ? -after : 0);
      if (e < b)
        return n.fail("negative pads remove more than the dimension");
      TRY(x = n.sliceAxis(x, axis, b, e));
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
      dim = e - b;
    }
    if (before == 0 && after == 0)
      continue;
    SmallVector<Value> parts;
    // The size as the importer knows it (a run-time size is an expression).
    SymDim size = n.dimOf(x, axis);
    auto block = [&](int64_t count, bool atStart) -> Value {
      if (mode == "constant") {
        // Other dimensions may be symbolic (a batch): their sizes come from x.
        SmallVector<SymDim> dims = n.dimsOf(x);
        dims[axis] = SymDim::constant(count);
        return n.broadcastToDims(fill, dims);
      }
      if (dim == 0) {
        n.error() << "cannot pad an empty dimension in " << mode << " mode";
        return {};
      }
      // The source position of each padded element: one take along the axis.
      auto fromEnd = [&](int64_t k) { // size - k
        return dynamic ? n.combine("Sub", size, SymDim::constant(k))
                       : SymDim::constant(dim - k);
      };
      SmallVector<SymDim> positions;
      for (int64_t i = 0; i < count; ++i) {
        if (mode == "edge") {
          positions.push_back(atStart ? SymDim::constant(0) : fromEnd(1));
        } else if (dynamic) {
          // A run-time size larger than the pads (as ONNX requires for
          // reflect; wrap pads within one period): positions relative to
          // the start or the end.
          if (mode == "wrap")
            positions.push_back(atStart ? fromEnd(count - i)
                                        : SymDim::constant(i));
          else
            positions.push_back(atStart ? SymDim::constant(count - i)
                                        : fromEnd(2 + i));
        } else if (mode == "wrap") {
          positions.push_back(SymDim::constant(
              atStart ? ((dim - count + i) % dim + dim) % dim : i % dim));
        } else { // reflect
          int64_t src = 0;
          if (dim > 1) {
            int64_t period = 2 * (dim - 1);
            int64_t pos = atStart ? count - i : dim - 1 + i + 1;
            pos = ((pos % period) + period) % period;
            src = pos < dim ? pos : period - pos;
          }
          positions.push_back(SymDim::constant(src));
        }
      }
      Value idx = indexVector(n, positions, n.b.getI64Type());
      // Over a run-time size the positions assume it is larger than the
      // pads (and not empty): checked when the model runs, since a position
      // outside would be clamped by the take (a silently wrong result).
      if (idx && dynamic)
        idx = checkedIndices(n, idx, {size},
                             "the padded dimension's run-time size (" + mode +
                                 " pads over it must be smaller than it, and "
                                 "it must not be empty)",
                             /*negative=*/false);
      return idx ? take(n, x, idx, axis) : Value();
    };
    if (before > 0)
      parts.push_back(block(before, true));
    parts.push_back(x);
    if (after > 0)
      parts.push_back(block(after, false));
    for (Value p : parts)
      TRY(p);
    x = n.create<ConcatOp>(parts, axis);
    TRY(x);
  }
  return out(n, x);
}

/// CenterCropPad (opset 18): each of `axes` (all by default) cropped to a
/// centered window or zero-padded around the input to the size in `shape`
/// (known while importing); an odd difference crops or pads one more on the
/// right.
LogicalResult convertCenterCropPad(NodeImporter &n) {
  if (failed(n.checkAttrs({"axes"})) || failed(need(n, 2)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  auto shape = n.requireInts(1, "shape");
  if (failed(shape))
    return failure();
  Shape axes;
  if (auto a = n.attrInts("axes")) {
    for (int64_t ax : *a) {
      auto na = n.normAxis(ax, rank);
      if (failed(na))
        return failure();
      if (llvm::is_contained(axes, *na))
        return n.fail("axis " + llvm::Twine(ax) + " is repeated");
      axes.push_back(*na);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (shape->size() != axes.size())
    return n.fail("shape has " + llvm::Twine(shape->size()) + " entries for " +
                  llvm::Twine(axes.size()) + " axes");
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k], want = (*shape)[k];
    int64_t dim = shapeOf(x)[axis];
    if (want < 0 || want > (int64_t(1) << 40))
      return n.fail("a size out of range in shape: " + llvm::Twine(want));
    if (ShapedType::isDynamic(dim))
      return n.fail("axis " + llvm::Twine(axis) +
                    " has a dynamic size: CenterCropPad needs it known "
                    "while importing");
    if (want < dim) {
      int64_t start = (dim - want) / 2;
      TRY(x = n.sliceAxis(x, axis, start, start + want));
    } else if (want > dim) {
      int64_t before = (want - dim) / 2, after = want - dim - before;
      SmallVector<Value> parts;
      auto zeros = [&](int64_t count) {
        SmallVector<SymDim> dims = n.dimsOf(x);
        dims[axis] = SymDim::constant(count);
        return n.broadcastToDims(sc(n, x, 0), dims);
      };
      if (before > 0)
        parts.push_back(zeros(before));
      parts.push_back(x);
      parts.push_back(zeros(after));
      for (Value p : parts)
        TRY(p);
      TRY(x = n.create<ConcatOp>(parts, axis));
    }
  }
  return out(n, x);
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// (x - mean) / sqrt(var + eps) over `axes` (kept), in f32 for f16/bf16.
/// Returns the normalized value and optionally the mean and 1/std.
Value normalize(NodeImporter &n, Value x, ArrayRef<int64_t> axes, double eps,
                Value *meanOut = nullptr, Value *invStdOut = nullptr) {
  Value mean = n.create<ReduceMeanOp>(x, axes, true);
  if (!mean)
    return {};
  Value centered = n.create<SubOp>(x, mean);
  if (!centered)
    return {};
  Value var =
      n.create<ReduceMeanOp>(n.create<MulOp>(centered, centered), axes, true);
  if (!var)
    return {};
  Value invStd = n.make<RsqrtOp>(n.create<AddOp>(var, sc(n, var, eps)));
  if (!invStd)
    return {};
  if (meanOut)
    *meanOut = mean;
  if (invStdOut)
    *invStdOut = invStd;
  return n.create<MulOp>(centered, invStd);
}

bool isNarrowFloat(Type t) { return t.isF16() || t.isBF16(); }

/// The type LayerNormalization-like ops compute in: f32 for f16/bf16 (and
/// for f32 with stash_type = 1), f64 for f64.
Type stashType(NodeImporter &n, Type t) {
  return isNarrowFloat(t) || n.attrInt("stash_type", 1) == 1
             ? (t.isF64() ? t : Float32Type::get(n.ctx))
             : t;
}

LogicalResult convertLayerNorm(NodeImporter &n) {
  if (failed(need(n, 2)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Type t = elemOf(x);
  int64_t rank = rankOf(x);
  auto axis = n.normAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  Shape axes;
  for (int64_t i = *axis; i < rank; ++i)
    axes.push_back(i);
  Type compute = stashType(n, t);
  Value mean, invStd;
  Value y = normalize(n, n.cast(x, compute), axes, n.attrFloat("epsilon", 1e-5),
                      &mean, &invStd);
  TRY(y);
  y = n.cast(y, t);
  TRY(y = n.create<MulOp>(y, n.in(1)));
  if (n.has(2))
    TRY(y = n.create<AddOp>(y, n.in(2)));
  n.setOut(0, y);
  if (n.wantsOutput(1))
    n.setOut(1, n.cast(mean, compute));
  if (n.wantsOutput(2))
    n.setOut(2, n.cast(invStd, compute));
  return success();
}

/// RMSNormalization (opset 23): x / sqrt(mean(x^2 over axis..) + epsilon) *
/// scale, computed in the stash type.
LogicalResult convertRMSNorm(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "epsilon", "stash_type"})) ||
      failed(need(n, 2)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Type t = elemOf(x);
  int64_t rank = rankOf(x);
  auto axis = n.normAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  Shape axes;
  for (int64_t i = *axis; i < rank; ++i)
    axes.push_back(i);
  Value xc = n.cast(x, stashType(n, t));
  TRY(xc);
  Value ms = n.create<ReduceMeanOp>(n.create<MulOp>(xc, xc), axes, true);
  TRY(ms);
  Value inv = n.make<RsqrtOp>(
      n.create<AddOp>(ms, sc(n, ms, n.attrFloat("epsilon", 1e-5))));
  TRY(inv);
  Value y = n.cast(n.create<MulOp>(xc, inv), t);
  TRY(y);
  return out(n, n.create<MulOp>(y, n.in(1)));
}

/// A per-channel parameter [C] reshaped to broadcast against NC...
Value perChannel(NodeImporter &n, Value p, int64_t rank) {
  Shape s(rank - 1, 1);
  s[0] = shapeOf(p)[0];
  return n.reshape(p, s);
}

/// GroupNormalization: the channels in `num_groups` groups, each normalized
/// over its channels and the spatial dimensions (in the stash type), then
/// scaled and shifted per channel (opset 21) or per group (opset 18).
LogicalResult convertGroupNorm(NodeImporter &n) {
  if (failed(n.checkAttrs({"epsilon", "num_groups", "stash_type"})) ||
      failed(need(n, 3)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Type t = elemOf(x);
  int64_t rank = rankOf(x);
  if (rank < 3)
    return n.fail("GroupNormalization needs an input of rank 3 or more "
                  "(N, C, spatial...)");
  int64_t c = shapeOf(x)[1], groups = n.attrInt("num_groups", 0);
  if (!n.attr("num_groups") || groups <= 0)
    return n.fail("GroupNormalization needs a positive 'num_groups'");
  if (ShapedType::isDynamic(c))
    return n.fail("GroupNormalization needs a static channel count");
  if (c % groups)
    return n.fail("the " + llvm::Twine(c) + " channels do not split into " +
                  llvm::Twine(groups) + " groups");
  int64_t perParam = n.opset >= 21 ? c : groups;
  for (unsigned i = 1; i < 3; ++i)
    if (rankOf(n.in(i)) != 1 || shapeOf(n.in(i))[0] != perParam)
      return n.fail("input " + llvm::Twine(i) + " must have " +
                    llvm::Twine(perParam) + " elements (one per " +
                    (n.opset >= 21 ? "channel" : "group, before opset 21") +
                    ")");
  SmallVector<SymDim> dims = n.dimsOf(x);
  SymDim rest = SymDim::constant(c / groups);
  for (int64_t d = 2; d < rank; ++d)
    rest = n.combine("Mul", rest, dims[d]);
  Value grouped = n.reshapeTo(n.cast(x, stashType(n, t)),
                              {dims[0], SymDim::constant(groups), rest});
  TRY(grouped);
  Value y = normalize(n, grouped, Shape{2}, n.attrFloat("epsilon", 1e-5));
  TRY(y);
  Value scale = n.in(1), bias = n.in(2);
  if (n.opset < 21) {
    // Per group: on the grouped shape.
    y = n.cast(y, t);
    TRY(y = n.create<MulOp>(y, n.reshape(scale, {1, groups, 1})));
    TRY(y = n.create<AddOp>(y, n.reshape(bias, {1, groups, 1})));
    return out(n, n.reshapeTo(y, dims));
  }
  y = n.cast(n.reshapeTo(y, dims), t);
  TRY(y);
  TRY(y = n.create<MulOp>(y, perChannel(n, scale, rank)));
  return out(n, n.create<AddOp>(y, perChannel(n, bias, rank)));
}

LogicalResult convertBatchNorm(NodeImporter &n) {
  if (failed(need(n, 5)) || failed(requireFloat(n, n.in(0))))
    return failure();
  bool training = n.attrInt("training_mode", 0) != 0;
  if ((training && n.opset < 14) ||
      (n.opset < 7 && !n.attrInt("is_test", 0) && n.numOutputs() > 1))
    return n.fail("training-mode BatchNormalization of opset " +
                  Twine(n.opset) +
                  " (its saved mean and variance outputs) is not supported; "
                  "opset 14's training_mode is");
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank < 2)
    return n.fail("BatchNormalization needs an input of rank 2 or more");
  for (unsigned i = 1; i < 5; ++i)
    if (rankOf(n.in(i)) != 1)
      return n.fail("scale, bias, mean and variance must be 1-D");
  if (training) {
    // The batch's own statistics (over every axis but the channels; the
    // population variance), and the running ones updated with momentum.
    Shape axes;
    for (int64_t a = 0; a < rank; ++a)
      if (a != 1)
        axes.push_back(a);
    Type t = elemOf(x);
    Type compute = isNarrowFloat(t) ? Float32Type::get(n.ctx) : t;
    Value xc = n.cast(x, compute);
    Value mean, invStd;
    Value y =
        normalize(n, xc, axes, n.attrFloat("epsilon", 1e-5), &mean, &invStd);
    TRY(y);
    y = n.cast(y, t);
    TRY(y = n.create<MulOp>(y, perChannel(n, n.in(1), rank)));
    TRY(y = n.create<AddOp>(y, perChannel(n, n.in(2), rank)));
    n.setOut(0, y);
    if (n.numOutputs() > 1) {
      Value centered = n.create<SubOp>(xc, mean);
      Value var = n.create<ReduceMeanOp>(n.create<MulOp>(centered, centered),
                                         axes, /*keepdims=*/false);
      Value batchMean = n.reshapeTo(mean, n.dimsOf(n.in(3)));
      TRY(var && batchMean);
      double momentum = n.attrFloat("momentum", 0.9);
      auto running = [&](Value old, Value now) {
        Value o = n.cast(old, compute);
        return n.cast(
            n.create<AddOp>(n.create<MulOp>(o, sc(n, o, momentum)),
                            n.create<MulOp>(now, sc(n, now, 1 - momentum))),
            elemOf(old));
      };
      Value runMean = running(n.in(3), batchMean);
      Value runVar = running(n.in(4), var);
      TRY(runMean && runVar);
      n.setOut(1, runMean);
      if (n.numOutputs() > 2)
        n.setOut(2, runVar);
    }
    return success();
  }
  Value scale = perChannel(n, n.in(1), rank),
        bias = perChannel(n, n.in(2), rank);
  Value mean = perChannel(n, n.in(3), rank), var = perChannel(n, n.in(4), rank);
  double eps = n.attrFloat("epsilon", 1e-5);
  Value invStd = n.make<RsqrtOp>(n.create<AddOp>(var, sc(n, var, eps)));
  TRY(invStd);
  Value y =
      n.create<MulOp>(n.create<SubOp>(x, mean), n.create<MulOp>(invStd, scale));
  TRY(y);
  return out(n, n.create<AddOp>(y, bias));
}

LogicalResult convertInstanceNorm(NodeImporter &n) {
  if (failed(need(n, 3)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank < 3)
    return n.fail("InstanceNormalization needs an input of rank 3 or more");
  Shape axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  Type t = elemOf(x);
  Type compute = isNarrowFloat(t) ? Float32Type::get(n.ctx) : t;
  Value y =
      normalize(n, n.cast(x, compute), axes, n.attrFloat("epsilon", 1e-5));
  TRY(y);
  y = n.cast(y, t);
  TRY(y = n.create<MulOp>(y, perChannel(n, n.in(1), rank)));
  return out(n, n.create<AddOp>(y, perChannel(n, n.in(2), rank)));
}

LogicalResult convertMVN(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  Shape axes = n.attrInts("axes").value_or(Shape{0, 2, 3});
  for (int64_t &a : axes) {
    auto na = n.normAxis(a, rankOf(x));
    if (failed(na))
      return failure();
    a = *na;
  }
  llvm::sort(axes);
  // ONNX's function: (x - mean) / (sqrt(mean(x^2) - mean(x)^2) + 1e-9).
  Value mean = n.create<ReduceMeanOp>(x, axes, true);
  Value meanSq = n.create<ReduceMeanOp>(n.create<MulOp>(x, x), axes, true);
  TRY(mean && meanSq);
  Value var = n.create<SubOp>(meanSq, n.create<MulOp>(mean, mean));
  TRY(var);
  Value std = n.create<AddOp>(n.make<SqrtOp>(var), sc(n, var, 1e-9));
  TRY(std);
  return out(n, n.create<DivOp>(n.create<SubOp>(x, mean), std));
}

LogicalResult convertLpNorm(NodeImporter &n) {
  if (failed(need(n, 1)) || failed(requireFloat(n, n.in(0))))
    return failure();
  Value x = n.in(0);
  auto axis = n.normAxis(n.attrInt("axis", -1), rankOf(x));
  if (failed(axis))
    return failure();
  int64_t p = n.attrInt("p", 2);
  Value norm;
  if (p == 1)
    norm = n.create<ReduceSumOp>(n.make<AbsOp>(x), Shape{*axis}, true);
  else if (p == 2)
    norm = n.make<SqrtOp>(
        n.create<ReduceSumOp>(n.create<MulOp>(x, x), Shape{*axis}, true));
  else
    return n.fail("p must be 1 or 2");
  TRY(norm);
  // A zero norm (all of the slice is zero) gives zeros, not 0/0 (the ONNX
  // spec says so from its opset 22 text on; ONNX Runtime does the same).
  Value zero = sc(n, x, 0);
  Value isZero = n.create<CmpOp>(CmpPredicate::eq, norm, zero);
  Value q = n.create<DivOp>(x, norm);
  TRY(isZero && q);
  return out(n, n.create<SelectOp>(isZero, zero, q));
}

template <bool IsMax>
LogicalResult convertGlobalPool(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank < 3)
    return n.fail(n.opType() + " needs an input of rank 3 or more");
  Shape axes;
  for (int64_t i = 2; i < rank; ++i)
    axes.push_back(i);
  if (IsMax)
    return out(n, n.create<ReduceMaxOp>(x, axes, true));
  return out(n, n.create<ReduceMeanOp>(x, axes, true));
}

/// One-hot of `indices` along a new last axis of size `depth`, as i1.
Value oneHotMask(NodeImporter &n, Value indices, int64_t depth, int64_t axis) {
  Shape s = shapeOf(indices);
  int64_t rank = s.size() + 1;
  if (axis < 0)
    axis += rank;
  Shape iotaShape(rank, 1);
  iotaShape[axis] = depth;
  SmallVector<int64_t> iota(depth);
  std::iota(iota.begin(), iota.end(), 0);
  Type it = elemOf(indices);
  Value range =
      n.constant(makeDense(RankedTensorType::get(iotaShape, it), iota, {}));
  Shape expanded = s;
  expanded.insert(expanded.begin() + axis, 1);
  Value idx = n.reshape(indices, expanded);
  return n.create<CmpOp>(CmpPredicate::eq, idx, range);
}

LogicalResult convertHardmax(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (n.opset < 13)
    return n.fail("Hardmax before opset 13 is not supported");
  auto axis = n.normAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  int64_t depth = shapeOf(x)[*axis];
  Value idx = n.create<ArgmaxOp>(x, Shape{*axis}, false);
  TRY(idx);
  Value mask;
  if (ShapedType::isDynamic(depth)) {
    // The positions along a run-time axis: an iota, compared with the
    // argmax (its axis kept as 1).
    SymDim size = n.dimOf(x, *axis);
    Value shape = n.shapeOperand({size});
    TRY(shape);
    Value range = n.make<IotaOp>(n.typeOf({size}, elemOf(idx)), shape, 0);
    SmallVector<SymDim> along(rank, SymDim::constant(1));
    along[*axis] = n.dimOf(range, 0);
    SmallVector<SymDim> kept = n.dimsOf(idx);
    kept.insert(kept.begin() + *axis, SymDim::constant(1));
    mask = n.create<CmpOp>(CmpPredicate::eq, n.reshapeTo(idx, kept),
                           n.reshapeTo(range, along));
  } else {
    mask = oneHotMask(n, idx, depth, *axis);
  }
  TRY(mask);
  return out(n, n.create<SelectOp>(mask, sc(n, x, 1), sc(n, x, 0)));
}

LogicalResult convertOneHot(NodeImporter &n) {
  if (failed(need(n, 3)))
    return failure();
  auto depthV = n.requireConstIn(1, "depth");
  if (failed(depthV))
    return failure();
  if (depthV->size() != 1)
    return n.fail("depth must have one element");
  int64_t depth = static_cast<int64_t>(depthV->at(0));
  if (depth <= 0)
    return n.fail("depth must be positive");
  Value indices = n.in(0);
  // Compared as i64: in a narrower type the positions up to depth wrap (an
  // int8 index 0 against depth 300 also matched position 256).
  Type i64 = IntegerType::get(n.ctx, 64);
  if (elemOf(indices) != i64)
    indices = n.cast(indices, i64);
  TRY(indices);
  Type it = elemOf(indices);
  int64_t axis = n.attrInt("axis", -1);
  if (failed(n.normAxis(axis, rankOf(indices) + 1)))
    return failure();
  // Negative indices count from the end.
  Value neg = n.create<CmpOp>(CmpPredicate::lt, indices, sc(n, indices, 0));
  TRY(neg);
  indices = n.create<SelectOp>(
      neg, n.create<AddOp>(indices, n.scalar(it, depth)), indices);
  TRY(indices);
  Value mask = oneHotMask(n, indices, depth, axis);
  TRY(mask);
  Value values = n.in(2);
  Value off = n.reshape(n.sliceAxis(values, 0, 0, 1), {});
  Value on = n.reshape(n.sliceAxis(values, 0, 1, 2), {});
  TRY(off && on);
  return out(n, n.create<SelectOp>(mask, on, off));
}

LogicalResult convertEyeLike(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  auto type = n.inType(0);
  if (type.getRank() != 2)
    return n.fail("EyeLike needs a 2-D input");
  Type elem = type.getElementType();
  if (const auto *a = n.attr("dtype")) {
    std::string why;
    elem = convertElementType(n.ctx, a->i(), why);
    if (!elem)
      return n.fail(why);
  }
  int64_t k = n.attrInt("k", 0);
  if (!type.hasStaticShape()) {
    // Run-time sizes: ones where column == row + k, from two iotas.
    Type i64 = n.b.getI64Type();
    SymDim rows = n.dimOf(n.in(0), 0), cols = n.dimOf(n.in(0), 1);
    Value rowShape = n.shapeOperand({rows, SymDim::constant(1)});
    Value colShape = n.shapeOperand({SymDim::constant(1), cols});
    TRY(rowShape && colShape);
    Value r =
        n.make<IotaOp>(n.typeOf({rows, SymDim::constant(1)}, i64), rowShape, 0);
    Value c =
        n.make<IotaOp>(n.typeOf({SymDim::constant(1), cols}, i64), colShape, 1);
    TRY(r && c);
    Value on = n.create<CmpOp>(CmpPredicate::eq,
                               n.create<AddOp>(r, n.scalar(i64, k)), c);
    TRY(on);
    return out(n, n.cast(on, elem));
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  if (overComputedLimit(rows, cols))
    return n.fail("an EyeLike of " + Twine(rows) + " x " + Twine(cols) +
                  " is larger than Tide computes while importing (" +
                  Twine(kComputedTableLimit) + " elements)");
  std::vector<int64_t> ints(rows * cols, 0);
  std::vector<double> floats(rows * cols, 0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols) {
      ints[i * cols + i + k] = 1;
      floats[i * cols + i + k] = 1;
    }
  n.setConstOut(
      0, makeDense(RankedTensorType::get({rows, cols}, elem), ints, floats));
  return success();
}

LogicalResult convertTrilu(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  Shape s = shapeOf(x);
  if (s.size() < 2)
    return n.fail("Trilu needs a tensor of rank 2 or more");
  int64_t k = 0;
  if (n.has(1)) {
    auto v = n.requireInts(1, "k");
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return n.fail("k must have one element (it has " + Twine(v->size()) +
                    ")");
    k = (*v)[0];
  }
  bool upper = n.attrInt("upper", 1);
  int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols)) {
    // Sizes known at run time (a causal mask over a symbolic sequence): the
    // mask from positions, column - row compared with k.
    int64_t rank = s.size();
    SymDim r = n.dimOf(x, rank - 2), c = n.dimOf(x, rank - 1),
           one = SymDim::constant(1);
    Type i64 = n.b.getI64Type();
    auto positions = [&](SymDim len, SmallVector<SymDim> shape) -> Value {
      Value size = n.shapeOperand({len});
      if (!size)
        return {};
      Value iota = n.make<IotaOp>(n.typeOf({len}, i64), size, 0);
      return iota ? n.reshapeTo(iota, shape) : Value();
    };
    Value row = positions(r, {r, one}), col = positions(c, {one, c});
    TRY(row && col);
    Value diff = n.create<SubOp>(col, row);
    TRY(diff);
    Value mask = n.create<CmpOp>(upper ? CmpPredicate::ge : CmpPredicate::le,
                                 diff, sc(n, diff, k));
    TRY(mask);
    return out(n, n.create<SelectOp>(mask, x, sc(n, x, 0)));
  }
  SmallVector<int64_t> keep(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep[i * cols + j] = upper ? (j - i >= k) : (j - i <= k);
  Value mask = n.constant(
      makeDense(RankedTensorType::get({rows, cols}, IntegerType::get(n.ctx, 1)),
                keep, {}));
  return out(n, n.create<SelectOp>(mask, x, sc(n, x, 0)));
}

/// Einsum: an ellipsis becomes one index per dimension it covers (aligned
/// from the right, like NumPy's broadcasting); an index repeated in one
/// operand takes that operand's diagonal first (a mask, then a sum). The
/// operands are then laid out on a common index order, multiplied with
/// broadcasting, and summed over the indices the output drops.
LogicalResult convertEinsum(NodeImporter &n) {
  if (failed(n.checkAttrs({"equation"})))
    return failure();
  std::string eq = n.attrString("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  for (size_t i = 0; i < eq.size(); ++i) {
    char c = eq[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == ',' ||
        (c == '-' && i + 1 < eq.size() && eq[i + 1] == '>') ||
        (c == '>' && i > 0 && eq[i - 1] == '-'))
      continue;
    if (c == '.' && eq.compare(i, 3, "...") == 0) {
      i += 2;
      continue;
    }
    return n.fail("bad Einsum index '" + std::string(1, c) + "'");
  }
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t at = 0;;) {
    size_t comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma - at));
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  if (terms.size() != n.numInputs())
    return n.fail("the equation has " + llvm::Twine(terms.size()) +
                  " operands but the node has " + llvm::Twine(n.numInputs()) +
                  " inputs");
  SmallVector<Value> ops;
  for (unsigned k = 0; k < n.numInputs(); ++k) {
    TRY(n.in(k));
    ops.push_back(n.in(k));
  }
  // Ellipses: the dimensions they cover get the indices '0', '1', ...
  // (aligned from the right), which sort before the letters.
  int64_t ellipsis = 0;
  for (auto [k, t] : llvm::enumerate(terms)) {
    size_t at = t.find("...");
    if (at == std::string::npos)
      continue;
    int64_t covered = rankOf(ops[k]) - static_cast<int64_t>(t.size() - 3);
    if (covered < 0 || t.find("...", at + 3) != std::string::npos)
      return n.fail("operand " + llvm::Twine(k) + " has rank " +
                    llvm::Twine(rankOf(ops[k])) + " but its term '" + t +
                    "' has more indices");
    ellipsis = std::max(ellipsis, covered);
  }
  if (ellipsis > 10)
    return n.fail("an ellipsis covering more than 10 dimensions is not "
                  "supported");
  auto ellipsisIndices = [&](int64_t count) {
    std::string s;
    for (int64_t i = ellipsis - count; i < ellipsis; ++i)
      s += static_cast<char>('0' + i);
    return s;
  };
  for (auto [k, t] : llvm::enumerate(terms))
    if (size_t at = t.find("..."); at != std::string::npos)
      t.replace(
          at, 3,
          ellipsisIndices(rankOf(ops[k]) - static_cast<int64_t>(t.size() - 3)));
  std::string output;
  if (arrow != std::string::npos) {
    output = eq.substr(arrow + 2);
    if (size_t at = output.find("..."); at != std::string::npos)
      output.replace(at, 3, ellipsisIndices(ellipsis));
  } else {
    // Implicit output: the ellipsis, then the indices that appear once,
    // sorted.
    output = ellipsisIndices(ellipsis);
    std::map<char, int> count;
    for (const std::string &t : terms)
      for (char c : t)
        ++count[c];
    for (auto [c, k] : count)
      if (k == 1 && std::isalpha(static_cast<unsigned char>(c)))
        output += c;
  }
  // Diagonals: an index repeated in one operand keeps the elements where
  // both positions agree (a mask), summed over the second position.
  for (auto [k, t] : llvm::enumerate(terms)) {
    if (static_cast<int64_t>(t.size()) != rankOf(ops[k]))
      continue; // reported below
    for (size_t q = 0; q < t.size(); ++q) {
      size_t p = t.find(t[q]);
      if (p == q)
        continue;
      Shape s = shapeOf(ops[k]);
      if (ShapedType::isDynamic(s[p]) || ShapedType::isDynamic(s[q])) {
        // Sizes known at run time: the mask compares two iotas of the first
        // position's size, one along each position; selecting with it checks
        // when the model runs that the second position has that size too.
        SymDim len = n.dimOf(ops[k], p);
        Value shape = n.shapeOperand({len});
        Type i64 = IntegerType::get(n.ctx, 64);
        Value pos =
            shape ? n.make<IotaOp>(n.typeOf({len}, i64), shape, 0) : Value();
        TRY(pos);
        SmallVector<SymDim> along(s.size(), SymDim::constant(1));
        along[p] = len;
        Value first = n.reshapeTo(pos, along);
        along[p] = SymDim::constant(1);
        along[q] = len;
        Value second = n.reshapeTo(pos, along);
        TRY(first && second);
        Value mask = n.create<CmpOp>(CmpPredicate::eq, first, second);
        TRY(mask);
        Value v = n.create<SelectOp>(mask, ops[k], sc(n, ops[k], 0));
        TRY(v);
        TRY(ops[k] = n.create<ReduceSumOp>(v, Shape{static_cast<int64_t>(q)},
                                           false));
        t.erase(q, 1);
        --q;
        continue;
      }
      if (s[p] != s[q])
        return n.fail("the diagonal of index '" + std::string(1, t[q]) +
                      "' has sizes " + llvm::Twine(s[p]) + " and " +
                      llvm::Twine(s[q]));
      if (overComputedLimit(s[p], s[q]))
        return n.fail("the diagonal of index '" + std::string(1, t[q]) +
                      "' is larger than Tide computes while importing");
      std::vector<int64_t> eye(s[p] * s[q]);
      for (int64_t i = 0; i < s[p]; ++i)
        eye[i * s[q] + i] = 1;
      Shape maskShape(s.size(), 1);
      maskShape[p] = s[p];
      maskShape[q] = s[q];
      Value mask = n.constant(makeDense(
          RankedTensorType::get(maskShape, IntegerType::get(n.ctx, 1)), eye,
          {}));
      Value v = n.create<SelectOp>(mask, ops[k], sc(n, ops[k], 0));
      TRY(v);
      TRY(ops[k] =
              n.create<ReduceSumOp>(v, Shape{static_cast<int64_t>(q)}, false));
      t.erase(q, 1);
      --q;
    }
  }
  // Every index in order of first appearance; its size.
  std::string order;
  std::map<char, int64_t> sizes;
  for (auto [k, t] : llvm::enumerate(terms)) {
    Shape s = shapeOf(ops[k]);
    if (s.size() != t.size())
      return n.fail("operand " + llvm::Twine(k) + " has rank " +
                    llvm::Twine(s.size()) + " but its term '" + t + "' has " +
                    llvm::Twine(t.size()) + " indices");
    for (auto [i, c] : llvm::enumerate(t)) {
      if (order.find(c) == std::string::npos)
        order += c;
      // A size known only at run time agrees with any (checked when the
      // operands broadcast); a static one wins over it.
      auto it = sizes.find(c);
      if (it != sizes.end() && it->second != s[i] && it->second != 1 &&
          s[i] != 1 && !ShapedType::isDynamic(it->second) &&
          !ShapedType::isDynamic(s[i]))
        return n.fail("index '" + std::string(1, c) + "' has sizes " +
                      llvm::Twine(it->second) + " and " + llvm::Twine(s[i]));
      if (it == sizes.end() || it->second == 1 ||
          (ShapedType::isDynamic(it->second) && s[i] != 1))
        sizes[c] = s[i];
    }
  }
  for (char c : output)
    if (order.find(c) == std::string::npos)
      return n.fail("output index '" + std::string(1, c) +
                    "' is not in any operand");
  // Put the output indices first (in output order), then the summed ones.
  std::string layout = output;
  for (char c : order)
    if (output.find(c) == std::string::npos)
      layout += c;
  Value acc;
  for (auto [k, t] : llvm::enumerate(terms)) {
    // Transpose operand k to the layout's order of its own indices, then
    // insert size-1 dimensions for the others.
    Shape perm;
    for (char c : layout)
      if (t.find(c) != std::string::npos)
        perm.push_back(t.find(c));
    Value v = ops[k];
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(perm))
      identity &= static_cast<int64_t>(i) == p;
    if (!identity)
      TRY(v = n.create<TransposeOp>(v, perm));
    Shape full;
    Shape vs = shapeOf(v);
    unsigned j = 0;
    for (char c : layout)
      full.push_back(t.find(c) != std::string::npos ? vs[j++] : 1);
    v = n.reshape(v, full);
    TRY(v);
    acc = acc ? n.create<MulOp>(acc, v) : v;
    TRY(acc);
  }
  if (layout.size() > output.size()) {
    Shape axes;
    for (size_t i = output.size(); i < layout.size(); ++i)
      axes.push_back(i);
    TRY(acc = n.create<ReduceSumOp>(acc, axes, false));
  }
  // Broadcast any size-1 output dimension to the index's size.
  Shape want;
  for (char c : output)
    want.push_back(sizes[c]);
  return out(n, n.broadcastTo(acc, want));
}

/// CumSum and CumProd (tide.cumsum, tide.cumprod).
template <typename OpTy>
LogicalResult convertCumulative(NodeImporter &n) {
  if (failed(n.checkAttrs({"exclusive", "reverse"})) || failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank == 0)
    return n.fail(
        std::string(std::is_same_v<OpTy, CumsumOp> ? "CumSum" : "CumProd") +
        " needs a tensor of rank 1 or more");
  auto axisV = n.requireInts(1, "axis");
  if (failed(axisV))
    return failure();
  if (axisV->size() != 1)
    return n.fail("the axis must be a scalar");
  auto axis = n.normAxis((*axisV)[0], rank);
  if (failed(axis))
    return failure();
  return out(n, n.create<OpTy>(x, *axis, n.attrInt("exclusive", 0) != 0,
                               n.attrInt("reverse", 0) != 0));
}

//===----------------------------------------------------------------------===//
// Gathers (onto tide.gather, take-along-axis)
//===----------------------------------------------------------------------===//

LogicalResult requireIndices(NodeImporter &n, Value indices) {
  Type t = elemOf(indices);
  if (!t.isInteger(32) && !t.isInteger(64))
    return n.fail("indices must be int32 or int64");
  return success();
}

LogicalResult convertGatherElements(NodeImporter &n) {
  if (failed(need(n, 2)) || failed(requireIndices(n, n.in(1))))
    return failure();
  Value data = n.in(0), indices = n.in(1);
  if (rankOf(data) != rankOf(indices))
    return n.fail("data and indices must have the same rank");
  auto axis = n.normAxis(n.attrInt("axis", 0), rankOf(data));
  if (failed(axis))
    return failure();
  indices = checkedIndices(n, indices, {n.dimOf(data, *axis)},
                           "the data's size along axis " + Twine(*axis));
  TRY(indices);
  return out(n, n.create<GatherOp>(data, indices, *axis));
}

/// The product of `dims` (sizes known up to run time).
SymDim productOf(NodeImporter &n, ArrayRef<SymDim> dims) {
  SymDim p = SymDim::constant(1);
  for (const SymDim &d : dims)
    p = n.combine("Mul", p, d);
  return p;
}

/// numpy.take(data, indices, axis): the indices, flattened and broadcast over
/// the other dimensions, gathered along `axis`, then reshaped.
Value take(NodeImporter &n, Value data, Value indices, int64_t axis) {
  if (!data || !indices)
    return {};
  SmallVector<SymDim> ds = n.dimsOf(data), is = n.dimsOf(indices);
  if (axis < 0 || axis >= static_cast<int64_t>(ds.size())) {
    n.error() << "cannot take along axis " << axis << " of a rank-" << ds.size()
              << " tensor";
    return {};
  }
  SymDim count = productOf(n, is);
  SmallVector<SymDim> spread(ds.size(), SymDim::constant(1)), full = ds;
  spread[axis] = count;
  full[axis] = count;
  Value idx = n.reshapeTo(indices, spread);
  if (!idx)
    return {};
  // The count as the reshape's result knows it.
  full[axis] = n.dimOf(idx, axis);
  idx = n.broadcastToDims(idx, full);
  if (!idx)
    return {};
  Value g = n.create<GatherOp>(data, idx, axis);
  if (!g)
    return {};
  SmallVector<SymDim> result(ds.begin(), ds.begin() + axis);
  result.append(is.begin(), is.end());
  result.append(ds.begin() + axis + 1, ds.end());
  return n.reshapeTo(g, result);
}

LogicalResult convertGather(NodeImporter &n) {
  if (failed(need(n, 2)) || failed(requireIndices(n, n.in(1))))
    return failure();
  Value data = n.in(0);
  if (rankOf(data) == 0)
    return n.fail("Gather needs data of rank 1 or more");
  auto axis = n.normAxis(n.attrInt("axis", 0), rankOf(data));
  if (failed(axis))
    return failure();
  Value indices = checkedIndices(n, n.in(1), {n.dimOf(data, *axis)},
                                 "the data's size along axis " + Twine(*axis));
  TRY(indices);
  return out(n, take(n, data, indices, *axis));
}

/// A vector of `values` (sizes known up to run time) with element type `it`.
Value indexVector(NodeImporter &n, ArrayRef<SymDim> values, Type it) {
  if (llvm::all_of(values, [](const SymDim &d) { return d.isConst(); })) {
    SmallVector<int64_t> ints;
    for (const SymDim &d : values)
      ints.push_back(d.value);
    auto type = RankedTensorType::get({static_cast<int64_t>(ints.size())}, it);
    return n.constant(makeDense(type, ints, {}));
  }
  return n.cast(n.shapeOperand(values), it);
}

} // namespace

/// `indices` guarded so that every index lies in [-d, d) ([0, d) without
/// `negative`) for its size d in `bounds`: one size for all indices, or one per
/// entry of the indices' last dimension (GatherND, ScatterND). ONNX calls any
/// other index an error; tide.gather would clamp it and tide.scatter write
/// nothing, so the program would go on with a wrong result. Constant indices
/// are checked here (an error of the node); others by a tide.check, whose
/// failure ends the call with the node's name. `what` names the sizes in the
/// message.
Value mlir::tide::onnx_import::checkedIndices(NodeImporter &n, Value indices,
                                              ArrayRef<SymDim> bounds,
                                              const Twine &what, bool negative,
                                              Value guard) {
  if (!indices)
    return {};
  if (!guard)
    guard = indices;
  Type it = elemOf(indices);
  bool perLast = bounds.size() > 1;
  auto boundAt = [&](int64_t flat) -> const SymDim & {
    return perLast ? bounds[flat % bounds.size()] : bounds.front();
  };
  DenseElementsAttr values;
  if (matchPattern(indices, m_Constant(&values)) &&
      llvm::all_of(bounds, [](const SymDim &d) { return d.isConst(); })) {
    int64_t flat = 0;
    for (APInt v : values.getValues<APInt>()) {
      int64_t index = v.getSExtValue(), size = boundAt(flat++).value;
      int64_t low = negative ? -size : 0;
      if (index < low || index >= size) {
        n.error() << "index " << index << " is outside [" << low << ", " << size
                  << ") (" << size << ": " << what << ")";
        return {};
      }
    }
    return guard;
  }
  // The smallest and largest index (per entry of the last dimension with
  // one size per entry) compared with the bounds: the reductions give small
  // tensors, which placement computes on the host like other sizes, so
  // indices that come from the host (token ids) are read there and not
  // copied back from a GPU. (With no index the smallest is the type's
  // highest value and the largest its lowest: an empty tensor passes.)
  Shape axes;
  for (int64_t d = 0, r = rankOf(indices) - (perLast ? 1 : 0); d < r; ++d)
    axes.push_back(d);
  Value size = indexVector(n, bounds, it);
  Value lowest = indices, highest = indices;
  if (!axes.empty()) {
    lowest = n.create<ReduceMinOp>(indices, axes, false);
    highest = n.create<ReduceMaxOp>(indices, axes, false);
  }
  Value low = negative ? n.create<NegOp>(size) : n.scalar(it, 0);
  Value holds =
      n.create<AndOp>(n.create<CmpOp>(CmpPredicate::ge, lowest, low),
                      n.create<CmpOp>(CmpPredicate::lt, highest, size));
  if (!holds)
    return {};
  if (perLast) {
    // Every entry's: the minimum of them as i8 is 1.
    Type i8 = n.b.getIntegerType(8);
    holds = n.create<CmpOp>(
        CmpPredicate::eq,
        n.create<ReduceMinOp>(n.cast(holds, i8), Shape{0}, false),
        n.scalar(i8, 1));
  } else if (rankOf(holds) > 0) {
    holds = n.reshape(holds, {});
  }
  if (!holds)
    return {};
  std::string message;
  llvm::raw_string_ostream os(message);
  os << "an index is outside [" << (negative ? "-d" : "0") << ", d) for d "
     << what << " (ONNX requires every index in range)";
  return n.make<CheckOp>(guard.getType(), guard, holds,
                         n.b.getStringAttr(message));
}

namespace {

/// The row-major index into the first `k` dimensions (sizes `ds`) of each
/// `k`-tuple along the last dimension of `indices` (each index wrapped once
/// when negative), shaped like `indices` without its last dimension.
Value linearIndex(NodeImporter &n, Value indices, ArrayRef<SymDim> ds,
                  int64_t k) {
  Type it = elemOf(indices);
  SmallVector<SymDim> dims(ds.begin(), ds.begin() + k);
  SmallVector<SymDim> strides(k, SymDim::constant(1));
  for (int64_t i = k - 2; i >= 0; --i)
    strides[i] = n.combine("Mul", strides[i + 1], ds[i + 1]);
  Value dimsC = indexVector(n, dims, it);
  Value stridesC = indexVector(n, strides, it);
  Value neg = n.create<CmpOp>(CmpPredicate::lt, indices, n.scalar(it, 0));
  if (!neg)
    return {};
  Value wrapped =
      n.create<SelectOp>(neg, n.create<AddOp>(indices, dimsC), indices);
  if (!wrapped)
    return {};
  return n.create<ReduceSumOp>(n.create<MulOp>(wrapped, stridesC),
                               Shape{rankOf(indices) - 1}, false);
}

/// GatherND: a linear index over the `batch_dims` leading dimensions and the
/// k indexed ones (each index wrapped once) into the data seen as a table of
/// rows, then a take along the rows. Without batch dimensions the sizes may
/// be dynamic (an attention mask indexed by run-time ranges).
LogicalResult convertGatherND(NodeImporter &n) {
  if (failed(n.checkAttrs({"batch_dims"})) || failed(need(n, 2)) ||
      failed(requireIndices(n, n.in(1))))
    return failure();
  Value data = n.in(0), indices = n.in(1);
  Shape ds = shapeOf(data), is = shapeOf(indices);
  int64_t b = n.attrInt("batch_dims", 0);
  if (is.empty() || ShapedType::isDynamic(is.back()))
    return n.fail("the last dimension of the indices must be static");
  int64_t k = is.back();
  if (b < 0 || b >= static_cast<int64_t>(is.size()) ||
      b >= static_cast<int64_t>(ds.size()))
    return n.fail("batch_dims (" + llvm::Twine(b) +
                  ") must be below the ranks of the data and the indices");
  if (k < 1 || b + k > static_cast<int64_t>(ds.size()))
    return n.fail("the indices' last dimension (" + llvm::Twine(k) +
                  ") must be between 1 and the data's rank minus batch_dims");
  for (int64_t i = 0; i < b; ++i)
    if (ShapedType::isDynamic(ds[i]) || ShapedType::isDynamic(is[i]) ||
        is[i] != ds[i])
      return n.fail("GatherND needs static sizes on the batch dimensions, "
                    "equal in the data and the indices");
  SmallVector<SymDim> dd = n.dimsOf(data);
  indices = checkedIndices(n, indices, ArrayRef<SymDim>(dd).slice(b, k),
                           k == 1 ? "the data's size along axis " + Twine(b)
                                  : "the data's sizes along axes " + Twine(b) +
                                        " to " + Twine(b + k - 1));
  TRY(indices);
  // Linear index over dimensions b .. b+k-1 of the data.
  Value lin = linearIndex(n, indices, ArrayRef<SymDim>(dd).drop_front(b), k);
  TRY(lin);
  Type it = elemOf(indices);
  SymDim rows = productOf(n, ArrayRef<SymDim>(dd).slice(b, k));
  if (b > 0) {
    // Plus the batch element's offset: its linear number times the block.
    if (!rows.isConst())
      return n.fail("GatherND with batch_dims needs static sizes on the "
                    "indexed dimensions");
    int64_t block = rows.value, batches = 1;
    for (int64_t i = 0; i < b; ++i) {
      if (ShapedType::isDynamic(ds[i]) || overComputedLimit(batches, ds[i]))
        return n.fail("GatherND with batch_dims needs static batch sizes "
                      "of at most " +
                      Twine(kComputedTableLimit) + " elements in all");
      batches *= ds[i];
    }
    std::vector<int64_t> offsets(batches);
    for (int64_t i = 0; i < batches; ++i)
      offsets[i] = i * block;
    Shape offShape(ds.begin(), ds.begin() + b);
    offShape.resize(is.size() - 1, 1);
    Value off =
        n.constant(makeDense(RankedTensorType::get(offShape, it), offsets, {}));
    TRY(lin = n.create<AddOp>(lin, off));
    rows = SymDim::constant(block * batches);
  }
  SmallVector<SymDim> flat{rows};
  flat.append(dd.begin() + b + k, dd.end());
  Value table = n.reshapeTo(data, flat);
  TRY(table);
  return out(n, take(n, table, lin, 0));
}

/// ScatterElements' (and ScatterND's) `reduction` attribute.
FailureOr<ScatterReduction> scatterReduction(NodeImporter &n) {
  std::string r = n.attrString("reduction", "none");
  if (auto kind = symbolizeScatterReduction(r))
    return *kind;
  return n.fail("reduction '" + r + "' is not one of none, add, mul, max, min");
}

/// Col2Im (opset 18): the blocks of `input` (N, C * prod(block), L) added
/// into an image of `image_shape` (N, C, spatial...), as one tide.scatter
/// with `add` over the flattened image: each (block offset, block position)
/// has a constant target index (padding positions get an index past the
/// image, which writes nothing).
LogicalResult convertCol2Im(NodeImporter &n) {
  if (failed(n.checkAttrs({"dilations", "pads", "strides"})) ||
      failed(need(n, 3)))
    return failure();
  Value x = n.in(0);
  auto image = n.requireInts(1, "image_shape");
  auto block = n.requireInts(2, "block_shape");
  if (failed(image) || failed(block))
    return failure();
  int64_t r = static_cast<int64_t>(image->size());
  if (r < 1 || static_cast<int64_t>(block->size()) != r)
    return n.fail("image_shape and block_shape need one entry per spatial "
                  "dimension (got " +
                  llvm::Twine(image->size()) + " and " +
                  llvm::Twine(block->size()) + ")");
  auto list = [&](llvm::StringRef name, int64_t count,
                  int64_t fill) -> FailureOr<Shape> {
    auto v = n.attrInts(name);
    if (!v)
      return Shape(count, fill);
    if (static_cast<int64_t>(v->size()) != count) {
      (void)n.fail("'" + name + "' needs " + llvm::Twine(count) + " values");
      return failure();
    }
    return Shape(v->begin(), v->end());
  };
  auto dil = list("dilations", r, 1), str = list("strides", r, 1),
       pads = list("pads", 2 * r, 0);
  if (failed(dil) || failed(str) || failed(pads))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() != 3 || !type.hasStaticShape())
    return n.fail("the input must be a static (N, C x block size, L) tensor");
  constexpr int64_t kLimit = int64_t(1) << 24;
  int64_t pixels = 1, kernel = 1, blocks = 1;
  Shape counts(r);
  for (int64_t d = 0; d < r; ++d) {
    int64_t size = (*image)[d], k = (*block)[d], dl = (*dil)[d], s = (*str)[d],
            pb = (*pads)[d], pe = (*pads)[r + d];
    if (size <= 0 || k <= 0 || dl <= 0 || s <= 0 || pb < 0 || pe < 0 ||
        size > kLimit || k > kLimit || dl > kLimit || s > kLimit ||
        pb > kLimit || pe > kLimit)
      return n.fail("image, block, dilation and stride sizes must be "
                    "positive and pads non-negative (and below 2^24)");
    int64_t span = size + pb + pe - dl * (k - 1) - 1;
    if (span < 0)
      return n.fail("the block does not fit the padded image along "
                    "spatial dimension " +
                    llvm::Twine(d));
    counts[d] = span / s + 1;
    if (size > kLimit / pixels || k > kLimit / kernel ||
        counts[d] > kLimit / blocks)
      return n.fail("the image or its blocks are too large");
    pixels *= size;
    kernel *= k;
    blocks *= counts[d];
  }
  int64_t batch = type.getDimSize(0), rows = type.getDimSize(1);
  if (rows % kernel)
    return n.fail("the input's second dimension (" + llvm::Twine(rows) +
                  ") is not a multiple of the block size (" +
                  llvm::Twine(kernel) + ")");
  if (type.getDimSize(2) != blocks)
    return n.fail("the input has " + llvm::Twine(type.getDimSize(2)) +
                  " blocks where the image, block, pads, strides and "
                  "dilations give " +
                  llvm::Twine(blocks));
  if (kernel > kLimit / blocks)
    return n.fail("the image or its blocks are too large");
  int64_t channels = rows / kernel;
  // Target index of (block offset k, block position l), in that order.
  SmallVector<int64_t> index(kernel * blocks);
  Shape ko(r, 0);
  for (int64_t k = 0; k < kernel; ++k) {
    Shape lo(r, 0);
    for (int64_t l = 0; l < blocks; ++l) {
      int64_t flat = 0;
      bool inside = true;
      for (int64_t d = 0; d < r; ++d) {
        int64_t at = lo[d] * (*str)[d] - (*pads)[d] + ko[d] * (*dil)[d];
        inside &= at >= 0 && at < (*image)[d];
        flat = flat * (*image)[d] + at;
      }
      index[k * blocks + l] = inside ? flat : pixels;
      for (int64_t d = r - 1; d >= 0; --d) {
        if (++lo[d] < counts[d])
          break;
        lo[d] = 0;
      }
    }
    for (int64_t d = r - 1; d >= 0; --d) {
      if (++ko[d] < (*block)[d])
        break;
      ko[d] = 0;
    }
  }
  auto i64 = IntegerType::get(n.ctx, 64);
  Value idx = n.constant(makeDense(
      RankedTensorType::get({1, 1, kernel * blocks}, i64), index, {}));
  idx = n.broadcastTo(idx, Shape{batch, channels, kernel * blocks});
  Value upd = n.reshape(x, {batch, channels, kernel * blocks});
  Value zeros = n.broadcastTo(n.reshape(sc(n, x, 0), {1, 1, 1}),
                              Shape{batch, channels, pixels});
  TRY(idx);
  TRY(upd);
  TRY(zeros);
  Value y = n.create<ScatterOp>(zeros, idx, upd, 2, ScatterReduction::Add);
  TRY(y);
  Shape outShape{batch, channels};
  outShape.append(image->begin(), image->end());
  return out(n, n.reshape(y, outShape));
}

/// ScatterElements (and the older Scatter): tide.scatter.
LogicalResult convertScatterElements(NodeImporter &n) {
  if (failed(need(n, 3)) || failed(requireIndices(n, n.in(1))))
    return failure();
  Value data = n.in(0), indices = n.in(1), updates = n.in(2);
  if (rankOf(data) != rankOf(indices) || rankOf(indices) != rankOf(updates))
    return n.fail("data, indices and updates must have the same rank");
  auto axis = n.normAxis(n.attrInt("axis", 0), rankOf(data));
  auto reduction = scatterReduction(n);
  if (failed(axis) || failed(reduction))
    return failure();
  indices = checkedIndices(n, indices, {n.dimOf(data, *axis)},
                           "the data's size along axis " + Twine(*axis));
  TRY(indices);
  return out(n, n.create<ScatterOp>(data, indices, updates, *axis, *reduction));
}

/// ScatterND: the data seen as a table of rows (its first k dimensions
/// flattened), each index tuple made a row number, and tide.scatter along
/// the rows.
LogicalResult convertScatterND(NodeImporter &n) {
  if (failed(need(n, 3)) || failed(requireIndices(n, n.in(1))))
    return failure();
  auto reduction = scatterReduction(n);
  if (failed(reduction))
    return failure();
  Value data = n.in(0), indices = n.in(1), updates = n.in(2);
  Shape ds = shapeOf(data), is = shapeOf(indices), us = shapeOf(updates);
  if (is.empty() || ShapedType::isDynamic(is.back()))
    return n.fail("the last dimension of the indices must be static");
  int64_t k = is.back();
  if (k < 1 || k > static_cast<int64_t>(ds.size()))
    return n.fail("the indices' last dimension (" + llvm::Twine(k) +
                  ") must be between 1 and the data's rank");
  // Any size may be known only at run time (a KV cache written at run-time
  // positions): the shapes below are built from run-time sizes.
  SmallVector<SymDim> dd = n.dimsOf(data), id = n.dimsOf(indices);
  SymDim q = SymDim::constant(1);
  for (size_t i = 0; i + 1 < is.size(); ++i)
    q = n.combine("Mul", q, id[i]);
  SmallVector<SymDim> want(id.begin(), id.end() - 1);
  want.append(dd.begin() + k, dd.end());
  // Updates whose sizes are known only at run time take the expected ones
  // (a reshape, checked at run time).
  bool compatible = us.size() == want.size();
  bool same = compatible;
  for (size_t i = 0; compatible && i < us.size(); ++i) {
    compatible = ShapedType::isDynamic(us[i]) || !want[i].isConst() ||
                 us[i] == want[i].value;
    same &= want[i].isConst() && us[i] == want[i].value;
  }
  if (!compatible) {
    Shape wantShape;
    for (const SymDim &d : want)
      wantShape.push_back(d.isConst() ? d.value : ShapedType::kDynamic);
    return n.fail("updates have shape " + shapeString(us) + "; expected " +
                  shapeString(wantShape) +
                  " (indices' shape without its last "
                  "dimension, then the data's dimensions after the first " +
                  llvm::Twine(k) + ")");
  }
  if (!same)
    TRY(updates = n.reshapeTo(updates, want));
  indices = checkedIndices(n, indices, ArrayRef<SymDim>(dd).take_front(k),
                           k == 1 ? Twine("the data's size along axis 0")
                                  : "the data's sizes along axes 0 to " +
                                        Twine(k - 1));
  TRY(indices);
  Value lin = linearIndex(n, indices, dd, k);
  TRY(lin);
  SymDim rows = SymDim::constant(1);
  for (int64_t i = 0; i < k; ++i)
    rows = n.combine("Mul", rows, dd[i]);
  SmallVector<SymDim> table{rows}, rowsOfUpdates{q}, spread{q};
  table.append(dd.begin() + k, dd.end());
  rowsOfUpdates.append(dd.begin() + k, dd.end());
  spread.append(ds.size() - k, SymDim::constant(1));
  Value flat = n.reshapeTo(data, table);
  Value upd = n.reshapeTo(updates, rowsOfUpdates);
  Value idx = n.reshapeTo(lin, spread);
  TRY(flat);
  TRY(upd);
  TRY(idx);
  idx = n.broadcastToDims(idx, rowsOfUpdates);
  TRY(idx);
  Value r = n.create<ScatterOp>(flat, idx, upd, 0, *reduction);
  TRY(r);
  return out(n, n.reshapeTo(r, dd));
}

/// TopK: tide.top_k gives the indices (larger values first, or smaller;
/// equal values by index; NaN the largest, as in NumPy's sort), a gather
/// along the axis the values. The axis length and k may be known only at
/// run time (detection heads take the top min(k, n) of the boxes that
/// passed a score threshold); a k larger than the axis at run time leaves
/// the extra positions 0. Always sorted (`sorted = 0` allows any order).
LogicalResult convertTopK(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "largest", "sorted"})) || failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  int64_t rank = rankOf(x);
  if (rank == 0)
    return n.fail("TopK needs an input of rank 1 or more");
  auto axis = n.normAxis(n.attrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<SymDim> dims = n.dimsOf(x);
  SymDim size = dims[*axis];
  SymDim k;
  if (n.opset < 10) {
    if (!n.attr("k"))
      return n.fail("TopK (opset 1) needs the 'k' attribute");
    k = SymDim::constant(n.attrInt("k", 0));
  } else {
    std::optional<ShapeValue> ks = n.shapeIn(1);
    if (!ks)
      return failed(n.requireInts(1, "k (the number of elements to keep)"))
                 ? failure()
                 : n.fail("k must hold one value");
    if (ks->elems.size() != 1)
      return n.fail("k must hold one value");
    k = ks->elems[0];
  }
  if (k.isConst() && (k.value < 0 || (size.isConst() && k.value > size.value)))
    return n.fail("k = " + llvm::Twine(k.value) + " is outside [0, " +
                  (size.isConst() ? llvm::Twine(size.value)
                                  : llvm::Twine("the axis size")) +
                  "], the size of the axis");
  bool largest = n.attrInt("largest", 1) != 0;
  Value kValue =
      k.isConst() ? n.constant(makeDense(
                        RankedTensorType::get({1}, IntegerType::get(n.ctx, 64)),
                        SmallVector<int64_t>{k.value}, {}))
                  : n.shapeOperand({k});
  TRY(kValue);
  if (!k.isConst() || !size.isConst()) {
    // k known only when the model runs: checked then (top_k would fill
    // positions past the axis with 0).
    Value zero = n.constant(
        makeDense(RankedTensorType::get({1}, IntegerType::get(n.ctx, 64)),
                  SmallVector<int64_t>{0}, {}));
    Value inRange = n.create<AndOp>(
        n.create<CmpOp>(CmpPredicate::ge, kValue, zero),
        n.create<CmpOp>(CmpPredicate::le, kValue, n.shapeOperand({size})));
    TRY(inRange);
    kValue =
        n.make<CheckOp>(kValue.getType(), kValue, inRange,
                        n.b.getStringAttr("k is outside [0, the size of axis " +
                                          Twine(*axis) + "]"));
    TRY(kValue);
  }
  SmallVector<SymDim> outDims = dims;
  outDims[*axis] = k;
  Value indices =
      n.make<TopKOp>(n.typeOf(outDims, IntegerType::get(n.ctx, 64)), x, kValue,
                     static_cast<int64_t>(*axis), !largest);
  TRY(indices);
  n.setOut(0, n.create<GatherOp>(x, indices, static_cast<int64_t>(*axis)));
  if (n.wantsOutput(1))
    n.setOut(1, indices);
  return success();
}

//===----------------------------------------------------------------------===//
// Losses (one-hot masks instead of a gather: the class axis is static)
//===----------------------------------------------------------------------===//

/// -input[n, target[n], d...] * weight[target], reduced as asked; shared by
/// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
Value negativeLogLikelihood(NodeImporter &n, Value input, Value target,
                            Value weight) {
  Shape s = shapeOf(input);
  if (s.size() < 2 || ShapedType::isDynamic(s[1])) {
    n.error() << "the input must be (N, C, ...) with a static class count";
    return {};
  }
  if (rankOf(target) != static_cast<int64_t>(s.size()) - 1) {
    n.error() << "the target must have the input's rank minus one";
    return {};
  }
  if (isa<FloatType>(elemOf(target))) {
    n.error() << "the target must hold integer class indices";
    return {};
  }
  int64_t classes = s[1];
  // A target other than ignore_index must be a class: in [-C, C), a
  // negative one counting from the end (ONNX's function body is a
  // GatherElements, and ONNX Runtime runs it so); others end the call.
  {
    Type tt = elemOf(target);
    Value valid;
    if (const auto *a = n.attr("ignore_index"))
      valid = n.create<CmpOp>(CmpPredicate::ne, target, n.scalar(tt, a->i()));
    Value classIndex =
        valid ? n.create<SelectOp>(valid, target, n.scalar(tt, 0)) : target;
    Value checked = checkedIndices(
        n, classIndex, {SymDim::constant(classes)},
        "the class count (the input's dimension 1), other than ignore_index",
        /*negative=*/true, /*guard=*/target);
    if (!checked)
      return {};
    Value negative =
        n.create<CmpOp>(CmpPredicate::lt, checked, n.scalar(tt, 0));
    if (valid)
      negative = n.create<AndOp>(negative, valid);
    target = n.create<SelectOp>(
        negative, n.create<AddOp>(checked, n.scalar(tt, classes)), checked);
    if (!target)
      return {};
  }
  // mask[n, c, d...] = (target[n, d...] == c)
  SmallVector<int64_t> iota(classes);
  std::iota(iota.begin(), iota.end(), 0);
  Shape iotaShape(s.size(), 1);
  iotaShape[1] = classes;
  Value range = n.constant(
      makeDense(RankedTensorType::get(iotaShape, elemOf(target)), iota, {}));
  Shape expanded = shapeOf(target);
  expanded.insert(expanded.begin() + 1, 1);
  Value t = n.reshape(target, expanded);
  Value mask = n.create<CmpOp>(CmpPredicate::eq, t, range);
  if (!mask)
    return {};
  Value zero = sc(n, input, 0);
  Value picked = n.create<ReduceSumOp>(n.create<SelectOp>(mask, input, zero),
                                       Shape{1}, false);
  if (!picked)
    return {};
  // The weight of each element's class (1 without weights), 0 where ignored.
  Value w;
  if (weight) {
    Value wb = n.reshape(weight, iotaShape);
    w = n.create<ReduceSumOp>(n.create<SelectOp>(mask, wb, zero), Shape{1},
                              false);
  } else {
    w = n.create<SelectOp>(n.create<CmpOp>(CmpPredicate::eq, target, target),
                           sc(n, input, 1), zero);
  }
  if (!w)
    return {};
  if (const auto *a = n.attr("ignore_index")) {
    Value valid = n.create<CmpOp>(CmpPredicate::ne, target,
                                  n.scalar(elemOf(target), a->i()));
    if (!valid)
      return {};
    w = n.create<SelectOp>(valid, w, zero);
    if (!w)
      return {};
  }
  Value loss = n.make<NegOp>(n.create<MulOp>(picked, w));
  if (!loss)
    return {};
  std::string reduction = n.attrString("reduction", "mean");
  Shape all;
  for (int64_t i = 0; i < rankOf(loss); ++i)
    all.push_back(i);
  if (reduction == "none")
    return loss;
  Value total = n.create<ReduceSumOp>(loss, all, false);
  if (reduction == "sum" || !total)
    return total;
  if (reduction != "mean") {
    n.error() << "reduction '" << reduction << "' is not none, sum or mean";
    return {};
  }
  Value wsum = n.create<ReduceSumOp>(w, all, false);
  if (!wsum)
    return {};
  return n.create<DivOp>(total, wsum);
}

LogicalResult convertNLL(NodeImporter &n) {
  if (failed(need(n, 2)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return out(n, negativeLogLikelihood(n, n.in(0), n.in(1),
                                      n.has(2) ? n.in(2) : Value()));
}

LogicalResult convertSoftmaxCrossEntropy(NodeImporter &n) {
  if (failed(need(n, 2)) || failed(requireFloat(n, n.in(0))))
    return failure();
  if (rankOf(n.in(0)) < 2)
    return n.fail("the scores must be (N, C, ...)");
  Value logp = n.make<LogSoftmaxOp>(n.in(0), 1);
  TRY(logp);
  Value loss =
      negativeLogLikelihood(n, logp, n.in(1), n.has(2) ? n.in(2) : Value());
  TRY(loss);
  n.setOut(0, loss);
  n.setOut(1, logp);
  return success();
}

LogicalResult convertShrink(NodeImporter &n) {
  if (failed(need(n, 1)))
    return failure();
  Value x = n.in(0);
  double lambd = n.attrFloat("lambd", 0.5), bias = n.attrFloat("bias", 0);
  // Integers are compared and shifted in f64 and truncated back, as ONNX
  // Runtime (lambd and bias in the integer type lost their fractions and
  // wrapped: -1.5 as uint8 is 255).
  Type elem = elemOf(x);
  if (isa<IntegerType>(elem)) {
    x = n.cast(x, Float64Type::get(n.ctx));
    TRY(x);
  }
  Value lo = n.create<CmpOp>(CmpPredicate::lt, x, sc(n, x, -lambd));
  Value hi = n.create<CmpOp>(CmpPredicate::gt, x, sc(n, x, lambd));
  Value plus = n.create<AddOp>(x, sc(n, x, bias));
  Value minus = n.create<SubOp>(x, sc(n, x, bias));
  TRY(lo && hi && plus && minus);
  Value inner = n.create<SelectOp>(hi, minus, sc(n, x, 0));
  TRY(inner);
  Value y = n.create<SelectOp>(lo, plus, inner);
  return out(n, y && isa<IntegerType>(elem) ? n.cast(y, elem) : y);
}

/// Hann, Hamming and Blackman windows: constants once the size is known.
LogicalResult convertWindow(NodeImporter &n) {
  auto size = n.requireConstIn(0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1 || size->intAt(0) < 0)
    return n.fail("the window size must be a non-negative scalar");
  int64_t count = size->intAt(0);
  if (count > kComputedTableLimit)
    return n.fail("a window of " + Twine(count) +
                  " samples is larger than Tide computes while importing (" +
                  Twine(kComputedTableLimit) + ")");
  std::string why;
  Type elem = convertElementType(n.ctx, n.attrInt("output_datatype", 1), why);
  if (!elem)
    return n.fail(why);
  double denom = n.attrInt("periodic", 1) ? count : count - 1;
  double a0 = 0.5, a1 = 0.5, a2 = 0;
  if (n.opType() == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 21.0 / 46.0;
  } else if (n.opType() == "BlackmanWindow") {
    a0 = 0.42;
    a1 = 0.5;
    a2 = 0.08;
  }
  std::vector<double> floats;
  std::vector<int64_t> ints;
  for (int64_t i = 0; i < count; ++i) {
    // In the ONNX reference's order: a0 added last, so that Blackman's
    // peak is exactly 1 (0.42 + 0.5 first gives 0.9999999999999999, which an
    // integer output_datatype truncates to 0). Hann's and Hamming's (a2 = 0)
    // are as a0 - a1 * cos.
    double v = (a2 * std::cos(4 * M_PI * i / denom) -
                a1 * std::cos(2 * M_PI * i / denom)) +
               a0;
    floats.push_back(v);
    ints.push_back(static_cast<int64_t>(v));
  }
  n.setConstOut(0,
                makeDense(RankedTensorType::get({count}, elem), ints, floats));
  return success();
}

//===----------------------------------------------------------------------===//
// Constants (the folder handles them; these run only if it declined)
//===----------------------------------------------------------------------===//

LogicalResult convertFoldOnly(NodeImporter &n) {
  // Name the first input whose value is missing.
  for (unsigned i = 0; i < n.numInputs(); ++i)
    if (n.has(i) && !n.constIn(i)) {
      (void)n.requireConstIn(i, "value");
      return failure();
    }
  return n.fail(n.opType() +
                " must be computed while importing, but its inputs are not "
                "known then (they depend on run-time values or dynamic "
                "dimensions); bind the graph inputs they depend on with "
                "--bind-input or --bind-shape");
}

/// ConstantOfShape of sizes known only at run time: a broadcast of the
/// value.
LogicalResult convertConstantOfShape(NodeImporter &n) {
  auto shape = n.shapeIn(0);
  if (!shape)
    return convertFoldOnly(n);
  for (const SymDim &d : shape->elems)
    if (d.isConst() && d.value < 0)
      return n.fail("ConstantOfShape: negative size " + llvm::Twine(d.value));
  if (shape->type.getRank() != 1)
    return n.fail("ConstantOfShape's shape must be a vector");
  DenseElementsAttr value =
      makeDense(RankedTensorType::get({}, n.b.getF32Type()), {}, {0.0});
  if (const auto *a = n.attr("value")) {
    std::string error;
    ElementsAttr attr =
        n.readTensor(a->t(), "'" + n.node.name() + "' value", error);
    if (!attr)
      return n.fail(error);
    auto v = readHostValues(attr, 1);
    if (!v || v->size() != 1)
      return n.fail("ConstantOfShape's value must have one element");
    auto type = RankedTensorType::get({}, v->type.getElementType());
    value = v->isFloat() ? makeDense(type, {}, {v->floats[0]})
                         : makeDense(type, {v->ints[0]}, {});
  }
  return out(n, n.broadcastToDims(n.constant(value), shape->elems));
}

/// Range with bounds known only at run time: start + iota * delta, with
/// max(0, ceil((limit - start) / delta)) elements; delta must be constant.
LogicalResult convertRange(NodeImporter &n) {
  auto start = n.shapeIn(0), limit = n.shapeIn(1), delta = n.shapeIn(2);
  if (!start || !limit || !delta)
    return convertFoldOnly(n);
  if (start->elems.size() != 1 || limit->elems.size() != 1 ||
      delta->elems.size() != 1)
    return n.fail("Range takes scalars");
  Type element = start->type.getElementType();
  if (element.isInteger(1))
    return n.fail("Range of bool values");
  const SymDim &d = delta->elems[0];
  if (!d.isConst())
    return n.fail("Range needs a constant delta when its bounds are known "
                  "only at run time");
  if (d.value == 0)
    return n.fail("Range with a delta of 0");
  // Its magnitude would not fit in int64 (found by tide-fuzz-onnx).
  if (d.value == std::numeric_limits<int64_t>::min())
    return n.fail("Range with a delta of -2^63 (its size cannot be computed "
                  "in int64)");
  int64_t step = d.value, magnitude = std::abs(step);
  SymDim span = n.combine("Sub", limit->elems[0], start->elems[0]);
  if (step < 0)
    span = n.combine("Sub", SymDim::constant(0), span);
  SymDim count = span;
  if (magnitude != 1)
    count = n.combine("Div",
                      n.combine("Add", span, SymDim::constant(magnitude - 1)),
                      SymDim::constant(magnitude));
  count = n.combine("Max", count, SymDim::constant(0));
  if (count.kind == SymDim::Kind::Expr && !count.scalar)
    return failure();
  Value shape = n.shapeOperand({count});
  TRY(shape);
  Value r = n.make<IotaOp>(n.typeOf({count}, element), shape, 0);
  TRY(r);
  if (step != 1)
    TRY(r = n.create<MulOp>(r, n.scalar(element, step)));
  if (!start->elems[0].isConst(0)) {
    Value s = n.materialize(*start);
    TRY(s);
    TRY(r = n.create<AddOp>(r, n.reshape(s, {})));
  }
  return out(n, r);
}

/// RotaryEmbedding (opset 23): the first rotary_embedding_dim entries of
/// each head rotated by the (position's) cos/sin pairs, the halves (or, when
/// interleaved, the even and odd entries) as real and imaginary parts.
LogicalResult convertRotaryEmbedding(NodeImporter &n) {
  if (failed(
          n.checkAttrs({"interleaved", "num_heads", "rotary_embedding_dim"})) ||
      failed(need(n, 3)) || failed(requireFloat(n, n.in(0))))
    return failure();
  return rotaryEmbedding(n, n.in(0), n.in(1), n.in(2),
                         n.has(3) ? n.in(3) : Value());
}

} // namespace

LogicalResult onnx_import::rotaryEmbedding(NodeImporter &n, Value x, Value cosC,
                                           Value sinC, Value positions) {
  return out(n, rotaryOf(n, x, cosC, sinC, positions,
                         n.attrInt("interleaved", 0) != 0,
                         n.attrInt("rotary_embedding_dim", 0),
                         n.attrInt("num_heads", 0)));
}

Value onnx_import::rotaryOf(NodeImporter &n, Value x, Value cosC, Value sinC,
                            Value positions, bool interleaved, int64_t rot,
                            int64_t heads) {
#define TRYV(x)                                                                \
  do {                                                                         \
    if (!(x))                                                                  \
      return {};                                                               \
  } while (false)
  auto fail = [&](const llvm::Twine &message) -> Value {
    (void)n.fail(message);
    return {};
  };
  TRYV(x && cosC && sinC);
  int64_t rank = rankOf(x);
  if (rank != 3 && rank != 4)
    return fail("RotaryEmbedding needs an input of rank 3 or 4");
  SmallVector<SymDim> dims = n.dimsOf(x);
  // To (batch, sequence, heads, head size).
  if (rank == 4) {
    TRYV(x = n.create<TransposeOp>(x, ArrayRef<int64_t>{0, 2, 1, 3}));
  } else {
    int64_t hidden = shapeOf(x)[2];
    if (heads <= 0 || ShapedType::isDynamic(hidden) || hidden % heads)
      return fail("3-D RotaryEmbedding needs a positive num_heads that "
                  "divides the hidden size");
    TRYV(x = n.reshapeTo(x, {dims[0], dims[1], SymDim::constant(heads),
                             SymDim::constant(hidden / heads)}));
  }
  int64_t head = shapeOf(x)[3];
  if (ShapedType::isDynamic(head))
    return fail("RotaryEmbedding needs the head size known while importing");
  if (rot == 0)
    rot = head;
  if (rot < 0 || rot > head || rot % 2)
    return fail("rotary_embedding_dim must be even and at most the head "
                "size " +
                llvm::Twine(head));
  int64_t half = rot / 2;
  if (positions) {
    if (failed(requireIndices(n, positions)))
      return {};
    if (rankOf(cosC) != 2 || rankOf(sinC) != 2)
      return fail("RotaryEmbedding with position_ids needs cos and sin "
                  "caches of (positions, " +
                  llvm::Twine(half) + ")");
    // A position past the caches is an error when the model runs (ONNX
    // Runtime's too), not a clamped row.
    positions = checkedIndices(n, positions, {n.dimOf(cosC, 0)},
                               "the rows of the cos/sin caches",
                               /*negative=*/false);
    TRYV(positions);
    cosC = take(n, cosC, positions, 0);
    sinC = take(n, sinC, positions, 0);
  }
  TRYV(cosC && sinC);
  if (rankOf(cosC) != 3 || shapeOf(cosC).back() != half ||
      shapeOf(sinC) != shapeOf(cosC))
    return fail("RotaryEmbedding needs cos and sin caches of (batch, "
                "sequence, " +
                llvm::Twine(half) + ") (or (positions, " + llvm::Twine(half) +
                ") with position_ids)");
  SmallVector<SymDim> cd = n.dimsOf(cosC);
  SmallVector<SymDim> cd4 = {cd[0], cd[1], SymDim::constant(1), cd[2]};
  Value c = n.reshapeTo(cosC, cd4), sn = n.reshapeTo(sinC, cd4);
  TRYV(c && sn);
  Value rotate = rot == head ? x : n.sliceAxis(x, 3, 0, rot);
  Value x1 = interleaved ? n.sliceAxis(rotate, 3, 0, rot, 2)
                         : n.sliceAxis(rotate, 3, 0, half);
  Value x2 = interleaved ? n.sliceAxis(rotate, 3, 1, rot, 2)
                         : n.sliceAxis(rotate, 3, half, rot);
  TRYV(x1 && x2);
  Value re = n.create<SubOp>(n.create<MulOp>(c, x1), n.create<MulOp>(sn, x2));
  Value im = n.create<AddOp>(n.create<MulOp>(sn, x1), n.create<MulOp>(c, x2));
  TRYV(re && im);
  Value rotated;
  if (interleaved) {
    SmallVector<SymDim> d = n.dimsOf(re);
    SmallVector<SymDim> d5 = {d[0], d[1], d[2], d[3], SymDim::constant(1)};
    Value pair = n.create<ConcatOp>(
        ValueRange{n.reshapeTo(re, d5), n.reshapeTo(im, d5)}, 4);
    TRYV(pair);
    rotated = n.reshapeTo(pair, {d[0], d[1], d[2], SymDim::constant(rot)});
  } else {
    rotated = n.create<ConcatOp>(ValueRange{re, im}, 3);
  }
  TRYV(rotated);
  Value y = rotated;
  if (rot < head)
    TRYV(y = n.create<ConcatOp>(
             ValueRange{rotated, n.sliceAxis(x, 3, rot, head)}, 3));
  if (rank == 4)
    return n.create<TransposeOp>(y, ArrayRef<int64_t>{0, 2, 1, 3});
  return n.reshapeTo(y, dims);
#undef TRYV
}

namespace {

const llvm::StringMap<Converter> &converters() {
  static const llvm::StringMap<Converter> table = [] {
    llvm::StringMap<Converter> t = {
        // Elementwise.
        {"Abs", unary<AbsOp>},
        {"Neg", unary<NegOp>},
        {"Exp", unary<ExpOp>},
        {"Log", unary<LogOp>},
        {"Sqrt", unary<SqrtOp>},
        {"Tanh", unary<TanhOp>},
        {"Sigmoid", unary<SigmoidOp>},
        {"Relu", unary<ReluOp>},
        {"Floor", unary<FloorOp>},
        {"Ceil", unary<CeilOp>},
        {"Round", unary<RoundOp>},
        {"Sin", unary<SinOp>},
        {"Cos", unary<CosOp>},
        {"Erf", unary<ErfOp>},
        {"Tan", unary<TanOp>},
        {"Asin", unary<AsinOp>},
        {"Acos", unary<AcosOp>},
        {"Atan", unary<AtanOp>},
        {"Sinh", unary<SinhOp>},
        {"Cosh", unary<CoshOp>},
        {"Asinh", unary<AsinhOp>},
        {"Acosh", unary<AcoshOp>},
        {"Atanh", unary<AtanhOp>},
        {"BitwiseNot", unary<NotOp>},
        {"BitwiseAnd", binary<AndOp>},
        {"BitwiseOr", binary<OrOp>},
        {"BitwiseXor", binary<XorOp>},
        {"BitShift", convertBitShift},
        {"Not", unary<NotOp>},
        {"Reciprocal", convertReciprocal},
        {"Add", binary<AddOp>},
        {"Sub", binary<SubOp>},
        {"Mul", binary<MulOp>},
        {"Div", binary<DivOp>},
        {"And", binary<AndOp>},
        {"Or", binary<OrOp>},
        {"Xor", binary<XorOp>},
        {"Pow", convertPow},
        {"Mod", convertMod},
        {"Sum", variadic<AddOp>},
        {"Max", variadic<MaximumOp>},
        {"Min", variadic<MinimumOp>},
        {"Mean", variadic<AddOp>},
        {"Equal", compare<CmpPredicate::eq>},
        {"Less", compare<CmpPredicate::lt>},
        {"LessOrEqual", compare<CmpPredicate::le>},
        {"Greater", compare<CmpPredicate::gt>},
        {"GreaterOrEqual", compare<CmpPredicate::ge>},
        {"Where", convertWhere},
        {"Cast", convertCast},
        {"CastLike", convertCast},
        {"Identity", convertIdentity},
        {"Dropout", convertDropout},
        {"Sign", unary<SignOp>},
        {"IsNaN", convertIsNaN},
        {"IsInf", convertIsInf},
        {"Clip", convertClip},
        // Activations.
        {"LeakyRelu", convertLeakyRelu},
        {"PRelu", convertPRelu},
        {"Elu", convertElu},
        {"Selu", convertSelu},
        {"Celu", convertCelu},
        {"HardSigmoid", convertHardSigmoid},
        {"HardSwish", convertHardSwish},
        {"Softplus", convertSoftplus},
        {"Softsign", convertSoftsign},
        {"Mish", convertMish},
        {"Swish", convertSwish},
        {"SwiGLU", convertSwiGLU},
        {"ThresholdedRelu", convertThresholdedRelu},
        {"Gelu", convertGelu},
        {"Softmax", convertSoftmax<SoftmaxOp>},
        {"LogSoftmax", convertSoftmax<LogSoftmaxOp>},
        {"Hardmax", convertHardmax},
        // Products.
        {"MatMul", convertMatMul},
        {"Gemm", convertGemm},
        {"Einsum", convertEinsum},
        {"Gather", convertGather},
        {"GatherElements", convertGatherElements},
        {"GatherND", convertGatherND},
        {"Scatter", convertScatterElements},
        {"ScatterElements", convertScatterElements},
        {"ScatterND", convertScatterND},
        {"TopK", convertTopK},
        {"CumSum", convertCumulative<CumsumOp>},
        {"CumProd", convertCumulative<CumprodOp>},
        {"CenterCropPad", convertCenterCropPad},
        {"BitCast", convertBitCast},
        {"Col2Im", convertCol2Im},
        // Reductions.
        {"ReduceSum", convertReduce<ReduceKind::Sum>},
        {"ReduceMean", convertReduce<ReduceKind::Mean>},
        {"ReduceMax", convertReduce<ReduceKind::Max>},
        {"ReduceMin", convertReduce<ReduceKind::Min>},
        {"ReduceProd", convertReduce<ReduceKind::Prod>},
        {"ReduceL1", convertReduce<ReduceKind::L1>},
        {"ReduceL2", convertReduce<ReduceKind::L2>},
        {"ReduceLogSum", convertReduce<ReduceKind::LogSum>},
        {"ReduceLogSumExp", convertReduce<ReduceKind::LogSumExp>},
        {"ReduceSumSquare", convertReduce<ReduceKind::SumSquare>},
        {"ArgMax", convertArg<true>},
        {"ArgMin", convertArg<false>},
        // Shapes.
        {"Reshape", convertReshape},
        {"Flatten", convertFlatten},
        {"Squeeze", convertSqueeze},
        {"Unsqueeze", convertUnsqueeze},
        {"Transpose", convertTranspose},
        {"Expand", convertExpand},
        {"Concat", convertConcat},
        {"Split", convertSplit},
        {"Slice", convertSlice},
        {"Tile", convertTile},
        {"DepthToSpace", convertDepthToSpace},
        {"SpaceToDepth", convertDepthToSpace},
        {"Pad", convertPad},
        {"OneHot", convertOneHot},
        {"EyeLike", convertEyeLike},
        {"Trilu", convertTrilu},
        // Normalization and pooling.
        {"LayerNormalization", convertLayerNorm},
        {"RMSNormalization", convertRMSNorm},
        {"RotaryEmbedding", convertRotaryEmbedding},
        {"GroupNormalization", convertGroupNorm},
        {"BatchNormalization", convertBatchNorm},
        {"InstanceNormalization", convertInstanceNorm},
        {"MeanVarianceNormalization", convertMVN},
        {"LpNormalization", convertLpNorm},
        {"GlobalAveragePool", convertGlobalPool<false>},
        {"GlobalMaxPool", convertGlobalPool<true>},
        // Losses.
        {"NegativeLogLikelihoodLoss", convertNLL},
        {"SoftmaxCrossEntropyLoss", convertSoftmaxCrossEntropy},
        {"Shrink", convertShrink},
        {"HannWindow", convertWindow},
        {"HammingWindow", convertWindow},
        {"BlackmanWindow", convertWindow},
        // Evaluated while importing (FoldShapes.cpp).
        {"Constant", convertFoldOnly},
        {"ConstantOfShape", convertConstantOfShape},
        {"Shape", convertFoldOnly},
        {"Size", convertFoldOnly},
        {"Range", convertRange},
    };
    addNNConverters(t);
    addRNNConverters(t);
    addQuantConverters(t);
    addMiscConverters(t);
    addDataDependentConverters(t);
    addSequenceConverters(t);
    addSignalConverters(t);
    addAttentionConverters(t);
    addMLConverters(t);
    addTrainingConverters(t);
    addContribConverters(t);
    return t;
  }();
  return table;
}

} // namespace

Value onnx_import::inWideFloat(NodeImporter &n, Value x,
                               llvm::function_ref<Value(Value)> compute) {
  if (!x)
    return {};
  Type type = elemOf(x);
  if (!type.isF16() && !type.isBF16())
    return compute(x);
  Value y = compute(n.cast(x, n.b.getF32Type()));
  return y ? n.cast(y, type) : Value();
}

Value onnx_import::geluOf(NodeImporter &n, Value x, bool tanhForm) {
  Type type = x ? elemOf(x) : Type();
  if (type && (type.isF16() || type.isBF16()))
    return inWideFloat(n, x,
                       [&](Value wide) { return geluOf(n, wide, tanhForm); });
  Value inner;
  if (!tanhForm) {
    Value s = n.create<MulOp>(x, sc(n, x, M_SQRT1_2));
    if (!s)
      return {};
    inner = n.make<ErfOp>(s);
  } else {
    Value x3 = n.create<MulOp>(n.create<MulOp>(x, x), x);
    if (!x3)
      return {};
    Value t = n.create<AddOp>(x, n.create<MulOp>(x3, sc(n, x, 0.044715)));
    if (!t)
      return {};
    t = n.create<MulOp>(t, sc(n, x, std::sqrt(2.0 / M_PI)));
    if (!t)
      return {};
    inner = n.make<TanhOp>(t);
  }
  if (!inner)
    return {};
  Value onePlus = n.create<AddOp>(inner, sc(n, x, 1));
  Value half = n.create<MulOp>(x, sc(n, x, 0.5));
  if (!onePlus || !half)
    return {};
  return n.create<MulOp>(half, onePlus);
}

Value onnx_import::normalizeOver(NodeImporter &n, Value x,
                                 ArrayRef<int64_t> axes, double eps,
                                 Value *mean, Value *invStd) {
  return normalize(n, x, axes, eps, mean, invStd);
}

Type onnx_import::normComputeType(NodeImporter &n, Type t) {
  return stashType(n, t);
}

Value onnx_import::takeAlong(NodeImporter &n, Value data, Value indices,
                             int64_t axis) {
  return take(n, data, indices, axis);
}

Value onnx_import::sliceAlong(NodeImporter &n, Value x, int64_t axis,
                              int64_t start, int64_t limit) {
  return n.sliceAxis(x, axis, start, limit);
}

Converter onnx_import::lookupConverter(llvm::StringRef opType) {
  return converters().lookup(opType);
}

std::vector<std::string> onnx_import::supportedOpTypes() {
  std::vector<std::string> names;
  for (const auto &entry : converters())
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

Value onnx_import::reverseAlong(NodeImporter &n, Value x, int64_t axis) {
  return reverseAxis(n, x, axis);
}
