//===- FoldShapes.cpp - Shape subgraphs evaluated while importing ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Exporters compute shapes at run time: Shape -> Gather -> Concat -> Reshape.
// Tide's shapes are types, so such subgraphs are evaluated here whenever
// their inputs are known: Constant, Shape, Size, ConstantOfShape and Range
// of static sizes; Gather, Slice, comparisons and Where on small constant
// tensors. With dynamic sizes, SymbolicShapes.cpp takes over.
// Arithmetic, Cast, Reshape, Concat, ... on constants are folded after
// conversion by the tide ops' own folders (foldConstantOutputs).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

/// Inputs larger than this are not evaluated on the host.
constexpr int64_t kFoldLimit = 1 << 16;

using Shape = SmallVector<int64_t>;

/// The number of elements of a static shape, if it is at most kFoldLimit
/// (the product is checked at each step, so sizes whose product would
/// overflow int64 give none).
std::optional<int64_t> smallCount(ArrayRef<int64_t> shape) {
  int64_t total = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d == 0)
      return 0;
  }
  for (int64_t d : shape) {
    total *= d;
    if (total > kFoldLimit)
      return std::nullopt;
  }
  return total;
}

Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::optional<HostValues> constValues(NodeImporter &n, unsigned i) {
  auto c = n.constIn(i);
  if (!c)
    return std::nullopt;
  return readHostValues(*c, kFoldLimit);
}

DenseElementsAttr toAttr(const HostValues &v) {
  return makeDense(v.type, v.ints, v.floats);
}

HostValues empty(RankedTensorType type) {
  HostValues v;
  v.type = type;
  return v;
}

void push(HostValues &out, const HostValues &in, int64_t i) {
  if (in.isFloat())
    out.floats.push_back(in.floats[i]);
  else
    out.ints.push_back(in.ints[i]);
}

FailureOr<bool> foldConstant(
    NodeImporter &n,
    const std::function<ElementsAttr(const onnx::TensorProto &, std::string &)>
        &readTensor) {
  Builder b(n.ctx);
  auto set = [&](ElementsAttr value) {
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      n.setConstOut(0, dense);
    else
      n.setOut(0, ConstantOp::create(n.b, n.loc, value.getShapedType(), value));
    return true;
  };
  if (const auto *a = n.attr("value")) {
    std::string error;
    ElementsAttr value = readTensor(a->t(), error);
    if (!value)
      return (void)n.fail(error), failure();
    return set(value);
  }
  if (const auto *a = n.attr("value_float"))
    return set(
        makeDense(RankedTensorType::get({}, b.getF32Type()), {}, {a->f()}));
  if (const auto *a = n.attr("value_int"))
    return set(
        makeDense(RankedTensorType::get({}, b.getI64Type()), {a->i()}, {}));
  if (const auto *a = n.attr("value_floats")) {
    std::vector<double> f(a->floats().begin(), a->floats().end());
    return set(makeDense(
        RankedTensorType::get({static_cast<int64_t>(f.size())}, b.getF32Type()),
        {}, f));
  }
  if (const auto *a = n.attr("value_ints")) {
    std::vector<int64_t> i(a->ints().begin(), a->ints().end());
    return set(makeDense(
        RankedTensorType::get({static_cast<int64_t>(i.size())}, b.getI64Type()),
        i, {}));
  }
  if (n.attr("sparse_value"))
    return (void)n.fail("sparse constants are not supported"), failure();
  if (n.attr("value_string") || n.attr("value_strings"))
    return (void)n.fail(
               "string constants are not supported: Tide has no string "
               "type"),
           failure();
  return (void)n.fail("Constant has no value"), failure();
}

FailureOr<bool> foldShape(NodeImporter &n) {
  auto type = n.inType(0);
  if (!type)
    return false;
  int64_t rank = type.getRank();
  int64_t start = n.attrInt("start", 0), end = n.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  Shape dims;
  for (int64_t i = start; i < end; ++i) {
    // A dynamic size is known at run time (SymbolicShapes.cpp).
    if (type.isDynamicDim(i))
      return false;
    dims.push_back(type.getDimSize(i));
  }
  auto rt = RankedTensorType::get({static_cast<int64_t>(dims.size())},
                                  IntegerType::get(n.ctx, 64));
  n.setConstOut(0, makeDense(rt, dims, {}));
  return true;
}

FailureOr<bool> foldSize(NodeImporter &n) {
  auto type = n.inType(0);
  if (!type)
    return false;
  if (!type.hasStaticShape())
    return false;
  n.setConstOut(
      0, makeDense(RankedTensorType::get({}, IntegerType::get(n.ctx, 64)),
                   {type.getNumElements()}, {}));
  return true;
}

FailureOr<bool> foldConstantOfShape(
    NodeImporter &n,
    const std::function<ElementsAttr(const onnx::TensorProto &, std::string &)>
        &readTensor) {
  if (!n.has(0))
    return false;
  // Sizes known only at run time: converted (ConvertOps.cpp).
  if (auto symbolic = n.shapeIn(0); symbolic && !symbolic->isConstant())
    return false;
  auto shape = n.requireInts(0, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return (void)n.fail("ConstantOfShape: negative size " + llvm::Twine(d)),
             failure();
  Type elem = Float32Type::get(n.ctx);
  double f = 0;
  int64_t i = 0;
  if (const auto *a = n.attr("value")) {
    std::string error;
    ElementsAttr value = readTensor(a->t(), error);
    if (!value)
      return (void)n.fail(error), failure();
    auto v = readHostValues(value, 1);
    if (!v || v->size() != 1)
      return (void)n.fail("ConstantOfShape's value must have one element"),
             failure();
    elem = v->type.getElementType();
    f = v->at(0);
    i = v->intAt(0);
  }
  auto type = RankedTensorType::get(*shape, elem);
  if (isa<FloatType>(elem))
    n.setConstOut(0,
                  DenseElementsAttr::get(
                      type, makeDense(RankedTensorType::get({}, elem), {}, {f})
                                .getSplatValue<Attribute>()));
  else
    n.setConstOut(0,
                  DenseElementsAttr::get(
                      type, makeDense(RankedTensorType::get({}, elem), {i}, {})
                                .getSplatValue<Attribute>()));
  return true;
}

FailureOr<bool> foldRange(NodeImporter &n) {
  auto start = constValues(n, 0), limit = constValues(n, 1),
       delta = constValues(n, 2);
  if (!start || !limit || !delta)
    return false;
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1)
    return (void)n.fail("Range takes scalars"), failure();
  HostValues out;
  if (start->isFloat()) {
    double s = start->at(0), l = limit->at(0), d = delta->at(0);
    if (d == 0)
      return (void)n.fail("Range with a delta of 0"), failure();
    double size = std::ceil((l - s) / d);
    if (std::isnan(size))
      return (void)n.fail("Range with a size that is not a number"), failure();
    // Too large to fold (and maybe to convert to int64): not folded.
    if (size > kFoldLimit * 16)
      return false;
    int64_t count = size > 0 ? static_cast<int64_t>(size) : 0;
    for (int64_t k = 0; k < count; ++k)
      out.floats.push_back(s + k * d);
    out.type = RankedTensorType::get({count}, start->type.getElementType());
  } else {
    int64_t s = start->ints[0], l = limit->ints[0], d = delta->ints[0];
    if (d == 0)
      return (void)n.fail("Range with a delta of 0"), failure();
    // In 128 bits: bounds at the int64 extremes (tide-fuzz-onnx, UBSan).
    __int128 span = static_cast<__int128>(l) - s;
    __int128 steps = (span + d + (d > 0 ? -1 : 1)) / d;
    if (steps > kFoldLimit * 16)
      return false;
    int64_t count = steps > 0 ? static_cast<int64_t>(steps) : 0;
    // (In 128 bits: k * d alone may not fit where s + k * d, between start
    // and limit, does: tide-fuzz-onnx, UBSan.)
    for (int64_t k = 0; k < count; ++k)
      out.ints.push_back(static_cast<int64_t>(static_cast<__int128>(s) +
                                              static_cast<__int128>(k) * d));
    out.type = RankedTensorType::get({count}, start->type.getElementType());
  }
  n.setConstOut(0, toAttr(out));
  return true;
}

FailureOr<bool> foldGather(NodeImporter &n) {
  auto data = constValues(n, 0), indices = constValues(n, 1);
  if (!data || !indices || indices->isFloat())
    return false;
  Shape ds(data->type.getShape());
  int64_t rank = ds.size();
  if (rank == 0)
    return (void)n.fail("Gather of a scalar"), failure();
  int64_t axis = n.attrInt("axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return (void)n.fail("axis " + llvm::Twine(n.attrInt("axis", 0)) +
                        " is out of range"),
           failure();
  Shape is(indices->type.getShape());
  Shape rs(ds.begin(), ds.begin() + axis);
  rs.append(is.begin(), is.end());
  rs.append(ds.begin() + axis + 1, ds.end());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= ds[i];
  for (int64_t i = axis + 1; i < rank; ++i)
    inner *= ds[i];
  HostValues out =
      empty(RankedTensorType::get(rs, data->type.getElementType()));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < indices->size(); ++k) {
      int64_t idx = indices->ints[k];
      if (idx < 0)
        idx += ds[axis];
      if (idx < 0 || idx >= ds[axis])
        return (void)n.fail("index " + llvm::Twine(indices->ints[k]) +
                            " is out of range for a dimension of size " +
                            llvm::Twine(ds[axis])),
               failure();
      for (int64_t i = 0; i < inner; ++i)
        push(out, *data, (o * ds[axis] + idx) * inner + i);
    }
  n.setConstOut(0, toAttr(out));
  return true;
}

FailureOr<bool> foldSlice(NodeImporter &n) {
  if (n.opset < 10)
    return false;
  auto data = constValues(n, 0);
  if (!data)
    return false;
  for (unsigned i = 1; i < n.numInputs(); ++i)
    if (n.has(i) && !constValues(n, i))
      return false;
  auto starts = n.requireInts(1, "starts"), ends = n.requireInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  Shape ds(data->type.getShape());
  int64_t rank = ds.size();
  Shape axes, steps;
  if (n.has(3))
    axes = *n.requireInts(3, "axes");
  else
    for (size_t i = 0; i < starts->size(); ++i)
      axes.push_back(i);
  if (n.has(4))
    steps = *n.requireInts(4, "steps");
  else
    steps.assign(starts->size(), 1);
  if (axes.size() != starts->size() || ends->size() != starts->size() ||
      steps.size() != starts->size())
    return (void)n.fail(
               "starts, ends, axes and steps must have the same length"),
           failure();
  Shape st(rank, 0), step(rank, 1), count(ds);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (a < 0 || a >= rank)
      return (void)n.fail("axis " + llvm::Twine(axes[k]) + " is out of range"),
             failure();
    int64_t dim = ds[a], s = (*starts)[k], e = (*ends)[k], d = steps[k];
    if (d == 0)
      return (void)n.fail("a slice step of 0"), failure();
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (d > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count[a] = e > s ? (e - s - 1) / d + 1 : 0; // (no overflow)
    } else {
      // ONNX clamps a start into [0, size - 1] for a negative step (a
      // start before the first element selects it), as ONNX Runtime
      // does.
      s = dim == 0 ? -1 : std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count[a] =
          s > e
              ? static_cast<int64_t>(uint64_t(s - e - 1) / (0 - uint64_t(d))) +
                    1
              : 0;
    }
    st[a] = s;
    step[a] = d;
  }
  HostValues out =
      empty(RankedTensorType::get(count, data->type.getElementType()));
  Shape inStrides = stridesOf(ds);
  int64_t total = 1;
  for (int64_t c : count)
    total *= c;
  Shape idx(rank, 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t rem = e, off = 0;
    for (int64_t a = rank - 1; a >= 0; --a) {
      int64_t i = rem % count[a];
      rem /= count[a];
      off += (st[a] + i * step[a]) * inStrides[a];
    }
    push(out, *data, off);
  }
  n.setConstOut(0, toAttr(out));
  return true;
}

/// Broadcasting binary evaluation for comparisons and Where.
std::optional<HostValues>
broadcast3(ArrayRef<const HostValues *> ins, Type resultElem,
           function_ref<void(HostValues &, ArrayRef<int64_t>)> fn) {
  size_t rank = 0;
  for (const HostValues *v : ins)
    rank = std::max<size_t>(rank, v->type.getRank());
  Shape rs(rank, 1);
  for (const HostValues *v : ins) {
    auto s = v->type.getShape();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &d = rs[rank - s.size() + i];
      if (d == 1)
        d = s[i];
      else if (s[i] != 1 && s[i] != d)
        return std::nullopt;
    }
  }
  std::optional<int64_t> count = smallCount(rs);
  if (!count)
    return std::nullopt;
  HostValues out = empty(RankedTensorType::get(rs, resultElem));
  int64_t total = *count;
  SmallVector<Shape> strides;
  for (const HostValues *v : ins) {
    Shape s(rank, 1);
    auto vs = v->type.getShape();
    for (size_t i = 0; i < vs.size(); ++i)
      s[rank - vs.size() + i] = vs[i];
    Shape st = stridesOf(s);
    for (size_t i = 0; i < rank; ++i)
      if (s[i] == 1)
        st[i] = 0;
    strides.push_back(st);
  }
  Shape offs(ins.size());
  for (int64_t e = 0; e < total; ++e) {
    int64_t rem = e;
    std::fill(offs.begin(), offs.end(), 0);
    for (int64_t a = rank - 1; a >= 0; --a) {
      int64_t i = rem % rs[a];
      rem /= rs[a];
      for (size_t k = 0; k < ins.size(); ++k)
        offs[k] += i * strides[k][a];
    }
    fn(out, offs);
  }
  return out;
}

FailureOr<bool> foldCompare(NodeImporter &n) {
  auto a = constValues(n, 0), c = constValues(n, 1);
  if (!a || !c || a->isFloat() != c->isFloat())
    return false;
  llvm::StringRef op = n.opType();
  // Integers compared as integers (int64 past 2^53 are not doubles), unsigned
  // ones as unsigned.
  bool isUnsigned = a->type.getElementType().isUnsignedInteger();
  auto compare = [&](auto x, auto y) {
    return op == "Equal"         ? x == y
           : op == "Less"        ? x < y
           : op == "LessOrEqual" ? x <= y
           : op == "Greater"     ? x > y
                                 : x >= y;
  };
  auto r = broadcast3({&*a, &*c}, IntegerType::get(n.ctx, 1),
                      [&](HostValues &out, ArrayRef<int64_t> o) {
                        bool v;
                        if (a->isFloat())
                          v = compare(a->floats[o[0]], c->floats[o[1]]);
                        else if (isUnsigned)
                          v = compare(uint64_t(a->ints[o[0]]),
                                      uint64_t(c->ints[o[1]]));
                        else
                          v = compare(a->ints[o[0]], c->ints[o[1]]);
                        out.ints.push_back(v);
                      });
  if (!r)
    return false;
  n.setConstOut(0, toAttr(*r));
  return true;
}

FailureOr<bool> foldWhere(NodeImporter &n) {
  auto c = constValues(n, 0), x = constValues(n, 1), y = constValues(n, 2);
  if (!c || !x || !y || x->type.getElementType() != y->type.getElementType())
    return false;
  auto r = broadcast3({&*c, &*x, &*y}, x->type.getElementType(),
                      [&](HostValues &out, ArrayRef<int64_t> o) {
                        push(out, c->ints[o[0]] ? *x : *y,
                             c->ints[o[0]] ? o[1] : o[2]);
                      });
  if (!r)
    return false;
  n.setConstOut(0, toAttr(*r));
  return true;
}

/// Integer arithmetic on small constants (shape computations): Add, Sub,
/// Mul, Div (truncating), Max, Min with broadcasting.
FailureOr<bool> foldIntBinary(NodeImporter &n) {
  if (n.numInputs() != 2)
    return false;
  auto a = constValues(n, 0), c = constValues(n, 1);
  if (!a || !c || a->type.getElementType() != c->type.getElementType() ||
      a->type.getElementType().isInteger(1))
    return false;
  if (a->isFloat()) {
    // IEEE results: each operation in double, rounded once to the element
    // type (exact for f32, f16 and bf16 operands).
    llvm::StringRef op = n.opType();
    auto r = broadcast3({&*a, &*c}, a->type.getElementType(),
                        [&](HostValues &out, ArrayRef<int64_t> o) {
                          double x = a->floats[o[0]], y = c->floats[o[1]];
                          double v =
                              op == "Add"   ? x + y
                              : op == "Sub" ? x - y
                              : op == "Mul" ? x * y
                              : op == "Div" ? x / y
                              // (NaN propagates, as in ONNX Runtime.)
                              : std::isnan(x) || std::isnan(y)
                                  ? std::numeric_limits<double>::quiet_NaN()
                              : op == "Max" ? std::fmax(x, y)
                                            : std::fmin(x, y);
                          out.floats.push_back(v);
                        });
    if (!r)
      return false;
    n.setConstOut(0, toAttr(*r));
    return true;
  }
  llvm::StringRef op = n.opType();
  bool divByZero = false;
  // uint64 values past 2^63 are held as negative int64s: divide and
  // compare them unsigned.
  bool isUnsigned = a->type.getElementType().isUnsignedInteger();
  auto r = broadcast3(
      {&*a, &*c}, a->type.getElementType(),
      [&](HostValues &out, ArrayRef<int64_t> o) {
        int64_t x = a->ints[o[0]], y = c->ints[o[1]];
        if (isUnsigned && op != "Add" && op != "Sub" && op != "Mul") {
          uint64_t ux = x, uy = y;
          if (op == "Div" && uy == 0)
            divByZero = true;
          out.ints.push_back(int64_t(op == "Div"   ? (uy ? ux / uy : 0)
                                     : op == "Max" ? std::max(ux, uy)
                                                   : std::min(ux, uy)));
          return;
        }
        // In two's complement, as the run-time code computes
        // (a signed overflow is undefined in C++).
        uint64_t ux = x, uy = y;
        int64_t v = 0;
        if (op == "Add")
          v = int64_t(ux + uy);
        else if (op == "Sub")
          v = int64_t(ux - uy);
        else if (op == "Mul")
          v = int64_t(ux * uy);
        else if (op == "Div") {
          if (y == 0)
            divByZero = true;
          else if (y == -1)
            v = int64_t(0 - ux);
          else
            v = x / y;
        } else if (op == "Max")
          v = std::max(x, y);
        else
          v = std::min(x, y);
        out.ints.push_back(v);
      });
  if (!r || divByZero)
    return false;
  // Results wrap to the element width, as the run-time code would.
  n.setConstOut(0, toAttr(*r));
  return true;
}

} // namespace

FailureOr<bool> onnx_import::tryFoldNode(NodeImporter &n) {
  llvm::StringRef op = n.opType();
  auto readTensor = [&](const onnx::TensorProto &t, std::string &error) {
    return n.readTensor(t, "'" + n.node.name() + "' value", error);
  };
  if (op == "Constant")
    return foldConstant(n, readTensor);
  if (op == "Shape")
    return foldShape(n);
  if (op == "Size")
    return foldSize(n);
  if (op == "ConstantOfShape")
    return foldConstantOfShape(n, readTensor);
  if (op == "Range")
    return foldRange(n);
  if (op == "Gather")
    return foldGather(n);
  if (op == "Slice")
    return foldSlice(n);
  if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" ||
      op == "GreaterOrEqual")
    return foldCompare(n);
  if (op == "Where")
    return foldWhere(n);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Max" ||
      op == "Min")
    return foldIntBinary(n);
  return false;
}

/// Float arithmetic, comparisons, selects, reductions and transposes of small
/// f32/f64 and i64/i1 constants: the size arithmetic exporters write in
/// floats (torchvision's detection transforms compute padded image sizes
/// with Div, Ceil and ReduceMax of constants). Each f32 or f64 result is the
/// exact value rounded once (doubles hold the exact sum, difference and
/// product of two f32; quotients and square roots of f32 computed in double
/// and rounded to f32 are correctly rounded too), so it equals what the
/// compiled op computes. Integer arithmetic is left to foldIntBinary and the
/// ops' folders (overflow, division by zero).
static Attribute evaluateArithmetic(Operation *op, ArrayRef<HostValues> ins,
                                    RankedTensorType resultType) {
  Type elem = resultType.getElementType();
  bool floatResult = elem.isF32() || elem.isF64();
  auto floatIns = [&] {
    return llvm::all_of(ins, [&](const HostValues &v) {
      return v.type.getElementType() == elem;
    });
  };
  auto round = [&](double d) -> double {
    return elem.isF32() ? static_cast<double>(static_cast<float>(d)) : d;
  };
  if (floatResult && floatIns() && ins.size() == 1 &&
      isa<NegOp, AbsOp, CeilOp, FloorOp, RoundOp, SqrtOp, ReluOp>(op)) {
    HostValues r = empty(resultType);
    for (double x : ins[0].floats) {
      double y = isa<NegOp>(op)     ? -x
                 : isa<AbsOp>(op)   ? std::fabs(x)
                 : isa<CeilOp>(op)  ? std::ceil(x)
                 : isa<FloorOp>(op) ? std::floor(x)
                 : isa<RoundOp>(op) ? std::nearbyint(x)
                 : isa<SqrtOp>(op)  ? std::sqrt(x)
                                    : (x > 0 ? x : 0.0);
      r.floats.push_back(round(y));
    }
    return toAttr(r);
  }
  if (floatResult && floatIns() && ins.size() == 2 &&
      isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp>(op)) {
    auto r = broadcast3(
        {&ins[0], &ins[1]}, elem, [&](HostValues &out, ArrayRef<int64_t> o) {
          double x = ins[0].floats[o[0]], y = ins[1].floats[o[1]];
          double z = isa<AddOp>(op)                   ? x + y
                     : isa<SubOp>(op)                 ? x - y
                     : isa<MulOp>(op)                 ? x * y
                     : isa<DivOp>(op)                 ? x / y
                     : std::isnan(x) || std::isnan(y) ? std::nan("")
                     : isa<MaximumOp>(op)             ? std::max(x, y)
                                                      : std::min(x, y);
          out.floats.push_back(round(z));
        });
    if (!r || r->type != resultType)
      return {};
    return toAttr(*r);
  }
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    Type in = ins[0].type.getElementType();
    if (!(in.isF32() || in.isF64() || in.isSignlessInteger(64)))
      return {};
    auto r = broadcast3(
        {&ins[0], &ins[1]}, elem, [&](HostValues &out, ArrayRef<int64_t> o) {
          double x = ins[0].at(o[0]), y = ins[1].at(o[1]);
          bool v = false;
          if (!ins[0].isFloat()) { // exact comparison of int64 values
            int64_t a = ins[0].ints[o[0]], b = ins[1].ints[o[1]];
            x = a < b ? -1 : a > b ? 1 : 0;
            y = 0;
          }
          switch (cmp.getPredicate()) {
          case CmpPredicate::eq:
            v = x == y;
            break;
          case CmpPredicate::ne:
            v = x != y;
            break;
          case CmpPredicate::lt:
            v = x < y;
            break;
          case CmpPredicate::le:
            v = x <= y;
            break;
          case CmpPredicate::gt:
            v = x > y;
            break;
          case CmpPredicate::ge:
            v = x >= y;
            break;
          }
          out.ints.push_back(v);
        });
    if (!r || r->type != resultType)
      return {};
    return toAttr(*r);
  }
  if (isa<SelectOp>(op) && ins.size() == 3) {
    auto r = broadcast3({&ins[0], &ins[1], &ins[2]}, elem,
                        [&](HostValues &out, ArrayRef<int64_t> o) {
                          bool c = ins[0].ints[o[0]] != 0;
                          push(out, c ? ins[1] : ins[2], c ? o[1] : o[2]);
                        });
    if (!r || r->type != resultType)
      return {};
    return toAttr(*r);
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    ArrayRef<int64_t> in = ins[0].type.getShape(), out = resultType.getShape();
    Shape inStrides = stridesOf(in);
    int64_t rank = out.size();
    HostValues r = empty(resultType);
    SmallVector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < resultType.getNumElements(); ++k) {
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat += index[d] * inStrides[perm[d]];
      push(r, ins[0], flat);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < out[d])
          break;
        index[d] = 0;
      }
    }
    return toAttr(r);
  }
  // Maxima and minima of floats and of int64 (exact; sums and products are
  // not folded here: their rounding depends on the order the code adds in).
  bool isMax = isa<ReduceMaxOp>(op), isMin = isa<ReduceMinOp>(op);
  if ((isMax || isMin) && (floatResult || elem.isSignlessInteger(64)) &&
      floatIns()) {
    SmallVector<int64_t> axes = isMax
                                    ? cast<ReduceMaxOp>(op).getNormalizedAxes()
                                    : cast<ReduceMinOp>(op).getNormalizedAxes();
    ArrayRef<int64_t> in = ins[0].type.getShape();
    int64_t rank = in.size();
    // The result's row-major index of each input element (reduced axes
    // dropped; keepdims only changes the type).
    Shape kept;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(axes, d))
        kept.push_back(in[d]);
    Shape keptStrides = stridesOf(kept);
    int64_t count = resultType.getNumElements();
    std::vector<double> acc(count);
    std::vector<int64_t> accInt(count);
    std::vector<bool> seen(count, false);
    SmallVector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < ins[0].size(); ++k) {
      int64_t o = 0;
      for (int64_t d = 0, j = 0; d < rank; ++d)
        if (!llvm::is_contained(axes, d))
          o += index[d] * keptStrides[j++];
      if (ins[0].isFloat()) {
        double x = ins[0].floats[k];
        if (!seen[o])
          acc[o] = x;
        else if (std::isnan(x) || std::isnan(acc[o]))
          acc[o] = std::nan("");
        else
          acc[o] = isMax ? std::max(acc[o], x) : std::min(acc[o], x);
      } else {
        int64_t x = ins[0].ints[k];
        accInt[o] = !seen[o] ? x
                    : isMax  ? std::max(accInt[o], x)
                             : std::min(accInt[o], x);
      }
      seen[o] = true;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < in[d])
          break;
        index[d] = 0;
      }
    }
    // An empty reduction has no maximum or minimum: left to the op.
    if (llvm::is_contained(seen, false))
      return {};
    HostValues r = empty(resultType);
    if (ins[0].isFloat())
      r.floats = std::move(acc);
    else
      r.ints = std::move(accInt);
    return toAttr(r);
  }
  return {};
}

/// Evaluates the tide ops importing creates for shape subgraphs (reshape,
/// broadcast_to, cast, concat, and the arithmetic above) on small constants;
/// other ops use their folders.
static Attribute evaluateOp(Operation *op, ArrayRef<Attribute> operands) {
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape() ||
      !smallCount(resultType.getShape()))
    return {};
  SmallVector<HostValues> ins;
  for (Attribute a : operands) {
    auto e = dyn_cast<ElementsAttr>(a);
    auto v = e ? readHostValues(e, kFoldLimit) : std::nullopt;
    if (!v)
      return {};
    ins.push_back(*v);
  }
  if (isa<ReshapeOp>(op)) {
    HostValues r = ins[0];
    r.type = resultType;
    return toAttr(r);
  }
  if (isa<BroadcastToOp>(op)) {
    HostValues target = empty(resultType);
    target.ints.assign(resultType.getNumElements(), 0);
    target.floats.assign(resultType.getNumElements(), 0);
    auto r = broadcast3(
        {&ins[0], &target}, resultType.getElementType(),
        [&](HostValues &out, ArrayRef<int64_t> o) { push(out, ins[0], o[0]); });
    return r ? Attribute(toAttr(*r)) : Attribute();
  }
  if (isa<CastOp>(op)) {
    HostValues r = empty(resultType);
    Type to = resultType.getElementType();
    bool fromUnsigned = ins[0].type.getElementType().isUnsignedInteger();
    for (int64_t i = 0; i < ins[0].size(); ++i) {
      if (!ins[0].isFloat() && isa<FloatType>(to)) {
        // An integer rounded once to the target type (through a double it
        // would round twice past 2^53); uint64 past 2^63 as unsigned.
        APFloat f(cast<FloatType>(to).getFloatSemantics());
        f.convertFromAPInt(APInt(64, uint64_t(ins[0].ints[i])), !fromUnsigned,
                           APFloat::rmNearestTiesToEven);
        bool lost;
        f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        r.floats.push_back(f.convertToDouble());
        continue;
      }
      double d = ins[0].at(i);
      if (isa<FloatType>(to))
        r.floats.push_back(d);
      else if (to.isInteger(1))
        r.ints.push_back(ins[0].isFloat() ? d != 0 : ins[0].ints[i] != 0);
      else if (ins[0].isFloat()) {
        // Out of range the value is undefined (ONNX); folded to what the
        // run-time code computes (and ONNX Runtime: truncated toward zero
        // into an i32, or an i64 for 64-bit types, whose x86 conversion
        // gives the lowest value out of range and for NaN, then wrapped to
        // the type's width: 3e9 is INT32_MIN as int32, 0 as int16; 70000.5
        // is 4464 as int16).
        unsigned w = to.getIntOrFloatBitWidth();
        double t = std::trunc(d), limit = std::ldexp(1.0, w > 32 ? 63 : 31);
        int64_t lowest = w > 32 ? std::numeric_limits<int64_t>::min()
                                : std::numeric_limits<int32_t>::min();
        r.ints.push_back(std::isfinite(t) && t >= -limit && t < limit
                             ? static_cast<int64_t>(t)
                             : lowest);
      } else
        r.ints.push_back(ins[0].ints[i]);
    }
    return toAttr(r);
  }
  // Boolean logic and the floored modulo of int64 values: the conditions
  // ONNX functions compute from sizes (Attention's "Not(Equal(heads,
  // kv_heads)) And Equal(Mod(heads, kv_heads), 0)").
  bool intArgs =
      llvm::none_of(ins, [](const HostValues &v) { return v.isFloat(); });
  Type elem = resultType.getElementType();
  if (intArgs && isa<NotOp>(op) && elem.isInteger(1)) {
    HostValues r = empty(resultType);
    for (int64_t v : ins[0].ints)
      r.ints.push_back(v == 0);
    return toAttr(r);
  }
  if (intArgs && isa<AndOp, OrOp, XorOp>(op) && elem.isInteger(1)) {
    auto r = broadcast3({&ins[0], &ins[1]}, elem,
                        [&](HostValues &out, ArrayRef<int64_t> o) {
                          bool x = ins[0].ints[o[0]], y = ins[1].ints[o[1]];
                          out.ints.push_back(isa<AndOp>(op)  ? (x && y)
                                             : isa<OrOp>(op) ? (x || y)
                                                             : (x != y));
                        });
    return r ? Attribute(toAttr(*r)) : Attribute();
  }
  if (intArgs && isa<ModOp>(op) && elem.isSignlessInteger(64)) {
    auto r = broadcast3({&ins[0], &ins[1]}, elem,
                        [&](HostValues &out, ArrayRef<int64_t> o) {
                          int64_t x = ins[0].ints[o[0]], y = ins[1].ints[o[1]];
                          // tide.mod: by 0 is 0; INT64_MIN % -1 is 0.
                          int64_t m = (y == 0 || y == -1) ? 0 : x % y;
                          if (m != 0 && ((m < 0) != (y < 0)))
                            m += y;
                          out.ints.push_back(m);
                        });
    return r ? Attribute(toAttr(*r)) : Attribute();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // Split's pieces and Slice of shape constants: row-major over the
    // result, each index mapped back through start + i * stride.
    auto inType = cast<RankedTensorType>(slice.getInput().getType());
    ArrayRef<int64_t> start = slice.getStart(), strides = slice.getStrides();
    ArrayRef<int64_t> in = inType.getShape(), out = resultType.getShape();
    int64_t rank = out.size();
    if (!inType.hasStaticShape() ||
        static_cast<int64_t>(start.size()) != rank ||
        static_cast<int64_t>(strides.size()) != rank)
      return {};
    HostValues r = empty(resultType);
    SmallVector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < resultType.getNumElements(); ++k) {
      int64_t flat = 0;
      for (int64_t d = 0; d < rank; ++d)
        flat = flat * in[d] + start[d] + index[d] * strides[d];
      push(r, ins[0], flat);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < out[d])
          break;
        index[d] = 0;
      }
    }
    return toAttr(r);
  }
  if (Attribute a = evaluateArithmetic(op, ins, resultType))
    return a;
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    int64_t axis = concat.getAxis();
    if (axis < 0)
      axis += resultType.getRank();
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= resultType.getDimSize(i);
    HostValues r = empty(resultType);
    for (int64_t o = 0; o < outer; ++o)
      for (const HostValues &in : ins) {
        int64_t chunk = outer ? in.size() / outer : 0;
        for (int64_t k = 0; k < chunk; ++k)
          push(r, in, o * chunk + k);
      }
    return toAttr(r);
  }
  return {};
}

/// Folds a value computed only from constants.
static Attribute foldValue(Value v, int depth) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > 32 || op->getNumResults() != 1)
    return {};
  if (auto c = dyn_cast<ConstantOp>(op))
    return c.getValue();
  SmallVector<Attribute> operands;
  for (Value o : op->getOperands()) {
    Attribute a = foldValue(o, depth + 1);
    if (!a)
      return {};
    operands.push_back(a);
  }
  if (Attribute a = evaluateOp(op, operands))
    return a;
  SmallVector<OpFoldResult> results;
  if (failed(op->fold(operands, results)) ||
      results.size() != op->getNumResults())
    return {};
  OpFoldResult r = results[0];
  if (auto attr = dyn_cast<Attribute>(r))
    return attr;
  return foldValue(cast<Value>(r), depth + 1);
}

void onnx_import::foldConstantOutputs(NodeImporter &n) {
  for (unsigned i = 0; i < n.numOutputs(); ++i) {
    if (!n.wantsOutput(i))
      continue;
    Value v = n.outValue(i);
    if (!v)
      continue;
    auto attr = dyn_cast_or_null<DenseElementsAttr>(foldValue(v, 0));
    if (attr && attr.getType() == v.getType() &&
        smallCount(attr.getType().getShape()))
      n.setConstOut(i, attr);
  }
}
