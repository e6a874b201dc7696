//===- TideOps.cpp - Tide operations: verifiers, inference, folders ------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;

//===----------------------------------------------------------------------===//
// Per-op facts
//===----------------------------------------------------------------------===//

#include "tide/IR/TideInterfaces.cpp.inc"

/// Appends the facts of `OpT` (ops without facts, such as tide.yield, have
/// none).
template <typename OpT>
static void addOpFacts(std::vector<OpFacts> &facts) {
  if constexpr (OpT::template hasTrait<OpFactsInterface::Trait>())
    facts.push_back(OpFacts{OpT::getOperationName().drop_front(
                                TideDialect::getDialectNamespace().size() + 1),
                            OpT::kElementKind, OpT::kKernelGroup,
                            OpT::kLoweringFamily, OpT::kFlopsPerElement,
                            OpT::getDecompositionFact()});
}

template <typename... Ops>
static std::vector<OpFacts> collectOpFacts() {
  std::vector<OpFacts> facts;
  (addOpFacts<Ops>(facts), ...);
  llvm::sort(facts, [](const OpFacts &a, const OpFacts &b) {
    return a.name < b.name;
  });
  return facts;
}

ArrayRef<OpFacts> mlir::tide::getAllOpFacts() {
  static const std::vector<OpFacts> facts = collectOpFacts<
#define GET_OP_LIST
#include "tide/IR/TideOps.cpp.inc"
      >();
  return facts;
}

const OpFacts *mlir::tide::lookupOpFacts(StringRef name) {
  ArrayRef<OpFacts> facts = getAllOpFacts();
  const OpFacts *it = llvm::lower_bound(
      facts, name, [](const OpFacts &f, StringRef n) { return f.name < n; });
  if (it == facts.end() || it->name != name)
    return nullptr;
  return it;
}

OperandRole mlir::tide::getOperandRole(Operation *op, unsigned index) {
  if (auto facts = dyn_cast<OpFactsInterface>(op))
    return facts.getOperandRole(index);
  return OperandRole::Data;
}

//===----------------------------------------------------------------------===//
// Element kinds
//===----------------------------------------------------------------------===//

StringRef mlir::tide::describeElementKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::Float:
    return "a floating-point element type (f16, bf16, f32 or f64)";
  case ElementKind::Integer:
    return "an integer or boolean element type (i1, i8, i16, i32, i64, ui8, "
           "ui16, ui32 or ui64)";
  case ElementKind::Numeric:
    return "a numeric element type (i8, i16, i32, i64, ui8, ui16, ui32, ui64, "
           "f16, bf16, f32 or f64)";
  case ElementKind::Any:
    return "a Tide element type";
  }
  llvm_unreachable("unknown element kind");
}

bool mlir::tide::isElementKind(Type type, ElementKind kind) {
  switch (kind) {
  case ElementKind::Float:
    return isa<FloatType>(type);
  case ElementKind::Integer:
    return isa<IntegerType>(type);
  case ElementKind::Numeric:
    return isa<FloatType>(type) || (isa<IntegerType>(type) &&
                                    !type.isInteger(1));
  case ElementKind::Any:
    return true;
  }
  llvm_unreachable("unknown element kind");
}

/// What to tell the user to do when `got` is not of `kind`.
static StringRef fixFor(ElementKind kind, Type got) {
  if (kind == ElementKind::Float)
    return "; convert the operand with 'tide.cast' to a floating-point type "
           "first";
  if (kind == ElementKind::Integer)
    return "; compare with 'tide.cmp' or convert with 'tide.cast' first";
  if (kind == ElementKind::Numeric && got.isInteger(1))
    return "; convert the i1 operand with 'tide.cast' first";
  return "";
}

static InFlightDiagnostic emitKindError(Location loc, StringRef name,
                                        ElementKind kind, Type got) {
  return emitError(loc) << "'tide." << name << "' expects "
                        << describeElementKind(kind) << " but got " << got
                        << fixFor(kind, got);
}

LogicalResult mlir::tide::verifyElementKind(Operation *op, Type tensorType,
                                            ElementKind kind) {
  Type element = cast<ShapedType>(tensorType).getElementType();
  if (isElementKind(element, kind))
    return success();
  StringRef name = op->getName().stripDialect();
  return emitKindError(op->getLoc(), name, kind, element);
}

/// Emits the "mixed element types" error: no implicit promotion, ever. Two
/// integers of one width that differ only in signedness (i8 and ui8) say so:
/// the bits are the same, the meaning is not.
static LogicalResult emitMixedTypes(std::optional<Location> loc,
                                    StringRef name, Type a, Type b) {
  auto ia = dyn_cast<IntegerType>(a), ib = dyn_cast<IntegerType>(b);
  StringRef signedness =
      ia && ib && ia.getWidth() == ib.getWidth()
          ? " (signed and unsigned integers do not mix: division, comparison "
            "and widening differ)"
          : "";
  return emitOptionalError(
      loc, "'tide.", name, "' operands have different element types (", a,
      " and ", b, ")", signedness,
      "; Tide never converts implicitly: insert 'tide.cast' on one operand");
}

static std::string shapeString(ArrayRef<int64_t> shape) {
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

//===----------------------------------------------------------------------===//
// Inference helpers
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `value`, or an error at `loc` (the custom
/// parser infers result types before ODS checks operand types).
static RankedTensorType rankedOrError(std::optional<Location> loc,
                                      StringRef name, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    (void)emitOptionalError(loc, "'tide.", name,
                            "' expects ranked tensor operands, got ",
                            value.getType());
  return type;
}

LogicalResult mlir::tide::inferBroadcastResult(
    MLIRContext *ctx, std::optional<Location> loc, StringRef name,
    ValueRange operands, ElementKind kind, bool boolResult,
    SmallVectorImpl<Type> &types) {
  Type element;
  SmallVector<int64_t> shape;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto type = rankedOrError(loc, name, operand);
    if (!type)
      return failure();
    if (i == 0) {
      element = type.getElementType();
      shape.assign(type.getShape().begin(), type.getShape().end());
      continue;
    }
    if (type.getElementType() != element)
      return emitMixedTypes(loc, name, element, type.getElementType());
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, type.getShape(), next))
      return emitOptionalError(
          loc, "'tide.", name, "' operand shapes ", shapeString(shape), " and ",
          shapeString(type.getShape()),
          " do not broadcast: trailing dimensions must be equal or 1; "
          "reshape or broadcast_to one operand");
    shape = std::move(next);
  }
  if (!isElementKind(element, kind)) {
    if (loc)
      emitKindError(*loc, name, kind, element);
    return failure();
  }
  Type resultElement = boolResult ? IntegerType::get(ctx, 1) : element;
  types.push_back(RankedTensorType::get(shape, resultElement));
  return success();
}

/// Checks `axes` against `rank`: in [-rank, rank), no repeats.
static LogicalResult checkAxes(std::optional<Location> loc, StringRef name,
                               ArrayRef<int64_t> axes, int64_t rank) {
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return emitOptionalError(loc, "'tide.", name, "' axis ", axis,
                               " is out of range for a rank-", rank,
                               " tensor; valid axes are [", -rank, ", ", rank,
                               ")");
    int64_t normalized = axis < 0 ? axis + rank : axis;
    if (!seen.insert(normalized).second)
      return emitOptionalError(loc, "'tide.", name, "' axis ", axis,
                               " is listed more than once");
  }
  return success();
}

SmallVector<int64_t> mlir::tide::normalizeAxes(ArrayRef<int64_t> axes,
                                               int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes)
    result.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(result);
  return result;
}

LogicalResult mlir::tide::inferReductionResult(
    MLIRContext *ctx, std::optional<Location> loc, StringRef name, Value input,
    ArrayRef<int64_t> axes, bool keepdims, ElementKind kind, bool indexResult,
    SmallVectorImpl<Type> &types) {
  auto type = rankedOrError(loc, name, input);
  if (!type)
    return failure();
  int64_t rank = type.getRank();
  if (!isElementKind(type.getElementType(), kind)) {
    if (loc)
      emitKindError(*loc, name, kind, type.getElementType());
    return failure();
  }
  if (axes.empty())
    return emitOptionalError(loc, "'tide.", name,
                             "' needs at least one axis in 'axes'");
  if (indexResult && axes.size() != 1)
    return emitOptionalError(loc, "'tide.", name,
                             "' reduces exactly one axis, got ", axes.size());
  if (failed(checkAxes(loc, name, axes, rank)))
    return failure();
  SmallVector<int64_t> normalized = normalizeAxes(axes, rank);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(normalized, d)) {
      if (keepdims)
        shape.push_back(1);
      continue;
    }
    shape.push_back(type.getDimSize(d));
  }
  Type element =
      indexResult ? IntegerType::get(ctx, 64) : type.getElementType();
  types.push_back(RankedTensorType::get(shape, element));
  return success();
}

//===----------------------------------------------------------------------===//
// Custom assembly directive: operand types written once when equal.
//===----------------------------------------------------------------------===//

ParseResult mlir::tide::parseOperandTypes(OpAsmParser &parser, Type &lhs,
                                          Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  rhs = lhs;
  return success();
}

void mlir::tide::printOperandTypes(OpAsmPrinter &printer, Operation *,
                                   Type lhs, Type rhs) {
  printer << lhs;
  if (lhs != rhs)
    printer << ", " << rhs;
}

ParseResult mlir::tide::parseDeviceRef(OpAsmParser &parser,
                                       DeviceAttr &device) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  // The device comes last in the op's syntax: a dialect attribute followed by
  // `: type` would take that type as its own.
  if (parser.parseAttribute(attr))
    return failure();
  device = dyn_cast<DeviceAttr>(attr);
  if (!device)
    return parser.emitError(loc, "expected a device such as "
                                 "#tide.device<cuda:0>, got ")
           << attr;
  return success();
}

void mlir::tide::printDeviceRef(OpAsmPrinter &printer, Operation *,
                                DeviceAttr device) {
  printer.printAttribute(device);
}

//===----------------------------------------------------------------------===//
// Constant folding helpers
//===----------------------------------------------------------------------===//

/// Largest non-splat constant the elementwise folders touch: folding must stay
/// cheap and must not bloat the IR.
static constexpr int64_t kMaxFoldElements = 4096;

static bool foldable(Attribute attr) {
  auto elements = dyn_cast_or_null<DenseElementsAttr>(attr);
  return elements &&
         (elements.isSplat() || elements.getNumElements() <= kMaxFoldElements);
}

/// Applies `fn` in double precision and rounds back to `x`'s semantics.
static APFloat applyInDouble(const APFloat &x, double (*fn)(double)) {
  bool lost;
  APFloat wide = x;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  APFloat result(fn(wide.convertToDouble()));
  result.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return result;
}

template <typename FloatFn, typename IntFn>
static OpFoldResult foldUnary(ArrayRef<Attribute> operands, Type resultType,
                              FloatFn floatFn, IntFn intFn) {
  if (!foldable(operands[0]))
    return {};
  Type element = cast<ShapedType>(resultType).getElementType();
  if (isa<FloatType>(element))
    return constFoldUnaryOpConditional<FloatAttr, APFloat, void>(
        operands, resultType, floatFn);
  return constFoldUnaryOpConditional<IntegerAttr, APInt, void>(
      operands, resultType, intFn);
}

template <typename FloatFn, typename IntFn>
static OpFoldResult foldBinary(ArrayRef<Attribute> operands, Type resultType,
                               FloatFn floatFn, IntFn intFn) {
  if (!foldable(operands[0]) || !foldable(operands[1]))
    return {};
  // Only fold when no broadcasting happens.
  auto lhs = cast<DenseElementsAttr>(operands[0]);
  auto rhs = cast<DenseElementsAttr>(operands[1]);
  if (lhs.getType() != resultType || rhs.getType() != resultType)
    return {};
  Type element = cast<ShapedType>(resultType).getElementType();
  if (isa<FloatType>(element))
    return constFoldBinaryOpConditional<FloatAttr, APFloat, void>(
        operands, resultType, floatFn);
  return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(
      operands, resultType, intFn);
}

using OptFloat = std::optional<APFloat>;
using OptInt = std::optional<APInt>;
static OptFloat noFloat(const APFloat &) { return std::nullopt; }
static OptInt noInt(const APInt &) { return std::nullopt; }

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  llvm::SMLoc loc = parser.getCurrentLocation();
  Attribute value;
  if (parser.parseAttribute(value))
    return failure();
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements)
    return parser.emitError(loc, "expected a dense elements attribute such as "
                                 "dense<1.0> : tensor<4xf32>");
  result.addAttribute(getValueAttrName(result.name), elements);
  result.addTypes(elements.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs(), {getValueAttrName()});
  printer << " ";
  printer.printAttribute(getValue());
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match result type "
           << getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat { return neg(x); },
      [](const APInt &x) -> OptInt { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType().getElementType());
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat { return abs(x); },
      [&](const APInt &x) -> OptInt { return isUnsigned ? x : x.abs(); });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat {
        return applyInDouble(x, [](double v) { return std::exp(v); });
      },
      noInt);
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat {
        return applyInDouble(x, [](double v) { return std::sqrt(v); });
      },
      noInt);
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType().getElementType());
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat {
        if (x.isNaN())
          return x;
        return x.isNegative() ? APFloat::getZero(x.getSemantics()) : x;
      },
      [&](const APInt &x) -> OptInt {
        return !isUnsigned && x.isNegative() ? APInt::getZero(x.getBitWidth())
                                             : x;
      });
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat {
        APFloat r = x;
        r.roundToIntegral(APFloat::rmTowardNegative);
        return r;
      },
      noInt);
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getOperands(), getType(),
      [](const APFloat &x) -> OptFloat {
        APFloat r = x;
        r.roundToIntegral(APFloat::rmTowardPositive);
        return r;
      },
      noInt);
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldUnary(adaptor.getOperands(), getType(), noFloat,
                   [](const APInt &x) -> OptInt { return ~x; });
}

LogicalResult EluOp::verify() {
  return verifyElementKind(getOperation(), getInput().getType(),
                           ElementKind::Float);
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat { return a + b; },
      [](const APInt &a, const APInt &b) -> OptInt { return a + b; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat { return a - b; },
      [](const APInt &a, const APInt &b) -> OptInt { return a - b; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat { return a * b; },
      [](const APInt &a, const APInt &b) -> OptInt { return a * b; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat { return a / b; },
      [&](const APInt &a, const APInt &b) -> OptInt {
        // Division by zero and INT_MIN / -1 are left for run time.
        if (b.isZero())
          return std::nullopt;
        if (isUnsigned)
          return a.udiv(b);
        if (a.isMinSignedValue() && b.isAllOnes())
          return std::nullopt;
        return a.sdiv(b);
      });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat {
        return llvm::maximum(a, b);
      },
      [&](const APInt &a, const APInt &b) -> OptInt {
        return (isUnsigned ? a.uge(b) : a.sge(b)) ? a : b;
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = isUnsignedElement(getType().getElementType());
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> OptFloat {
        return llvm::minimum(a, b);
      },
      [&](const APInt &a, const APInt &b) -> OptInt {
        return (isUnsigned ? a.ule(b) : a.sle(b)) ? a : b;
      });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &, const APFloat &) -> OptFloat { return std::nullopt; },
      [](const APInt &a, const APInt &b) -> OptInt { return a & b; });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &, const APFloat &) -> OptFloat { return std::nullopt; },
      [](const APInt &a, const APInt &b) -> OptInt { return a | b; });
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferBroadcastResult(ctx, loc, "cmp",
                              {adaptor.getLhs(), adaptor.getRhs()},
                              ElementKind::Any, /*boolResult=*/true, types);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto condType = rankedOrError(loc, "select", adaptor.getCond());
  auto trueType = rankedOrError(loc, "select", adaptor.getOnTrue());
  auto falseType = rankedOrError(loc, "select", adaptor.getOnFalse());
  if (!condType || !trueType || !falseType)
    return failure();
  if (trueType.getElementType() != falseType.getElementType())
    return emitMixedTypes(loc, "select", trueType.getElementType(),
                          falseType.getElementType());
  SmallVector<int64_t> shape, next;
  if (!OpTrait::util::getBroadcastedShape(trueType.getShape(),
                                          falseType.getShape(), shape) ||
      !OpTrait::util::getBroadcastedShape(shape, condType.getShape(), next))
    return emitOptionalError(
        loc, "'tide.select' operand shapes ", shapeString(condType.getShape()),
        ", ", shapeString(trueType.getShape()), " and ",
        shapeString(falseType.getShape()), " do not broadcast");
  types.push_back(RankedTensorType::get(next, trueType.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (in.getRank() != out.getRank() ||
      failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError("changes the shape from ")
           << shapeString(in.getShape()) << " to "
           << shapeString(out.getShape())
           << "; 'tide.cast' only converts element types (use "
              "'tide.reshape' to change the shape)";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A to B) : B to A) is not folded: the first cast may lose
  // information (f64 -> f32 -> f64), and Tide never hides a precision change.
  return {};
}

LogicalResult BitcastOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (in.getRank() != out.getRank() ||
      failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError("changes the shape from ")
           << shapeString(in.getShape()) << " to "
           << shapeString(out.getShape())
           << "; 'tide.bitcast' only reinterprets elements";
  unsigned from = in.getElementType().getIntOrFloatBitWidth();
  unsigned to = out.getElementType().getIntOrFloatBitWidth();
  if (from != to)
    return emitOpError("reinterprets ")
           << in.getElementType() << " (" << from << " bits) as "
           << out.getElementType() << " (" << to
           << " bits); the widths must match (use 'tide.cast' to convert "
              "values)";
  return success();
}

OpFoldResult BitcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult TransferOp::fold(FoldAdaptor) {
  // A transfer to the device the value already lives on is a no-op. A value
  // made by a transfer lives at its destination, one made by a placed op on
  // that op's device.
  Operation *producer = getInput().getDefiningOp();
  if (!producer)
    return {};
  DeviceAttr source = isa<TransferOp>(producer)
                          ? cast<TransferOp>(producer).getTo()
                          : getDevice(producer);
  if (source == getTo())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *ctx,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto lhs = rankedOrError(loc, "matmul", adaptor.getLhs());
  auto rhs = rankedOrError(loc, "matmul", adaptor.getRhs());
  if (!lhs || !rhs)
    return failure();
  if (lhs.getElementType() != rhs.getElementType())
    return emitMixedTypes(loc, "matmul", lhs.getElementType(),
                          rhs.getElementType());
  if (!isElementKind(lhs.getElementType(), ElementKind::Numeric)) {
    if (loc)
      emitKindError(*loc, "matmul", ElementKind::Numeric, lhs.getElementType());
    return failure();
  }
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(loc,
                             "'tide.matmul' operands must have rank >= 2, got "
                             "ranks ",
                             lhs.getRank(), " and ", rhs.getRank(),
                             "; reshape a vector to [1, n] or [n, 1]");
  int64_t k1 = lhs.getShape().back();
  int64_t k2 = rhs.getShape()[rhs.getRank() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitOptionalError(
        loc, "'tide.matmul' contraction sizes differ: lhs ",
        shapeString(lhs.getShape()), " has K = ", k1, " but rhs ",
        shapeString(rhs.getShape()), " has K = ", k2);
  SmallVector<int64_t> batch;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape().drop_back(2),
                                          rhs.getShape().drop_back(2), batch))
    return emitOptionalError(
        loc, "'tide.matmul' batch dimensions ",
        shapeString(lhs.getShape().drop_back(2)), " and ",
        shapeString(rhs.getShape().drop_back(2)), " do not broadcast");
  batch.push_back(lhs.getShape()[lhs.getRank() - 2]);
  batch.push_back(rhs.getShape().back());
  types.push_back(RankedTensorType::get(batch, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

/// Checks a `shape` operand (sizes read at run time) of an op whose result
/// has rank `rank`: a static i64 vector with one entry per dimension.
static LogicalResult verifyShapeOperand(Operation *op, Value shape,
                                        int64_t rank, StringRef what) {
  auto type = cast<RankedTensorType>(shape.getType());
  if (type.getRank() != 1 || type.isDynamicDim(0) || type.getDimSize(0) != rank)
    return op->emitOpError("expects ")
           << what << " of " << rank
           << " entries (one per result dimension) as a tensor<" << rank
           << "xi64>, got " << shape.getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("cannot change the element type (")
           << in.getElementType() << " to " << out.getElementType()
           << "); use 'tide.cast'";
  // Element counts overflow-checked (a 2^62 x 4 result wrapped to 0 and
  // matched an empty input before).
  auto count = [](ArrayRef<int64_t> shape) -> std::optional<int64_t> {
    int64_t n = 1;
    for (int64_t d : shape)
      if (llvm::MulOverflow(n, d, n))
        return std::nullopt;
    return n;
  };
  if ((in.hasStaticShape() && !count(in.getShape())) ||
      (out.hasStaticShape() && !count(out.getShape())))
    return emitOpError("has a type of more than 2^63 - 1 elements");
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ")
           << in.getNumElements() << " elements " << shapeString(in.getShape())
           << " into " << out.getNumElements() << " elements "
           << shapeString(out.getShape());
  if (Value shape = getShape())
    return verifyShapeOperand(*this, shape, out.getRank(), "a shape");
  // One dynamic result dimension is the element count over the static ones,
  // which a static 0 leaves open.
  if (out.getNumDynamicDims() == 1 && llvm::is_contained(out.getShape(), 0))
    return emitOpError("cannot infer the dynamic dimension of ")
           << out << " (another dimension is 0); pass the sizes as a shape "
           << "operand";
  // With dynamic dimensions the element counts are checked at run time.
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // With run-time sizes, equal types do not mean equal shapes.
  if (getInput().getType() == getType() &&
      (!getShape() || getType().hasStaticShape()))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> innerPerm = inner.getPerm();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(innerPerm[p]);
    rewriter.modifyOpInPlace(op, [&] {
      op.getInputMutable().assign(inner.getInput());
      op.setPerm(perm);
    });
    return success();
  }
};

/// A reshape whose result has at most one dynamic dimension needs no
/// run-time sizes (that one is the element count over the static sizes),
/// unless a static size is 0.
struct DropReshapeShape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getShape() || op.getType().getNumDynamicDims() > 1 ||
        (op.getType().getNumDynamicDims() == 1 &&
         llvm::is_contained(op.getType().getShape(), 0)))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getShapeMutable().clear(); });
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *ctx) {
  results.add<ComposeReshapes, DropReshapeShape>(ctx);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto type = rankedOrError(loc, "transpose", adaptor.getInput());
  if (!type)
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "'tide.transpose' perm has ", perm.size(),
                             " entries but the input has rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "'tide.transpose' perm ",
                               shapeString(perm),
                               " is not a permutation of [0, ", rank, ")");
    seen[p] = true;
    shape.push_back(type.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (llvm::all_of(llvm::enumerate(perm), [](auto ip) {
        return static_cast<int64_t>(ip.index()) == ip.value();
      }))
    return getInput();
  // Constants: a splat whatever its size; else small ones (exporters
  // transpose the pads of a Pad, which the ONNX importer must know).
  auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  auto type = getType();
  if (!dense || !type.hasStaticShape())
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(type);
  constexpr int64_t kMaxFoldedElements = 4096;
  if (type.getNumElements() > kMaxFoldedElements)
    return {};
  auto values = llvm::to_vector(dense.getValues<Attribute>());
  ArrayRef<int64_t> inShape = dense.getType().getShape();
  int64_t rank = type.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * inShape[d + 1];
  SmallVector<Attribute> result;
  result.reserve(values.size());
  SmallVector<int64_t> index(rank, 0); // of the result
  for (int64_t n = 0, e = type.getNumElements(); n < e; ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += index[d] * inStrides[perm[d]];
    result.push_back(values[offset]);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(type, result);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *ctx) {
  results.add<ComposeTransposes>(ctx);
}

//===----------------------------------------------------------------------===//
// BroadcastToOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("cannot change the element type (")
           << in.getElementType() << " to " << out.getElementType()
           << "); use 'tide.cast'";
  if (in.getRank() > out.getRank())
    return emitOpError("cannot broadcast rank ")
           << in.getRank() << " to the lower rank " << out.getRank();
  int64_t offset = out.getRank() - in.getRank();
  if (getStretchDynamic() && !getShape())
    return emitOpError("with 'stretch_dynamic' needs the 'shape' operand (the "
                       "sizes to stretch to)");
  if (Value shape = getShape()) {
    if (failed(verifyShapeOperand(*this, shape, out.getRank(), "a shape")))
      return failure();
  } else {
    // A dynamic result dimension needs a dynamic input dimension (or the
    // shape operand) to take its size from at run time.
    for (int64_t d = 0; d < out.getRank(); ++d) {
      int64_t i = d - offset;
      if (out.isDynamicDim(d) && (i < 0 || !in.isDynamicDim(i)))
        return emitOpError("result dimension ")
               << d << " is dynamic but the input does not determine it; "
               << "give its size statically or pass the sizes as a shape "
                  "operand";
    }
  }
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t a = in.getDimSize(i), b = out.getDimSize(i + offset);
    if (a == 1 || ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ||
        a == b)
      continue;
    return emitOpError("cannot broadcast ")
           << shapeString(in.getShape()) << " to "
           << shapeString(out.getShape()) << ": dimension " << i << " is " << a
           << ", which is neither 1 nor " << b;
  }
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  // (Stretching, equal types may still stretch a dynamic size of 1.)
  if (getInput().getType() == getType() &&
      (!getStretchDynamic() || getType().hasStaticShape()))
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat() && getType().hasStaticShape())
      return dense.resizeSplat(getType());
  return {};
}

namespace {
/// A broadcast_to whose dynamic result dimensions all line up with dynamic
/// input dimensions reads its sizes from the input: the shape operand goes.
struct DropBroadcastShape : OpRewritePattern<BroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getShape() || op.getStretchDynamic())
      return failure();
    auto in = op.getInput().getType();
    auto out = op.getType();
    int64_t offset = out.getRank() - in.getRank();
    for (int64_t d = 0; d < out.getRank(); ++d)
      if (out.isDynamicDim(d) && (d < offset || !in.isDynamicDim(d - offset)))
        return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getShapeMutable().clear(); });
    return success();
  }
};
} // namespace

void BroadcastToOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *ctx) {
  results.add<DropBroadcastShape>(ctx);
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "'tide.concat' needs at least one input");
  for (Value input : inputs)
    if (!rankedOrError(loc, "concat", input))
      return failure();
  auto first = cast<RankedTensorType>(inputs.front().getType());
  int64_t rank = first.getRank();
  int64_t axis = adaptor.getAxis();
  if (rank == 0)
    return emitOptionalError(loc, "'tide.concat' cannot join rank-0 tensors");
  if (failed(checkAxes(loc, "concat", {axis}, rank)))
    return failure();
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(first.getShape());
  for (Value input : inputs.drop_front()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != first.getElementType())
      return emitMixedTypes(loc, "concat", first.getElementType(),
                            type.getElementType());
    if (type.getRank() != rank)
      return emitOptionalError(loc, "'tide.concat' inputs must have the same "
                                    "rank, got ",
                               rank, " and ", type.getRank());
    for (int64_t d = 0; d < rank; ++d) {
      int64_t a = shape[d], b = type.getDimSize(d);
      if (d == axis) {
        shape[d] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
                       ? ShapedType::kDynamic
                       : a + b;
        continue;
      }
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOptionalError(
            loc, "'tide.concat' inputs ", shapeString(first.getShape()),
            " and ", shapeString(type.getShape()), " differ in dimension ", d,
            ", which is not the concatenation axis ", axis);
      if (ShapedType::isDynamic(a))
        shape[d] = b;
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto type = rankedOrError(loc, "slice", adaptor.getInput());
  if (!type)
    return failure();
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    strides = adaptor.getStrides();
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(strides.size()) != rank)
    return emitOptionalError(loc, "'tide.slice' start, limit and strides need "
                                  "one entry per dimension (rank ",
                             rank, "), got ", start.size(), ", ", limit.size(),
                             " and ", strides.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    if (strides[d] <= 0)
      return emitOptionalError(loc, "'tide.slice' stride ", strides[d],
                               " in dimension ", d, " must be positive");
    if (start[d] < 0 || start[d] > limit[d])
      return emitOptionalError(loc, "'tide.slice' needs 0 <= start <= limit "
                                    "in dimension ",
                               d, ", got start ", start[d], " and limit ",
                               limit[d]);
    if (!ShapedType::isDynamic(size) && limit[d] > size)
      return emitOptionalError(loc, "'tide.slice' limit ", limit[d],
                               " exceeds the size ", size, " of dimension ",
                               d);
    // (Written so that a stride near INT64_MAX does not overflow.)
    shape.push_back(
        limit[d] == start[d] ? 0 : (limit[d] - start[d] - 1) / strides[d] + 1);
  }
  types.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicSliceOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicSliceOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  int64_t rank = in.getRank();
  if (in.getElementType() != out.getElementType() || out.getRank() != rank)
    return emitOpError("result ")
           << out << " must have the input's rank and element type (" << in
           << ")";
  if (failed(verifyShapeOperand(*this, getStart(), rank, "start bounds")))
    return failure();
  ArrayRef<int64_t> strides = getStrides();
  if (static_cast<int64_t>(strides.size()) != rank)
    return emitOpError("needs one stride per dimension (rank ")
           << rank << "), got " << strides.size();
  for (auto [d, stride] : llvm::enumerate(strides))
    if (stride <= 0)
      return emitOpError("stride ")
             << stride << " in dimension " << d << " must be positive";
  for (int64_t d = 0; d < rank; ++d)
    if (!in.isDynamicDim(d) && !out.isDynamicDim(d) &&
        out.getDimSize(d) > in.getDimSize(d))
      return emitOpError("result dimension ")
             << d << " (" << out.getDimSize(d)
             << ") is larger than the input's (" << in.getDimSize(d) << ")";
  return success();
}

namespace {
/// A dynamic_slice whose bounds are constants is a tide.slice (when that
/// gives the declared type).
struct StaticDynamicSlice : OpRewritePattern<DynamicSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DynamicSliceOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr start, limit;
    if (!matchPattern(op.getStart(), m_Constant(&start)) ||
        !matchPattern(op.getLimit(), m_Constant(&limit)))
      return failure();
    SmallVector<int64_t> starts, limits;
    for (const APInt &v : start.getValues<APInt>())
      starts.push_back(v.getSExtValue());
    for (const APInt &v : limit.getValues<APInt>())
      limits.push_back(v.getSExtValue());
    // tide.slice infers a static result: only that type may be replaced.
    auto in = op.getInput().getType();
    auto out = op.getType();
    ArrayRef<int64_t> strides = op.getStrides();
    for (int64_t d = 0; d < in.getRank(); ++d) {
      limits[d] = std::max(limits[d], starts[d]);
      int64_t size = (limits[d] - starts[d] + strides[d] - 1) / strides[d];
      if (starts[d] < 0 || out.getDimSize(d) != size ||
          (!in.isDynamicDim(d) && limits[d] > in.getDimSize(d)))
        return failure();
    }
    rewriter.replaceOpWithNewOp<SliceOp>(op, op.getInput(), starts, limits,
                                         op.getStrides());
    return success();
  }
};
} // namespace

void DynamicSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *ctx) {
  results.add<StaticDynamicSlice>(ctx);
}

//===----------------------------------------------------------------------===//
// CheckOp
//===----------------------------------------------------------------------===//

LogicalResult CheckOp::verify() {
  auto holds = getHolds().getType();
  if (!holds.hasStaticShape() || holds.getNumElements() != 1)
    return emitOpError("'holds' must have exactly one element (got ")
           << holds << ")";
  return success();
}

OpFoldResult CheckOp::fold(FoldAdaptor adaptor) {
  auto holds = dyn_cast_or_null<DenseElementsAttr>(adaptor.getHolds());
  if (holds && holds.getNumElements() == 1 &&
      (*holds.getValues<APInt>().begin()).getBoolValue())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// DimOp and IotaOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  auto type = rankedOrError(loc, "dim", adaptor.getInput());
  if (!type)
    return failure();
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= type.getRank())
    return emitOptionalError(loc, "'tide.dim' axis ", axis,
                             " is out of range for rank ", type.getRank(),
                             " (it must be in [0, rank))");
  types.push_back(RankedTensorType::get({1}, IntegerType::get(ctx, 64)));
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  int64_t size = getInput().getType().getDimSize(getAxis());
  if (ShapedType::isDynamic(size))
    return {};
  return DenseElementsAttr::get(getType(), ArrayRef<int64_t>{size});
}

LogicalResult IotaOp::verify() {
  auto out = getType();
  if (failed(verifyElementKind(*this, out, ElementKind::Numeric)))
    return failure();
  if (failed(verifyShapeOperand(*this, getShape(), out.getRank(), "a shape")))
    return failure();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= out.getRank())
    return emitOpError("axis ")
           << axis << " is out of range for rank " << out.getRank()
           << " (it must be in [0, rank))";
  return success();
}

OpFoldResult IotaOp::fold(FoldAdaptor) {
  auto type = getType();
  if (!type.hasStaticShape() || type.getNumElements() > kMaxFoldElements)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  int64_t axis = getAxis(), inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  Type element = type.getElementType();
  SmallVector<Attribute> values;
  for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
    int64_t k = (i / inner) % shape[axis];
    if (auto ft = dyn_cast<FloatType>(element))
      values.push_back(FloatAttr::get(ft, static_cast<double>(k)));
    else
      values.push_back(IntegerAttr::get(element, k));
  }
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// Results whose size depends on the data
//===----------------------------------------------------------------------===//

LogicalResult NonZeroOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (out.getRank() != 2 || out.getDimSize(0) != in.getRank() ||
      !out.isDynamicDim(1))
    return emitOpError("result ")
           << out << " must be tensor<" << in.getRank()
           << "x?xi64>: one row per input dimension, one column per non-zero "
              "element (a count known at run time)";
  return success();
}

/// Whether `type` has one element (rank 0, or all sizes 1 where static).
static bool isOneElement(RankedTensorType type) {
  return llvm::all_of(type.getShape(), [](int64_t d) {
    return d == 1 || ShapedType::isDynamic(d);
  });
}

LogicalResult NonMaxSuppressionOp::verify() {
  auto boxes = getBoxes().getType(), scores = getScores().getType();
  if (failed(verifyElementKind(*this, boxes, ElementKind::Float)))
    return failure();
  if (boxes.getRank() != 3 || boxes.getDimSize(2) != 4)
    return emitOpError("boxes ") << boxes << " must be (batch, boxes, 4)";
  if (scores.getRank() != 3 ||
      scores.getElementType() != boxes.getElementType())
    return emitOpError("scores ")
           << scores << " must be (batch, classes, boxes) of the boxes' type "
           << boxes.getElementType();
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  if (!agree(boxes.getDimSize(0), scores.getDimSize(0)) ||
      !agree(boxes.getDimSize(1), scores.getDimSize(2)))
    return emitOpError("boxes ")
           << boxes << " and scores " << scores
           << " disagree on the batch or the number of boxes";
  if (!isOneElement(getMaxOutputBoxesPerClass().getType()))
    return emitOpError("max_output_boxes_per_class must have one element");
  for (Value threshold : {getIouThreshold(), getScoreThreshold()}) {
    if (!threshold)
      continue;
    auto type = cast<RankedTensorType>(threshold.getType());
    if (!isOneElement(type) || type.getElementType() != boxes.getElementType())
      return emitOpError("thresholds must be one-element tensors of ")
             << boxes.getElementType() << ", got " << type;
  }
  auto out = getType();
  if (out.getRank() != 2 || !out.isDynamicDim(0) || out.getDimSize(1) != 3)
    return emitOpError("result ") << out << " must be tensor<?x3xi64>";
  return success();
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::verify() {
  auto in = getInput().getType();
  if (failed(verifyElementKind(*this, in, ElementKind::Numeric)))
    return failure();
  int64_t rank = in.getRank();
  if (rank == 0)
    return emitOpError("needs an input of rank 1 or more, got ") << in;
  if (failed(checkAxes(getLoc(), "top_k", {static_cast<int64_t>(getAxis())},
                       rank)))
    return failure();
  if (!isOneElement(getK().getType()))
    return emitOpError("k must be a one-element i64 tensor, got ")
           << getK().getType();
  auto out = getType();
  int64_t axis = getNormalizedAxis();
  bool shapeOk = out.getRank() == rank;
  for (int64_t d = 0; shapeOk && d < rank; ++d)
    shapeOk = d == axis || in.isDynamicDim(d) || out.isDynamicDim(d) ||
              in.getDimSize(d) == out.getDimSize(d);
  if (!shapeOk)
    return emitOpError("result ")
           << out << " must have the shape of the input " << in
           << " but along axis " << axis << " (k there)";
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

template <typename OpTy>
static LogicalResult verifySoftmax(OpTy op) {
  if (failed(verifyElementKind(op, op.getInput().getType(),
                               ElementKind::Float)))
    return failure();
  return checkAxes(op.getLoc(), op->getName().stripDialect(), {static_cast<int64_t>(op.getAxis())},
                   op.getInput().getType().getRank());
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto input = rankedOrError(loc, "gather", adaptor.getInput());
  auto indices = rankedOrError(loc, "gather", adaptor.getIndices());
  if (!input || !indices)
    return failure();
  Type index = indices.getElementType();
  if (!index.isSignlessInteger(32) && !index.isSignlessInteger(64))
    return emitOptionalError(loc,
                             "'tide.gather' indices must be i32 or i64, got ",
                             index, "; convert them with 'tide.cast' first");
  int64_t rank = input.getRank();
  if (rank == 0)
    return emitOptionalError(loc, "'tide.gather' needs an input of rank 1 or "
                                  "more, got a rank-0 tensor");
  if (indices.getRank() != rank)
    return emitOptionalError(
        loc, "'tide.gather' indices must have the rank of the input (", rank,
        "), got rank ", indices.getRank());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxes(loc, "gather", {axis}, rank)))
    return failure();
  if (axis < 0)
    axis += rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = input.getDimSize(d), want = indices.getDimSize(d);
    if (d != axis && !ShapedType::isDynamic(have) &&
        !ShapedType::isDynamic(want) && want > have)
      return emitOptionalError(loc, "'tide.gather' indices have size ", want,
                               " in dimension ", d,
                               ", larger than the input's ", have,
                               "; only the gathered axis may be larger");
  }
  types.push_back(indices.clone(input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto data = rankedOrError(loc, "scatter", adaptor.getData());
  auto indices = rankedOrError(loc, "scatter", adaptor.getIndices());
  auto updates = rankedOrError(loc, "scatter", adaptor.getUpdates());
  if (!data || !indices || !updates)
    return failure();
  Type index = indices.getElementType();
  if (!index.isSignlessInteger(32) && !index.isSignlessInteger(64))
    return emitOptionalError(loc,
                             "'tide.scatter' indices must be i32 or i64, got ",
                             index, "; convert them with 'tide.cast' first");
  if (updates.getElementType() != data.getElementType())
    return emitOptionalError(loc, "'tide.scatter' updates have element type ",
                             updates.getElementType(), " but data has ",
                             data.getElementType());
  // The default is not filled in yet while parsing.
  ScatterReduction reduction = ScatterReduction::None;
  if (auto attr = adaptor.getReductionAttr())
    reduction = attr.getValue();
  if (data.getElementType().isInteger(1) &&
      (reduction == ScatterReduction::Add ||
       reduction == ScatterReduction::Mul))
    return emitOptionalError(loc, "'tide.scatter' reduction '",
                             stringifyScatterReduction(reduction),
                             "' needs a numeric element type, got i1");
  int64_t rank = data.getRank();
  if (rank == 0)
    return emitOptionalError(loc, "'tide.scatter' needs data of rank 1 or "
                                  "more, got a rank-0 tensor");
  if (indices.getRank() != rank || updates.getRank() != rank)
    return emitOptionalError(
        loc,
        "'tide.scatter' indices and updates must have the rank of the "
        "data (",
        rank, "), got ranks ", indices.getRank(), " and ", updates.getRank());
  int64_t axis = adaptor.getAxis();
  if (failed(checkAxes(loc, "scatter", {axis}, rank)))
    return failure();
  if (axis < 0)
    axis += rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t have = data.getDimSize(d), want = indices.getDimSize(d),
            upd = updates.getDimSize(d);
    if (!ShapedType::isDynamic(want) && !ShapedType::isDynamic(upd) &&
        want != upd)
      return emitOptionalError(loc,
                               "'tide.scatter' indices and updates "
                               "differ in dimension ",
                               d, " (", want, " and ", upd,
                               "); they must have one shape");
    if (d != axis && !ShapedType::isDynamic(have) &&
        !ShapedType::isDynamic(want) && want > have)
      return emitOptionalError(loc, "'tide.scatter' indices have size ", want,
                               " in dimension ", d, ", larger than the data's ",
                               have, "; only the scatter axis may differ");
  }
  types.push_back(data);
  return success();
}

//===----------------------------------------------------------------------===//
// Cumsum, Cumprod
//===----------------------------------------------------------------------===//

/// cumsum and cumprod: a numeric input of rank 1 or more, an axis in range.
template <typename OpTy>
static LogicalResult verifyCumulative(OpTy op, StringRef name) {
  auto type = op.getInput().getType();
  if (failed(verifyElementKind(op.getOperation(), type, ElementKind::Numeric)))
    return failure();
  if (type.getRank() == 0)
    return op.emitOpError(
        "needs an input of rank 1 or more, got a rank-0 tensor");
  return checkAxes(op.getLoc(), name, {static_cast<int64_t>(op.getAxis())},
                   type.getRank());
}

LogicalResult CumsumOp::verify() { return verifyCumulative(*this, "cumsum"); }

LogicalResult CumprodOp::verify() { return verifyCumulative(*this, "cumprod"); }

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

int64_t mlir::tide::getWindowOutputSize(int64_t size, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        int64_t padBegin, int64_t padEnd,
                                        bool ceilMode) {
  if (ShapedType::isDynamic(size))
    return ShapedType::kDynamic;
  int64_t span = size + padBegin + padEnd - (dilation * (kernel - 1) + 1);
  int64_t out = (ceilMode ? llvm::divideCeil(span, stride) : span / stride) + 1;
  // A last window starting in the end padding would read no input.
  if (ceilMode && (out - 1) * stride >= size + padBegin)
    --out;
  return out;
}

static std::string listString(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(values, os);
  os << "]";
  return s;
}

/// Checks the window attributes of a conv or pool named `name` over `input`
/// with window sizes `kernel` (one per spatial dimension) and appends the
/// result's spatial sizes to `shape`.
static LogicalResult
inferWindow(std::optional<Location> loc, StringRef name, RankedTensorType input,
            ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
            ArrayRef<int64_t> dilations, ArrayRef<int64_t> pads, bool ceilMode,
            SmallVectorImpl<int64_t> &shape) {
  int64_t k = input.getRank() - 2;
  auto count = [&](StringRef what, ArrayRef<int64_t> values,
                   int64_t want) -> LogicalResult {
    if (static_cast<int64_t>(values.size()) == want)
      return success();
    return emitOptionalError(loc, "'tide.", name, "' needs ", want, " ", what,
                             " for an input with ", k,
                             " spatial dimensions, got ", values.size());
  };
  if (failed(count("kernel sizes", kernel, k)) ||
      failed(count("strides (one per spatial dimension)", strides, k)) ||
      failed(count("dilations (one per spatial dimension)", dilations, k)) ||
      failed(count("pads (the begin of each spatial dimension, then the end)",
                   pads, 2 * k)))
    return failure();
  if (llvm::any_of(
          kernel, [](int64_t v) { return !ShapedType::isDynamic(v) && v < 1; }))
    return emitOptionalError(loc, "'tide.", name,
                             "' kernel sizes must be positive, got ",
                             listString(kernel));
  if (llvm::any_of(strides, [](int64_t v) { return v < 1; }))
    return emitOptionalError(loc, "'tide.", name,
                             "' strides must be positive, got ",
                             listString(strides));
  if (llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return emitOptionalError(loc, "'tide.", name,
                             "' dilations must be positive, got ",
                             listString(dilations));
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return emitOptionalError(loc, "'tide.", name,
                             "' pads must be non-negative, got ",
                             listString(pads));
  for (int64_t i = 0; i < k; ++i) {
    int64_t size = input.getDimSize(i + 2);
    // (A conv's weight may have run-time sizes: the window fits, checked
    // when it runs.)
    if (ShapedType::isDynamic(kernel[i])) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // (In overflow-checked arithmetic: a dilation of INT64_MAX made the
    // window a garbage size before.)
    int64_t extent, padded = 0;
    if (llvm::MulOverflow(dilations[i], kernel[i] - 1, extent) ||
        llvm::AddOverflow(extent, int64_t(1), extent) ||
        llvm::AddOverflow(pads[i], pads[k + i], padded) ||
        (!ShapedType::isDynamic(size) &&
         llvm::AddOverflow(padded, size, padded)))
      return emitOptionalError(loc, "'tide.", name,
                               "' window or padding is too large (its size "
                               "overflows 64 bits) in spatial dimension ",
                               i);
    if (!ShapedType::isDynamic(size) && padded < extent)
      return emitOptionalError(
          loc, "'tide.", name, "' window of ", extent, " elements (kernel ",
          kernel[i], ", dilation ", dilations[i],
          ") is larger than the padded input (", size, " + ", pads[i], " + ",
          pads[k + i], ") in spatial dimension ", i);
    shape.push_back(getWindowOutputSize(size, kernel[i], strides[i],
                                        dilations[i], pads[i], pads[k + i],
                                        ceilMode));
  }
  return success();
}

/// `type` with its last dimension moved to position 1 (NHWC -> NCHW order,
/// and (F, K..., C) -> (F, C, K...) for channels-last weights).
static RankedTensorType channelsFirst(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  int64_t last = shape.back();
  shape.pop_back();
  shape.insert(shape.begin() + 1, last);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The inverse of channelsFirst: dimension 1 moved to the end.
static RankedTensorType channelsLast(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  int64_t channels = shape[1];
  shape.erase(shape.begin() + 1);
  shape.push_back(channels);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The input of a conv or pool: ranked, of `kind`, with a spatial dimension,
/// returned in (N, C, spatial...) order (a channels-last input permuted).
static RankedTensorType windowInput(std::optional<Location> loc, StringRef name,
                                    Value value, ElementKind kind,
                                    bool lastChannels = false) {
  auto type = rankedOrError(loc, name, value);
  if (!type)
    return {};
  if (!isElementKind(type.getElementType(), kind)) {
    if (loc)
      emitKindError(*loc, name, kind, type.getElementType());
    return {};
  }
  if (type.getRank() < 3) {
    (void)emitOptionalError(loc, "'tide.", name,
                            lastChannels
                                ? "' needs an input of rank 3 or more (N, at "
                                  "least one spatial dimension and C), got "
                                : "' needs an input of rank 3 or more (N, C "
                                  "and at least one spatial dimension), got ",
                            type);
    return {};
  }
  return lastChannels ? channelsFirst(type) : type;
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  // A channels-last conv is checked and sized as the NCHW conv of its
  // operands permuted to NCHW order; the result is permuted back.
  bool last = static_cast<bool>(adaptor.getChannelsLastAttr());
  auto input =
      windowInput(loc, "conv", adaptor.getInput(), ElementKind::Float, last);
  auto given = rankedOrError(loc, "conv", adaptor.getWeight());
  if (!input || !given)
    return failure();
  if (given.getElementType() != input.getElementType())
    return emitMixedTypes(loc, "conv", input.getElementType(),
                          given.getElementType());
  int64_t rank = input.getRank();
  if (given.getRank() != rank)
    return emitOptionalError(
        loc, "'tide.conv' weight must have the input's rank (", rank,
        last ? ": F, one size per spatial dimension and C / groups), got "
             : ": F, C / groups and one size per spatial dimension), got ",
        given);
  auto weight = last ? channelsFirst(given) : given;
  // The default is not filled in yet while parsing.
  IntegerAttr groupsAttr = adaptor.getGroupsAttr();
  int64_t groups = groupsAttr ? groupsAttr.getInt() : 1;
  if (groups < 1)
    return emitOptionalError(loc, "'tide.conv' groups must be positive, got ",
                             groups);
  // A weight of run-time sizes (checked against the input when the
  // convolution runs): ungrouped, channels first.
  if (!given.hasStaticShape() && (groups != 1 || last))
    return emitOptionalError(loc,
                             "'tide.conv' with groups or channels last needs "
                             "a weight of static shape, got ",
                             given);
  int64_t channels = input.getDimSize(1), filters = weight.getDimSize(0),
          perGroup = weight.getDimSize(1);
  if (!ShapedType::isDynamic(channels) && !ShapedType::isDynamic(perGroup)) {
    if (channels % groups != 0)
      return emitOptionalError(loc, "'tide.conv' input channels (", channels,
                               ") are not a multiple of groups (", groups, ")");
    if (perGroup * groups != channels)
      return emitOptionalError(loc, "'tide.conv' weight has ", perGroup,
                               " input channels per group, but the input's ",
                               channels, " channels in ", groups,
                               " groups make ", channels / groups);
  } else if (groups != 1 && ShapedType::isDynamic(channels)) {
    return emitOptionalError(loc,
                             "'tide.conv' with groups needs a static "
                             "number of input channels, got ",
                             input);
  }
  if (!ShapedType::isDynamic(filters) && filters % groups != 0)
    return emitOptionalError(loc, "'tide.conv' output channels (", filters,
                             ") are not a multiple of groups (", groups, ")");
  SmallVector<int64_t> shape = {input.getDimSize(0), filters};
  if (failed(inferWindow(loc, "conv", input, weight.getShape().drop_front(2),
                         adaptor.getStrides(), adaptor.getDilations(),
                         adaptor.getPads(), /*ceilMode=*/false, shape)))
    return failure();
  auto result = RankedTensorType::get(shape, input.getElementType());
  types.push_back(last ? channelsLast(result) : result);
  return success();
}

template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, StringRef name,
                               ElementKind kind, Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  // A channels-last pool is checked and sized as the NCHW pool of its input
  // permuted to NCHW order; the result is permuted back.
  bool last = static_cast<bool>(adaptor.getChannelsLastAttr());
  auto input = windowInput(loc, name, adaptor.getInput(), kind, last);
  if (!input)
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1)};
  if (failed(inferWindow(loc, name, input, adaptor.getKernel(),
                         adaptor.getStrides(), adaptor.getDilations(),
                         adaptor.getPads(), adaptor.getCeilMode(), shape)))
    return failure();
  auto result = RankedTensorType::get(shape, input.getElementType());
  types.push_back(last ? channelsLast(result) : result);
  return success();
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, "max_pool", ElementKind::Numeric, adaptor, types);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, "avg_pool", ElementKind::Float, adaptor, types);
}

LogicalResult SoftmaxOp::verify() { return verifySoftmax(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmax(*this); }

//===----------------------------------------------------------------------===//
// Scan
//===----------------------------------------------------------------------===//

/// The length of a scan's sequences: the static leading size of any of them,
/// or dynamic.
static int64_t scanLength(ScanOp op) {
  // A conditional scan stops when its condition does: the stacked outputs
  // have as many steps as ran.
  if (op.getConditional())
    return ShapedType::kDynamic;
  for (Value seq : op.getSequences())
    if (auto type = cast<RankedTensorType>(seq.getType());
        type.getRank() > 0 && !type.isDynamicDim(0))
      return type.getDimSize(0);
  return ShapedType::kDynamic;
}

LogicalResult ScanOp::verify() {
  if (getSequences().empty() && !getConditional())
    return emitOpError("needs at least one sequence (the loop runs over the "
                       "leading axis of its sequences) or `conditional` (a "
                       "loop that runs while its first state is true)");
  if (getConditional()) {
    auto i1 = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
    if (getInits().empty())
      return emitOpError() << "is conditional, so its first state is the "
                              "condition, a "
                           << i1 << "; it has no state";
    if (getInits()[0].getType() != i1)
      return emitOpError() << "is conditional, so its first state is the "
                              "condition, a "
                           << i1 << "; got " << getInits()[0].getType();
    if (getReverse())
      return emitOpError("cannot be both conditional and reverse (a loop "
                         "that may stop early runs forward)");
  }
  int64_t length = ShapedType::kDynamic;
  for (auto [i, seq] : llvm::enumerate(getSequences())) {
    auto type = cast<RankedTensorType>(seq.getType());
    if (type.getRank() == 0)
      return emitOpError() << "sequence " << i
                           << " has rank 0; a sequence has a leading axis to "
                              "loop over";
    if (type.isDynamicDim(0))
      continue;
    if (!ShapedType::isDynamic(length) && length != type.getDimSize(0))
      return emitOpError() << "sequence " << i << " has length "
                           << type.getDimSize(0) << " where an earlier one has "
                           << length << "; all sequences have one length";
    length = type.getDimSize(0);
  }
  if (getNumResults() < getInits().size())
    return emitOpError() << "has " << getNumResults() << " results for "
                         << getInits().size()
                         << " states; the results are the final states, then "
                            "the scan outputs";
  for (auto [i, init] : llvm::enumerate(getInits()))
    if (init.getType() != getResult(i).getType())
      return emitOpError() << "result " << i << " has type "
                           << getResult(i).getType() << " but state " << i
                           << " starts as " << init.getType()
                           << "; a final state has its initial type";
  return success();
}

namespace {
/// Invariants that are constants are copied into the body, and invariants
/// the body does not read are dropped.
struct SimplifyScanInvariants : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBodyBlock();
    unsigned first = 1 + op.getInits().size() + op.getSequences().size();
    SmallVector<Value> kept;
    llvm::BitVector erase(body.getNumArguments());
    bool changed = false;
    for (auto [i, inv] : llvm::enumerate(op.getInvariants())) {
      BlockArgument arg = body.getArgument(first + i);
      Attribute value;
      if (!arg.use_empty() && matchPattern(inv, m_Constant(&value))) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&body);
        Operation *copy = rewriter.clone(*inv.getDefiningOp());
        rewriter.replaceAllUsesWith(arg, copy->getResult(0));
      }
      if (arg.use_empty()) {
        erase.set(first + i);
        changed = true;
        continue;
      }
      kept.push_back(inv);
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      body.eraseArguments(erase);
      op.getInvariantsMutable().assign(kept);
    });
    return success();
  }
};
} // namespace

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *ctx) {
  results.add<SimplifyScanInvariants>(ctx);
}

LogicalResult ScanOp::verifyRegions() {
  Block &body = getBodyBlock();
  size_t numStates = getInits().size(), numSeqs = getSequences().size(),
         numInv = getInvariants().size();
  size_t want = 1 + numStates + numSeqs + numInv;
  if (body.getNumArguments() != want)
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments; expected " << want
                         << " (the position, " << numStates << " states, "
                         << numSeqs << " slices, " << numInv << " invariants)";
  auto position = RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  if (getPositionArg().getType() != position)
    return emitOpError() << "body argument 0 (the position) has type "
                         << getPositionArg().getType() << "; expected "
                         << position;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getInits(), getStateArgs())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError() << "body argument " << 1 + i << " has type "
                           << std::get<1>(pair).getType() << " but state " << i
                           << " has type " << std::get<0>(pair).getType();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getSequences(), getSliceArgs()))) {
    auto seq = cast<RankedTensorType>(std::get<0>(pair).getType());
    auto slice = RankedTensorType::get(seq.getShape().drop_front(),
                                       seq.getElementType());
    if (std::get<1>(pair).getType() != slice)
      return emitOpError() << "body argument " << 1 + numStates + i
                           << " has type " << std::get<1>(pair).getType()
                           << "; the slice of sequence " << i << " has type "
                           << slice;
  }
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInvariants(), getInvariantArgs())))
    if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
      return emitOpError() << "body argument " << 1 + numStates + numSeqs + i
                           << " has type " << std::get<1>(pair).getType()
                           << " but invariant " << i << " has type "
                           << std::get<0>(pair).getType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with tide.yield");
  size_t numOutputs = getNumResults() - numStates;
  if (yield.getValues().size() != numStates + numOutputs)
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values; its scan has "
           << numStates << " states and " << numOutputs << " scan outputs";
  for (auto [i, init] : llvm::enumerate(getInits()))
    if (yield.getValues()[i].getType() != init.getType())
      return yield.emitOpError()
             << "yields " << yield.getValues()[i].getType() << " for state "
             << i << ", which has type " << init.getType();
  int64_t length = scanLength(*this);
  for (size_t k = 0; k < numOutputs; ++k) {
    auto step =
        cast<RankedTensorType>(yield.getValues()[numStates + k].getType());
    SmallVector<int64_t> shape = {length};
    llvm::append_range(shape, step.getShape());
    auto stacked = RankedTensorType::get(shape, step.getElementType());
    if (getResult(numStates + k).getType() != stacked)
      return emitOpError() << "result " << numStates + k << " has type "
                           << getResult(numStates + k).getType()
                           << "; scan output " << k << " stacks " << step
                           << (getConditional()
                                   ? " along the steps that ran: "
                                   : " along the sequence's length: ")
                           << stacked;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  auto i1 = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (getCond().getType() != i1)
    return emitOpError() << "condition must be a " << i1 << "; got "
                         << getCond().getType();
  return success();
}

/// Whether a region yielding `yielded` may give result type `result`: the
/// same element type and rank, and each static size of the result the
/// yielded one's.
static bool yieldFits(RankedTensorType yielded, RankedTensorType result) {
  if (yielded.getElementType() != result.getElementType() ||
      yielded.getRank() != result.getRank())
    return false;
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (!result.isDynamicDim(d) &&
        result.getDimSize(d) != yielded.getDimSize(d))
      return false;
  return true;
}

LogicalResult IfOp::verifyRegions() {
  for (auto [name, region] :
       {std::pair<StringRef, Region *>{"then", &getThenRegion()},
        std::pair<StringRef, Region *>{"else", &getElseRegion()}}) {
    Block &block = region->front();
    if (block.getNumArguments() != getInvariants().size())
      return emitOpError() << "'" << name << "' region has "
                           << block.getNumArguments() << " arguments; expected "
                           << getInvariants().size() << " (the invariants)";
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(getInvariants(), block.getArguments())))
      if (std::get<0>(pair).getType() != std::get<1>(pair).getType())
        return emitOpError()
               << "'" << name << "' region argument " << i << " has type "
               << std::get<1>(pair).getType() << " but invariant " << i
               << " has type " << std::get<0>(pair).getType();
    auto yield = dyn_cast<YieldOp>(block.back());
    if (!yield)
      return emitOpError() << "'" << name
                           << "' region must end with tide.yield";
    if (yield.getValues().size() != getNumResults())
      return yield.emitOpError()
             << "yields " << yield.getValues().size() << " values; its "
             << "tide.if has " << getNumResults() << " results";
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(yield.getValues(), getResults()))) {
      auto yielded = cast<RankedTensorType>(std::get<0>(pair).getType());
      auto result = cast<RankedTensorType>(std::get<1>(pair).getType());
      if (!yieldFits(yielded, result))
        return yield.emitOpError()
               << "yields " << yielded << " for result " << i << " of type "
               << result
               << "; a result has the element type and rank of what each "
                  "region yields, and only sizes both yield equal and static "
                  "may be static";
    }
  }
  return success();
}

namespace {
/// A tide.if whose condition is a constant is the region it takes, inlined
/// (where that region yields the result types).
struct FoldConstantIf : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr cond;
    if (!matchPattern(op.getCond(), m_Constant(&cond)))
      return failure();
    Block &block =
        cond.getSplatValue<bool>() ? op.getThenBlock() : op.getElseBlock();
    auto yield = cast<YieldOp>(block.getTerminator());
    if (yield.getValues().getTypes() != op.getResultTypes())
      return failure();
    IRMapping map;
    map.map(block.getArguments(), op.getInvariants());
    for (Operation &inner : block.without_terminator())
      rewriter.clone(inner, map);
    SmallVector<Value> results;
    for (Value v : yield.getValues())
      results.push_back(map.lookupOrDefault(v));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Invariants that are constants are copied into both regions, and
/// invariants neither region reads are dropped.
struct SimplifyIfInvariants : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    Block *blocks[] = {&op.getThenBlock(), &op.getElseBlock()};
    SmallVector<Value> kept;
    llvm::BitVector erase(op.getInvariants().size());
    bool changed = false;
    for (auto [i, inv] : llvm::enumerate(op.getInvariants())) {
      Attribute value;
      bool constant = matchPattern(inv, m_Constant(&value));
      bool used = false;
      for (Block *block : blocks) {
        BlockArgument arg = block->getArgument(i);
        if (constant && !arg.use_empty()) {
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(block);
          Operation *copy = rewriter.clone(*inv.getDefiningOp());
          rewriter.replaceAllUsesWith(arg, copy->getResult(0));
        }
        used |= !arg.use_empty();
      }
      if (!used) {
        erase.set(i);
        changed = true;
        continue;
      }
      kept.push_back(inv);
    }
    if (!changed)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      for (Block *block : blocks)
        block->eraseArguments(erase);
      op.getInvariantsMutable().assign(kept);
    });
    return success();
  }
};
} // namespace

void IfOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                       MLIRContext *ctx) {
  results.add<FoldConstantIf, SimplifyIfInvariants>(ctx);
}

#define GET_OP_CLASSES
#include "tide/IR/TideOps.cpp.inc"
