//===- SymbolicShapes.cpp - Shapes computed at run time -------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Exporters compute shapes from Shape: Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape, Range(0, Shape(x)[0]), Expand(mask, [B, 1, S, S]).
// FoldShapes.cpp evaluates such subgraphs when every size is static. With a
// symbolic dimension (a batch of any size) they are evaluated here element
// by element, as SymDims: a constant, the size of a dynamic dimension
// (canonical, so two equal sizes compare equal), or an expression computed
// at run time by tide ops on one-element tensors. Static elements stay
// static; the ops that consume the result (Reshape, Expand,
// ConstantOfShape, Range, Slice, in ConvertOps.cpp) get result types as
// static as the elements allow, and take the rest as a shape operand: a
// tide.concat of tide.dim, constants and expressions, which the lowering
// turns into tensor.dim and integer arithmetic on the host.
//
// This is onnx-mlir's approach (Shape rewritten into Dim and Concat, shape
// helpers reading dimensions through Concat/Dim/Cast) and torch-mlir's
// (scalarized shape lists of aten.size values), done while importing, where
// the ONNX graph still says which values are shapes.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

/// Shape values longer than this are not tracked element by element.
static constexpr int64_t kMaxShapeElements = 64;

static IntegerType i64Type(MLIRContext *ctx) {
  return IntegerType::get(ctx, 64);
}

/// Whether `type` can be a shape value: an integer or bool tensor of rank 0
/// or 1 with a static, small size.
static bool isShapeType(RankedTensorType type) {
  return type && type.getRank() <= 1 && type.hasStaticShape() &&
         type.getNumElements() <= kMaxShapeElements &&
         isa<IntegerType>(type.getElementType());
}

//===----------------------------------------------------------------------===//
// Canonical dimensions
//===----------------------------------------------------------------------===//

/// Where element `index` of the shape operand `shape` comes from, if it is a
/// dynamic dimension (the importer builds shape operands as tide.concat of
/// tide.dim and constants).
static std::optional<std::pair<Value, int64_t>>
shapeEntrySource(Value shape, int64_t index) {
  for (int depth = 0; depth < 16; ++depth) {
    Operation *op = shape.getDefiningOp();
    if (auto dim = dyn_cast_or_null<DimOp>(op)) {
      if (index != 0)
        return std::nullopt;
      return std::make_pair(dim.getInput(),
                            static_cast<int64_t>(dim.getAxis()));
    }
    auto concat = dyn_cast_or_null<ConcatOp>(op);
    if (!concat || concat.getType().getRank() != 1)
      return std::nullopt;
    Value next;
    for (Value input : concat.getInputs()) {
      int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(0);
      if (ShapedType::isDynamic(size))
        return std::nullopt;
      if (index < size) {
        next = input;
        break;
      }
      index -= size;
    }
    if (!next)
      return std::nullopt;
    shape = next;
  }
  return std::nullopt;
}

using DimAliases =
    llvm::DenseMap<std::pair<Value, int64_t>, std::pair<Value, int64_t>>;

/// GraphImporter::rootOf; `nesting` bounds the nested searches (a slice's
/// limit compared with its input's size).
static std::pair<Value, int64_t> findRoot(const DimAliases &dimAliases, Value v,
                                          int64_t axis, int nesting) {
  auto rootOf = [&](Value w, int64_t a) {
    return nesting < 4 ? findRoot(dimAliases, w, a, nesting + 1)
                       : std::make_pair(w, a);
  };
  for (int depth = 0; depth < 512; ++depth) {
    if (isa<BlockArgument>(v)) {
      auto alias = dimAliases.find({v, axis});
      if (alias != dimAliases.end())
        return alias->second;
      return {v, axis};
    }
    Operation *op = v.getDefiningOp();
    auto type = cast<RankedTensorType>(v.getType());
    int64_t rank = type.getRank();
    // The operand whose dimension lines up with `axis` (NumPy's trailing
    // alignment) and is dynamic: tide assumes a dynamic dimension has the
    // size of the one it broadcasts with.
    auto alignedDynamic = [&](ValueRange operands) -> std::optional<int64_t> {
      for (auto [k, operand] : llvm::enumerate(operands)) {
        auto t = dyn_cast<RankedTensorType>(operand.getType());
        if (!t)
          continue;
        int64_t i = axis - (rank - t.getRank());
        if (i >= 0 && t.isDynamicDim(i)) {
          v = operand;
          axis = i;
          return k;
        }
      }
      return std::nullopt;
    };
    auto facts = dyn_cast_or_null<OpFactsInterface>(op);
    if (!facts)
      return {v, axis};
    auto fromShapeOperand = [&](Value shape) -> bool {
      if (!shape)
        return false;
      auto source = shapeEntrySource(shape, axis);
      if (!source)
        return false;
      v = source->first;
      axis = source->second;
      return true;
    };
    bool moved = false;
    switch (facts.getLoweringFamily()) {
    case LoweringFamily::Unary:
    case LoweringFamily::Binary:
    case LoweringFamily::Compare:
    case LoweringFamily::Select:
    case LoweringFamily::Cast:
    case LoweringFamily::Cumsum:
    case LoweringFamily::Softmax:
    case LoweringFamily::Transfer:
      moved = alignedDynamic(op->getOperands()).has_value();
      break;
    case LoweringFamily::Broadcast: {
      auto broadcast = cast<BroadcastToOp>(op);
      // With stretch_dynamic an input size of 1 at run time is stretched:
      // the result's size is the shape operand's, not the input's (found by
      // the random graphs: a Tile of an Equal whose run-time size 1 was
      // stretched took the 1).
      if (broadcast.getStretchDynamic()) {
        moved = fromShapeOperand(broadcast.getShape());
        break;
      }
      moved = alignedDynamic(broadcast.getInput()).has_value() ||
              fromShapeOperand(broadcast.getShape());
      break;
    }
    case LoweringFamily::Reshape: {
      auto reshape = cast<ReshapeOp>(op);
      if (fromShapeOperand(reshape.getShape())) {
        moved = true;
        break;
      }
      // One dynamic dimension on both sides and the same static sizes
      // otherwise: the two dynamic sizes are equal.
      auto in = reshape.getInput().getType();
      // None past int64 (tide-fuzz-onnx: static sizes of 2^61 and 64).
      auto staticProduct = [](RankedTensorType t) -> std::optional<int64_t> {
        int64_t p = 1;
        for (int64_t d : t.getShape())
          if (!ShapedType::isDynamic(d) && __builtin_mul_overflow(p, d, &p))
            return std::nullopt;
        return p;
      };
      std::optional<int64_t> inProduct = staticProduct(in);
      if (!reshape.getShape() && in.getNumDynamicDims() == 1 &&
          type.getNumDynamicDims() == 1 && inProduct &&
          inProduct == staticProduct(type)) {
        for (int64_t d = 0; d < in.getRank(); ++d)
          if (in.isDynamicDim(d)) {
            v = reshape.getInput();
            axis = d;
            moved = true;
          }
      }
      break;
    }
    case LoweringFamily::Check:
      // The input passes on unchanged.
      v = cast<CheckOp>(op).getInput();
      moved = true;
      break;
    case LoweringFamily::Iota:
      moved = fromShapeOperand(cast<IotaOp>(op).getShape());
      break;
    case LoweringFamily::Transpose: {
      auto transpose = cast<TransposeOp>(op);
      axis = transpose.getPerm()[axis];
      v = transpose.getInput();
      moved = true;
      break;
    }
    case LoweringFamily::Matmul: {
      auto matmul = cast<MatmulOp>(op);
      if (axis == rank - 1) {
        v = matmul.getRhs();
        axis = cast<RankedTensorType>(v.getType()).getRank() - 1;
        moved = true;
      } else if (axis == rank - 2) {
        v = matmul.getLhs();
        axis = cast<RankedTensorType>(v.getType()).getRank() - 2;
        moved = true;
      } else {
        // Batch dimensions, aligned without the matrix dimensions.
        for (Value operand : {matmul.getLhs(), matmul.getRhs()}) {
          auto t = cast<RankedTensorType>(operand.getType());
          int64_t i = axis - (rank - t.getRank());
          if (i >= 0 && i < t.getRank() - 2 && t.isDynamicDim(i)) {
            v = operand;
            axis = i;
            moved = true;
            break;
          }
        }
      }
      break;
    }
    case LoweringFamily::Reduction:
    case LoweringFamily::ArgReduction: {
      Value input = op->getOperand(0);
      auto axesAttr = op->getAttrOfType<DenseI64ArrayAttr>("axes");
      if (!axesAttr)
        break;
      auto in = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> axes =
          normalizeAxes(axesAttr.asArrayRef(), in.getRank());
      bool keepdims = op->hasAttr("keepdims");
      int64_t k = 0;
      for (int64_t d = 0; d < in.getRank(); ++d) {
        bool reduced = llvm::is_contained(axes, d);
        if (reduced && !keepdims)
          continue;
        if (k++ == axis) {
          if (!reduced) {
            v = input;
            axis = d;
            moved = true;
          }
          break;
        }
      }
      break;
    }
    case LoweringFamily::Concat: {
      auto concat = cast<ConcatOp>(op);
      // (getAxis() is unsigned: a negative axis must be made signed first.)
      int64_t a = static_cast<int64_t>(concat.getAxis());
      if (a < 0)
        a += rank;
      if (axis != a)
        moved = alignedDynamic(concat.getInputs()).has_value();
      break;
    }
    case LoweringFamily::Gather:
      moved = alignedDynamic(cast<GatherOp>(op).getIndices()).has_value();
      break;
    case LoweringFamily::Conv:
    case LoweringFamily::Pool:
      // The batch is the input's (dimension 0 in either layout); a conv's
      // output channels are the weight's filters.
      if (axis == 0 &&
          cast<RankedTensorType>(op->getOperand(0).getType()).isDynamicDim(0)) {
        v = op->getOperand(0);
        moved = true;
      } else if (auto conv = dyn_cast<ConvOp>(op);
                 conv && !conv.getChannelsLast() && axis == 1 &&
                 conv.getWeight().getType().isDynamicDim(0)) {
        v = conv.getWeight();
        axis = 0;
        moved = true;
      }
      break;
    case LoweringFamily::Scatter:
      // The result has the data's shape.
      moved = alignedDynamic(op->getOperand(0)).has_value();
      break;
    case LoweringFamily::DynamicSlice: {
      auto slice = cast<DynamicSliceOp>(op);
      DenseIntElementsAttr start;
      if (slice.getStrides()[axis] != 1 ||
          !matchPattern(slice.getStart(), m_Constant(&start)) ||
          !start.getValues<APInt>()[axis].isZero())
        break;
      auto limit = shapeEntrySource(slice.getLimit(), axis);
      if (limit && rootOf(limit->first, limit->second) ==
                       rootOf(slice.getInput(), axis)) {
        v = slice.getInput();
        moved = true;
      }
      break;
    }
    default:
      break;
    }
    if (!moved)
      return {v, axis};
  }
  return {v, axis};
}

std::pair<Value, int64_t> GraphImporter::rootOf(Value v, int64_t axis) {
  return findRoot(dimAliases, v, axis, 0);
}

//===----------------------------------------------------------------------===//
// SymDims as tide values
//===----------------------------------------------------------------------===//

SymDim NodeImporter::dimOf(Value v, int64_t axis) {
  auto type = llvm::cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(axis))
    return SymDim::constant(type.getDimSize(axis));
  auto [source, a] = graph.rootOf(v, axis);
  return SymDim::dim(source, a);
}

SmallVector<SymDim> NodeImporter::dimsOf(Value v) {
  SmallVector<SymDim> dims;
  for (int64_t d = 0; d < llvm::cast<RankedTensorType>(v.getType()).getRank();
       ++d)
    dims.push_back(dimOf(v, d));
  return dims;
}

Value NodeImporter::scalarOf(const SymDim &d, Type type) {
  Type element = type ? type : Type(i64Type(ctx));
  switch (d.kind) {
  case SymDim::Kind::Const:
    return constant(
        makeDense(RankedTensorType::get({1}, element), {d.value}, {}));
  case SymDim::Kind::Dim: {
    Value &cached = graph.dimValues[{d.source, d.axis}];
    if (!cached) {
      // At the start of the function when the tensor is an argument, else
      // right after the op that makes it: it dominates every use.
      OpBuilder::InsertionGuard guard(b);
      if (auto arg = dyn_cast<BlockArgument>(d.source))
        b.setInsertionPointToStart(arg.getOwner());
      else
        b.setInsertionPointAfter(d.source.getDefiningOp());
      cached = DimOp::create(b, loc, d.source, d.axis);
    }
    return cached;
  }
  case SymDim::Kind::Expr:
    return d.scalar;
  }
  return {};
}

Value NodeImporter::shapeOperand(ArrayRef<SymDim> dims) {
  auto type =
      RankedTensorType::get({static_cast<int64_t>(dims.size())}, i64Type(ctx));
  SmallVector<Value> parts;
  SmallVector<int64_t> run;
  auto flush = [&] {
    if (run.empty())
      return;
    parts.push_back(constant(makeDense(
        RankedTensorType::get({static_cast<int64_t>(run.size())}, i64Type(ctx)),
        run, {})));
    run.clear();
  };
  for (const SymDim &d : dims) {
    if (d.isConst()) {
      run.push_back(d.value);
      continue;
    }
    flush();
    Value s = scalarOf(d);
    if (!s)
      return {};
    parts.push_back(s);
  }
  flush();
  if (parts.empty())
    return constant(makeDense(type, {}, {}));
  if (parts.size() == 1)
    return parts.front();
  return create<ConcatOp>(parts, 0);
}

Value NodeImporter::materialize(const ShapeValue &value) {
  Type element = value.type.getElementType();
  bool isBool = element.isInteger(1);
  auto vecType =
      RankedTensorType::get({static_cast<int64_t>(value.elems.size())},
                            isBool ? element : Type(i64Type(ctx)));
  Value v;
  if (isBool) {
    SmallVector<Value> parts;
    for (const SymDim &d : value.elems)
      parts.push_back(scalarOf(d, element));
    v = parts.size() == 1 ? parts.front() : create<ConcatOp>(parts, 0);
  } else {
    v = shapeOperand(value.elems);
  }
  if (!v)
    return {};
  if (value.type.getRank() == 0)
    v = reshape(v, {});
  else if (llvm::cast<RankedTensorType>(v.getType()) != vecType)
    v = reshape(v, vecType.getShape());
  return cast(v, element);
}

RankedTensorType NodeImporter::typeOf(ArrayRef<SymDim> dims, Type element) {
  SmallVector<int64_t> shape;
  for (const SymDim &d : dims)
    shape.push_back(d.isConst() ? d.value : ShapedType::kDynamic);
  return RankedTensorType::get(shape, element);
}

Value NodeImporter::reshapeTo(Value v, ArrayRef<SymDim> dims) {
  if (!v)
    return {};
  auto type =
      typeOf(dims, llvm::cast<RankedTensorType>(v.getType()).getElementType());
  if (type == v.getType() &&
      (type.getNumDynamicDims() == 0 || dimsOf(v) == SmallVector<SymDim>(dims)))
    return v;
  // One dynamic size follows from the element count, unless another size is
  // 0.
  if (type.getNumDynamicDims() == 0 ||
      (type.getNumDynamicDims() == 1 &&
       !llvm::is_contained(type.getShape(), 0)))
    return make<ReshapeOp>(type, v);
  Value shape = shapeOperand(dims);
  if (!shape)
    return {};
  return make<ReshapeOp>(type, v, shape);
}

Value NodeImporter::sliceAxis(Value x, int64_t axis, int64_t start,
                              int64_t limit, int64_t step) {
  SmallVector<int64_t> s(llvm::cast<RankedTensorType>(x.getType()).getShape());
  if (step > 0 && llvm::any_of(s, ShapedType::isDynamic)) {
    // A dynamic dimension (a symbolic batch) kept whole: its extent is known
    // at run time only, so the bounds are shape operands.
    int64_t rank = s.size();
    SmallVector<SymDim> st(rank, SymDim::constant(0)), lim = dimsOf(x);
    st[axis] = SymDim::constant(start);
    lim[axis] = SymDim::constant(limit);
    SmallVector<int64_t> strides(rank, 1), shape = s;
    strides[axis] = step;
    shape[axis] = std::max<int64_t>(0, (limit - start + step - 1) / step);
    Value startV = shapeOperand(st), limitV = shapeOperand(lim);
    if (!startV || !limitV)
      return Value();
    auto type = llvm::cast<RankedTensorType>(x.getType()).clone(shape);
    return make<DynamicSliceOp>(type, x, startV, limitV, strides);
  }
  SmallVector<int64_t> st(s.size(), 0), lim = s, str(s.size(), 1);
  st[axis] = start;
  lim[axis] = limit;
  str[axis] = step;
  return create<SliceOp>(x, st, lim, str);
}

Value NodeImporter::broadcastToDims(Value v, ArrayRef<SymDim> dims) {
  if (!v)
    return {};
  auto in = llvm::cast<RankedTensorType>(v.getType());
  auto type = typeOf(dims, in.getElementType());
  int64_t offset = type.getRank() - in.getRank();
  bool needsShape = false;
  for (int64_t d = 0; d < type.getRank(); ++d)
    needsShape |=
        type.isDynamicDim(d) && (d < offset || !in.isDynamicDim(d - offset));
  if (type == in && !needsShape)
    return v;
  if (!needsShape)
    return make<BroadcastToOp>(type, v);
  Value shape = shapeOperand(dims);
  if (!shape)
    return {};
  return make<BroadcastToOp>(type, v, shape);
}

std::string NodeImporter::describeDynamic(const ShapeValue &value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  SmallVector<std::string> parts;
  for (const SymDim &d : value.elems) {
    std::string part;
    if (d.isDim()) {
      part = "dimension " + std::to_string(d.axis) + " of ";
      auto arg = dyn_cast<BlockArgument>(d.source);
      auto func =
          arg ? dyn_cast_if_present<func::FuncOp>(arg.getOwner()->getParentOp())
              : func::FuncOp();
      auto name = func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                           "onnx.name")
                       : StringAttr();
      part += name ? "graph input '" + name.str() + "'" : "a computed tensor";
    } else if (!d.isConst()) {
      part = "a size computed from dynamic dimensions";
    }
    if (!part.empty() && !llvm::is_contained(parts, part))
      parts.push_back(part);
  }
  llvm::interleave(parts, os, ", ");
  return s;
}

//===----------------------------------------------------------------------===//
// Arithmetic on sizes
//===----------------------------------------------------------------------===//

/// Floored modulo (ONNX Mod with fmod = 0 on integers).
static int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

SymDim NodeImporter::combine(llvm::StringRef op, const SymDim &a,
                             const SymDim &b) {
  bool compare = op == "Equal" || op == "Less" || op == "Greater" ||
                 op == "LessOrEqual" || op == "GreaterOrEqual";
  if (a.isConst() && b.isConst()) {
    int64_t x = a.value, y = b.value;
    // int64 arithmetic wraps around, as the tide ops do at run time (in
    // C++ an overflow is undefined: found by tide-fuzz-onnx).
    auto wrap = [](uint64_t v) { return SymDim::constant(int64_t(v)); };
    if (op == "Add")
      return wrap(uint64_t(x) + uint64_t(y));
    if (op == "Sub")
      return wrap(uint64_t(x) - uint64_t(y));
    if (op == "Mul")
      return wrap(uint64_t(x) * uint64_t(y));
    if (op == "Div" && y == -1)
      return wrap(0 - uint64_t(x));
    if (op == "Mod" && y == -1)
      return SymDim::constant(0);
    if (op == "Div" && y != 0)
      return SymDim::constant(x / y);
    if (op == "Mod" && y != 0)
      return SymDim::constant(floorMod(x, y));
    if (op == "Max")
      return SymDim::constant(std::max(x, y));
    if (op == "Min")
      return SymDim::constant(std::min(x, y));
    if (op == "Equal")
      return SymDim::constant(x == y);
    if (op == "Less")
      return SymDim::constant(x < y);
    if (op == "Greater")
      return SymDim::constant(x > y);
    if (op == "LessOrEqual")
      return SymDim::constant(x <= y);
    if (op == "GreaterOrEqual")
      return SymDim::constant(x >= y);
  }
  // What is known without the run-time values.
  if ((op == "Add" && b.isConst(0)) || (op == "Sub" && b.isConst(0)) ||
      (op == "Mul" && b.isConst(1)) || (op == "Div" && b.isConst(1)))
    return a;
  if ((op == "Add" && a.isConst(0)) || (op == "Mul" && a.isConst(1)))
    return b;
  if (op == "Mul" && (a.isConst(0) || b.isConst(0)))
    return SymDim::constant(0);
  if (op == "Sub" && a == b && a.kind != SymDim::Kind::Expr)
    return SymDim::constant(0);
  if ((op == "Max" || op == "Min") && a == b)
    return a;
  // A size is >= 0: max with a non-positive constant is the size.
  if (op == "Max" && a.isNonNegative() && b.isConst() && b.value <= 0)
    return a;
  if (op == "Max" && b.isNonNegative() && a.isConst() && a.value <= 0)
    return b;
  if (compare && a == b && a.kind != SymDim::Kind::Expr)
    return SymDim::constant(op == "Equal" || op == "LessOrEqual" ||
                            op == "GreaterOrEqual");
  // A size against a negative constant (the -1 of exporters' Expand).
  auto sizeVsNegative = [&](const SymDim &size, const SymDim &c) {
    return size.isNonNegative() && c.isConst() && c.value < 0;
  };
  if (compare && sizeVsNegative(a, b))
    return SymDim::constant(op == "Greater" || op == "GreaterOrEqual");
  if (compare && sizeVsNegative(b, a))
    return SymDim::constant(op == "Less" || op == "LessOrEqual");

  Value x = scalarOf(a), y = scalarOf(b);
  if (!x || !y)
    return SymDim::expr({});
  Value r;
  if (op == "Add")
    r = create<AddOp>(x, y);
  else if (op == "Sub")
    r = create<SubOp>(x, y);
  else if (op == "Mul")
    r = create<MulOp>(x, y);
  else if (op == "Div")
    r = create<DivOp>(x, y);
  else if (op == "Mod")
    r = create<ModOp>(x, y);
  else if (op == "Max")
    r = create<MaximumOp>(x, y);
  else if (op == "Min")
    r = create<MinimumOp>(x, y);
  else if (op == "Equal")
    r = create<CmpOp>(CmpPredicate::eq, x, y);
  else if (op == "Less")
    r = create<CmpOp>(CmpPredicate::lt, x, y);
  else if (op == "Greater")
    r = create<CmpOp>(CmpPredicate::gt, x, y);
  else if (op == "LessOrEqual")
    r = create<CmpOp>(CmpPredicate::le, x, y);
  else if (op == "GreaterOrEqual")
    r = create<CmpOp>(CmpPredicate::ge, x, y);
  return SymDim::expr(r);
}

SymDim NodeImporter::select(const SymDim &cond, const SymDim &a,
                            const SymDim &b) {
  if (cond.isConst())
    return cond.value ? a : b;
  if (a == b)
    return a;
  Value c = scalarOf(cond, IntegerType::get(ctx, 1));
  Value x = scalarOf(a), y = scalarOf(b);
  if (!c || !x || !y)
    return SymDim::expr({});
  return SymDim::expr(create<SelectOp>(c, x, y));
}

//===----------------------------------------------------------------------===//
// Shape values of inputs and outputs
//===----------------------------------------------------------------------===//

std::optional<ShapeValue> NodeImporter::shapeIn(unsigned i) const {
  if (!has(i))
    return std::nullopt;
  auto it = graph.shapes.find(node.input(i));
  if (it != graph.shapes.end())
    return it->second;
  auto c = constIn(i);
  if (!c)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(c->getShapedType());
  if (!isShapeType(type))
    return std::nullopt;
  auto values = readHostValues(*c, kMaxShapeElements);
  if (!values)
    return std::nullopt;
  ShapeValue v;
  v.type = type;
  for (int64_t k = 0; k < values->size(); ++k)
    v.elems.push_back(SymDim::constant(values->intAt(k)));
  return v;
}

void NodeImporter::setShapeOut(unsigned i, ShapeValue value) {
  if (!wantsOutput(i))
    return;
  if (value.isConstant()) {
    SmallVector<int64_t> ints;
    for (const SymDim &d : value.elems)
      ints.push_back(d.value);
    setConstOut(i, makeDense(value.type, ints, {}));
    return;
  }
  graph.shapes[node.output(i)] = std::move(value);
  graph.values.erase(node.output(i));
  graph.constants.erase(node.output(i));
}

namespace {

/// A shape value of `type` with `elems`, or nullopt when an expression
/// could not be built (reported where it failed).
std::optional<ShapeValue> make(RankedTensorType type,
                               SmallVector<SymDim> elems) {
  for (const SymDim &d : elems)
    if (d.kind == SymDim::Kind::Expr && !d.scalar)
      return std::nullopt;
  return ShapeValue{type, std::move(elems)};
}

RankedTensorType vectorOf(Type element, int64_t n) {
  return RankedTensorType::get({n}, element);
}

/// Shape of `x` from `start` to `end` (ONNX Shape, opset 15 slicing).
FailureOr<bool> symShape(NodeImporter &n) {
  RankedTensorType type = n.inType(0);
  if (!type || !n.in(0))
    return false;
  int64_t rank = type.getRank();
  int64_t start = n.attrInt("start", 0), end = n.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  SmallVector<SymDim> elems;
  for (int64_t i = start; i < end; ++i)
    elems.push_back(n.dimOf(n.in(0), i));
  n.setShapeOut(0, ShapeValue{vectorOf(i64Type(n.ctx), elems.size()), elems});
  return true;
}

/// Size: the product of the sizes.
FailureOr<bool> symSize(NodeImporter &n) {
  if (!n.in(0))
    return false;
  SymDim product = SymDim::constant(1);
  for (const SymDim &d : n.dimsOf(n.in(0)))
    product = n.combine("Mul", product, d);
  auto v = make(RankedTensorType::get({}, i64Type(n.ctx)), {product});
  if (!v)
    return failure();
  n.setShapeOut(0, *v);
  return true;
}

/// Integers read from a constant input, or nullopt.
std::optional<SmallVector<int64_t>> constInts(NodeImporter &n, unsigned i) {
  auto c = n.constIn(i);
  if (!c)
    return std::nullopt;
  auto v = readHostValues(*c, kMaxShapeElements);
  if (!v || v->isFloat())
    return std::nullopt;
  SmallVector<int64_t> out;
  for (int64_t k = 0; k < v->size(); ++k)
    out.push_back(v->ints[k]);
  return out;
}

FailureOr<bool> symGather(NodeImporter &n, const ShapeValue &data) {
  auto indices = constInts(n, 1);
  // (Indices of rank 2 or more give a result of that rank, which a shape
  // value, of rank 0 or 1, does not hold: computed as values.)
  if (!indices || data.type.getRank() != 1 || !n.inType(1) ||
      n.inType(1).getRank() > 1)
    return false;
  int64_t axis = n.attrInt("axis", 0);
  if (axis != 0 && axis != -1)
    return false;
  int64_t size = data.elems.size();
  SmallVector<SymDim> elems;
  for (int64_t idx : *indices) {
    int64_t k = idx < 0 ? idx + size : idx;
    if (k < 0 || k >= size)
      return (void)n.fail("index " + llvm::Twine(idx) +
                          " is out of range for a dimension of size " +
                          llvm::Twine(size)),
             failure();
    elems.push_back(data.elems[k]);
  }
  auto indexType = n.inType(1);
  n.setShapeOut(0, ShapeValue{RankedTensorType::get(indexType.getShape(),
                                                    data.type.getElementType()),
                              elems});
  return true;
}

FailureOr<bool> symSlice(NodeImporter &n, const ShapeValue &data) {
  if (n.opset < 10 || data.type.getRank() != 1)
    return false;
  auto starts = constInts(n, 1), ends = constInts(n, 2);
  std::optional<SmallVector<int64_t>> axes, steps;
  if (n.has(3) && !(axes = constInts(n, 3)))
    return false;
  if (n.has(4) && !(steps = constInts(n, 4)))
    return false;
  if (!starts || !ends || starts->size() != 1 || ends->size() != 1 ||
      (axes && (axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))) ||
      (steps && steps->size() != 1))
    return false;
  int64_t dim = data.elems.size(), s = (*starts)[0], e = (*ends)[0];
  int64_t step = steps ? (*steps)[0] : 1;
  if (step == 0)
    return (void)n.fail("a slice step of 0"), failure();
  if (s < 0)
    s += dim;
  if (e < 0)
    e += dim;
  SmallVector<SymDim> elems;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    // (Steps that would pass INT64_MAX end the loop.)
    for (int64_t k = s; k < e;) {
      elems.push_back(data.elems[k]);
      if (__builtin_add_overflow(k, step, &k))
        break;
    }
  } else {
    // ONNX clamps a start into [0, size - 1] for a negative step (a
    // start before the first element selects it), as ONNX Runtime does.
    s = dim == 0 ? -1 : std::clamp<int64_t>(s, 0, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
    for (int64_t k = s; k > e;) {
      elems.push_back(data.elems[k]);
      if (__builtin_add_overflow(k, step, &k))
        break;
    }
  }
  n.setShapeOut(
      0, ShapeValue{vectorOf(data.type.getElementType(), elems.size()), elems});
  return true;
}

FailureOr<bool> symConcat(NodeImporter &n) {
  SmallVector<SymDim> elems;
  Type element;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    auto v = n.shapeIn(i);
    if (!v || v->type.getRank() != 1)
      return false;
    if (element && v->type.getElementType() != element)
      return false;
    element = v->type.getElementType();
    llvm::append_range(elems, v->elems);
  }
  if (!element)
    return false;
  n.setShapeOut(0, ShapeValue{vectorOf(element, elems.size()), elems});
  return true;
}

/// Unsqueeze, Squeeze, Reshape, Flatten, Identity of a shape value into rank
/// 0 or 1, and integer Casts: the same elements.
FailureOr<bool> symSameElements(NodeImporter &n, const ShapeValue &data) {
  llvm::StringRef op = n.opType();
  Type element = data.type.getElementType();
  int64_t count = data.elems.size();
  SmallVector<int64_t> shape;
  if (op == "Identity") {
    shape.assign(data.type.getShape().begin(), data.type.getShape().end());
  } else if (op == "Cast" || op == "CastLike") {
    shape.assign(data.type.getShape().begin(), data.type.getShape().end());
    RankedTensorType to;
    if (op == "CastLike") {
      to = n.inType(1);
    } else if (const auto *a = n.attr("to");
               a && a->type() != onnx::AttributeProto::STRING) {
      std::string why;
      Type t = convertElementType(n.ctx, a->i(), why);
      to = t ? RankedTensorType::get({}, t) : RankedTensorType();
    }
    auto integer =
        to ? dyn_cast<IntegerType>(to.getElementType()) : IntegerType();
    // Sizes fit every integer type exporters cast them to (int32, int64);
    // truth values stay truth values.
    if (!integer || integer.getWidth() < 32 ||
        (element.isInteger(1) != integer.isInteger(1)))
      return false;
    // A constant entry the narrower type would wrap (INT64_MAX, an
    // exporter's "to the end", as int32 is -1): computed as values.
    if (integer.getWidth() < 64 && !integer.isInteger(1))
      for (const SymDim &e : data.elems)
        if (e.isConst() && (e.value < std::numeric_limits<int32_t>::min() ||
                            e.value > std::numeric_limits<int32_t>::max()))
          return false;
    element = integer;
  } else if (op == "Unsqueeze" || op == "Squeeze" || op == "Flatten" ||
             op == "Reshape") {
    // The result's rank decides: a rank 0 or 1 result of the same count.
    if (op == "Reshape") {
      auto target = constInts(n, 1);
      if (!target || target->size() > 1)
        return false;
      if (target->size() == 1)
        shape.push_back(count);
    } else if (op == "Unsqueeze") {
      // One axis only: a scalar with two is of rank 2.
      std::optional<SmallVector<int64_t>> axes;
      if (n.opset >= 13)
        axes = n.has(1) ? constInts(n, 1) : std::nullopt;
      else if (auto a = n.attrInts("axes"))
        axes = SmallVector<int64_t>(a->begin(), a->end());
      if (data.type.getRank() != 0 || !axes || axes->size() != 1)
        return false;
      shape.push_back(1);
    } else if (op == "Squeeze") {
      if (data.type.getRank() != 1 || count != 1)
        return false;
    } else {
      return false;
    }
  } else {
    return false;
  }
  n.setShapeOut(0,
                ShapeValue{RankedTensorType::get(shape, element), data.elems});
  return true;
}

/// ReduceMin, ReduceMax, ReduceSum and ReduceProd of a whole shape vector
/// (torchvision's detection heads keep min(k, number of boxes)).
FailureOr<bool> symReduce(NodeImporter &n, const ShapeValue &data) {
  llvm::StringRef op = n.opType();
  if (data.type.getRank() != 1 || data.elems.empty() ||
      data.type.getElementType().isInteger(1))
    return false;
  // Axes: absent (all), or the one axis, as an attribute or an input.
  bool noAxes = true;
  if (n.opset >= 18 || op == "ReduceSum") {
    if (n.has(1)) {
      auto axes = constInts(n, 1);
      if (!axes || axes->size() > 1 ||
          (axes->size() == 1 && (*axes)[0] != 0 && (*axes)[0] != -1))
        return false;
      noAxes = axes->empty();
    }
  } else if (auto axes = n.attrInts("axes")) {
    if (axes->size() > 1 ||
        (axes->size() == 1 && (*axes)[0] != 0 && (*axes)[0] != -1))
      return false;
    noAxes = axes->empty();
  }
  // No axes with noop_with_empty_axes reduces nothing: the converter's
  // reduction handles it (this gave the shape's maximum, of rank 1).
  if (noAxes && n.attrInt("noop_with_empty_axes", 0))
    return false;
  llvm::StringRef combineOp = op == "ReduceMin"   ? "Min"
                              : op == "ReduceMax" ? "Max"
                              : op == "ReduceSum" ? "Add"
                                                  : "Mul";
  SymDim acc = data.elems.front();
  for (const SymDim &d : llvm::drop_begin(data.elems))
    acc = n.combine(combineOp, acc, d);
  SmallVector<int64_t> shape;
  if (n.attrInt("keepdims", 1) != 0)
    shape.push_back(1);
  n.setShapeOut(
      0, ShapeValue{RankedTensorType::get(shape, data.type.getElementType()),
                    {acc}});
  return true;
}

/// Elementwise ops on shape values with NumPy broadcasting (sizes 1 and n).
FailureOr<bool> symElementwise(NodeImporter &n) {
  llvm::StringRef op = n.opType();
  unsigned arity = op == "Where"                                 ? 3
                   : (op == "Abs" || op == "Neg" || op == "Not") ? 1
                                                                 : 2;
  if (n.numInputs() != arity)
    return false;
  SmallVector<ShapeValue> ins;
  bool anyTracked = false;
  for (unsigned i = 0; i < arity; ++i) {
    auto v = n.shapeIn(i);
    if (!v)
      return false;
    anyTracked |= !v->isConstant();
    ins.push_back(*v);
  }
  // All constant: FoldShapes.cpp folds it (or the ops' folders do).
  if (!anyTracked)
    return false;
  int64_t count = 1, rank = 0;
  for (const ShapeValue &v : ins) {
    rank = std::max<int64_t>(rank, v.type.getRank());
    int64_t size = v.elems.size();
    if (size != 1 && count != 1 && size != count)
      return false;
    if (size != 1)
      count = size;
  }
  auto at = [&](const ShapeValue &v, int64_t k) -> const SymDim & {
    return v.elems.size() == 1 ? v.elems[0] : v.elems[k];
  };
  Type element = (op == "Where") ? ins[1].type.getElementType()
                                 : ins[0].type.getElementType();
  bool compare = op == "Equal" || op == "Less" || op == "Greater" ||
                 op == "LessOrEqual" || op == "GreaterOrEqual";
  if (compare)
    element = IntegerType::get(n.ctx, 1);
  if ((op == "Where" && !ins[0].type.getElementType().isInteger(1)) ||
      (op == "Not" && !element.isInteger(1)) ||
      (!compare && op != "Where" && op != "Not" && element.isInteger(1)))
    return false;
  SmallVector<SymDim> elems;
  for (int64_t k = 0; k < count; ++k) {
    if (op == "Where") {
      elems.push_back(n.select(at(ins[0], k), at(ins[1], k), at(ins[2], k)));
    } else if (op == "Abs") {
      const SymDim &x = at(ins[0], k);
      elems.push_back(x.isNonNegative()
                          ? x
                          : n.select(n.combine("Less", x, SymDim::constant(0)),
                                     n.combine("Sub", SymDim::constant(0), x),
                                     x));
    } else if (op == "Neg") {
      elems.push_back(n.combine("Sub", SymDim::constant(0), at(ins[0], k)));
    } else if (op == "Not") {
      // A truth value computed at run time (tensor<1xi1>) is negated; a
      // constant compares with 0.
      const SymDim &x = at(ins[0], k);
      if (x.kind == SymDim::Kind::Expr && x.scalar &&
          cast<RankedTensorType>(x.scalar.getType())
              .getElementType()
              .isInteger(1))
        elems.push_back(SymDim::expr(n.make<NotOp>(x.scalar)));
      else
        elems.push_back(n.combine("Equal", x, SymDim::constant(0)));
    } else {
      elems.push_back(n.combine(op, at(ins[0], k), at(ins[1], k)));
    }
  }
  SmallVector<int64_t> shape;
  if (rank == 1)
    shape.push_back(count);
  auto v = make(RankedTensorType::get(shape, element), elems);
  if (!v)
    return failure();
  n.setShapeOut(0, *v);
  return true;
}

} // namespace

FailureOr<bool> onnx_import::trySymbolicNode(NodeImporter &n) {
  llvm::StringRef op = n.opType();
  if (op == "Shape")
    return symShape(n);
  if (op == "Size")
    return symSize(n);
  if (op == "Concat" &&
      (n.attrInt("axis", 0) == 0 || n.attrInt("axis", 0) == -1))
    return symConcat(n);
  if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual" || op == "Add" || op == "Sub" || op == "Mul" ||
      op == "Div" || op == "Max" || op == "Min" || op == "Where" ||
      op == "Abs" || op == "Neg" || op == "Not" ||
      (op == "Mod" && n.attrInt("fmod", 0) == 0))
    return symElementwise(n);
  // The rest read one shape value that is not a constant.
  auto data = n.shapeIn(0);
  if (!data || data->isConstant())
    return false;
  if (op == "Gather")
    return symGather(n, *data);
  if (op == "Slice")
    return symSlice(n, *data);
  if (op == "ReduceMin" || op == "ReduceMax" || op == "ReduceSum" ||
      op == "ReduceProd")
    return symReduce(n, *data);
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape" ||
      op == "Identity" || op == "Cast" || op == "CastLike")
    return symSameElements(n, *data);
  return false;
}
