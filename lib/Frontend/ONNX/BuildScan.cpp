//===- BuildScan.cpp - Loops and branches decided at run time ------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// ONNX ops that loop a number of times known only at run time (recurrent ops
// over a run-time sequence length, Scan over one, Loop with a run-time trip
// count or condition) become one tide.scan (a conditional one for a Loop
// whose condition is computed at run time). Converters build one step with the
// usual NodeImporter helpers inside the scan's block; what the step reads from
// outside becomes an invariant of the scan (the op is isolated from above),
// constants are copied in. The block's arguments share the run-time sizes of
// the values they stand for (GraphImporter::dimAliases), so sizes the step
// computes are the node's and materialize outside the loop.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/IR/Verifier.h"

#include <memory>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {
/// Names bound while a region's ops are built (a constant or a size
/// materialized the first time an op there reads it, the region's own
/// values, a body's inputs shadowing outer names) are names of that region:
/// bound as before again when it is done, so that an op after the region,
/// or in the other branch of an If, materializes its own rather than
/// reading one defined inside.
struct RegionScope {
  GraphImporter &graph;
  llvm::StringMap<Value> values;
  llvm::StringMap<ElementsAttr> constants;
  llvm::StringMap<ShapeValue> shapes;
  llvm::StringMap<Aggregate> aggregates;
  explicit RegionScope(GraphImporter &graph)
      : graph(graph), values(graph.values), constants(graph.constants),
        shapes(graph.shapes), aggregates(graph.aggregates) {}
  ~RegionScope() {
    graph.values = std::move(values);
    graph.constants = std::move(constants);
    graph.shapes = std::move(shapes);
    graph.aggregates = std::move(aggregates);
  }
};
} // namespace

ScanOp onnx_import::buildScan(
    NodeImporter &n, ValueRange inits, ValueRange sequences, bool reverse,
    bool conditional,
    function_ref<FailureOr<SmallVector<Value>>(Value, ValueRange, ValueRange)>
        step) {
  if (llvm::any_of(inits, [](Value v) { return !v; }) ||
      llvm::any_of(sequences, [](Value v) { return !v; }))
    return {};
  GraphImporter &graph = n.graphImporter();
  auto body = std::make_unique<Block>();
  Value position =
      body->addArgument(RankedTensorType::get({}, n.b.getI64Type()), n.loc);
  // The block's arguments have the run-time sizes of what they stand for
  // (a slice: its sequence's, without the leading axis).
  auto alias = [&](Value arg, Value outer, int64_t shift) {
    auto type = cast<RankedTensorType>(arg.getType());
    for (int64_t a = 0; a < type.getRank(); ++a)
      if (type.isDynamicDim(a))
        graph.dimAliases[{arg, a}] = graph.rootOf(outer, a + shift);
  };
  SmallVector<Value> states, slices;
  for (Value init : inits) {
    states.push_back(body->addArgument(init.getType(), n.loc));
    alias(states.back(), init, 0);
  }
  for (Value seq : sequences) {
    auto type = cast<RankedTensorType>(seq.getType());
    if (type.getRank() == 0) {
      (void)n.fail("a loop over a scalar (a sequence needs an axis)");
      return {};
    }
    slices.push_back(
        body->addArgument(RankedTensorType::get(type.getShape().drop_front(),
                                                type.getElementType()),
                          n.loc));
    alias(slices.back(), seq, 1);
  }
  SmallVector<Value> yields;
  {
    RegionScope scope(graph);
    OpBuilder::InsertionGuard guard(n.b);
    n.b.setInsertionPointToStart(body.get());
    FailureOr<SmallVector<Value>> built = step(position, states, slices);
    if (failed(built) || llvm::any_of(*built, [](Value v) { return !v; }))
      return {};
    yields = std::move(*built);
    if (yields.size() < inits.size()) {
      (void)n.fail("a loop's step returns fewer values than it has states");
      return {};
    }
    for (auto [k, init] : llvm::enumerate(inits)) {
      // A state the step computes with one size known only at run time
      // where the state's is static (a slice whose bounds come from the
      // iteration number, as the body's declared types promise): reshaped
      // to the state's type, which checks that size when the loop runs.
      auto got = cast<RankedTensorType>(yields[k].getType());
      auto want = cast<RankedTensorType>(init.getType());
      if (got != want && got.getRank() == want.getRank() &&
          got.getElementType() == want.getElementType() &&
          want.hasStaticShape()) {
        int64_t differ = 0;
        bool compatible = true;
        for (int64_t d = 0; d < got.getRank(); ++d)
          if (got.getDimSize(d) != want.getDimSize(d)) {
            ++differ;
            compatible &= got.isDynamicDim(d);
          }
        if (compatible && differ == 1)
          if (Value v = n.make<ReshapeOp>(want, yields[k]))
            yields[k] = v;
      }
      if (yields[k].getType() != init.getType()) {
        std::string gotText, wantText;
        llvm::raw_string_ostream(gotText) << yields[k].getType();
        llvm::raw_string_ostream(wantText) << init.getType();
        // (A conditional loop's first state is its condition.)
        std::string what = conditional && k == 0
                               ? std::string("the condition")
                               : "loop-carried value " +
                                     std::to_string(conditional ? k - 1 : k);
        (void)n.fail(what + " changes its type from " + wantText + " to " +
                     gotText +
                     " in an iteration; a loop over a length known only at "
                     "run time carries values of one type");
        return {};
      }
    }
    YieldOp::create(n.b, n.loc, yields);
  }
  // What the step reads from outside: constants copied in, the rest passed
  // as invariants.
  // (Ops in nested regions read nothing from outside: tide.scan and
  // tide.if are isolated from above.)
  SmallVector<OpOperand *> outside;
  for (Operation &op : *body)
    for (OpOperand &use : op.getOpOperands())
      if (use.get().getParentBlock() != body.get())
        outside.push_back(&use);
  SmallVector<Value> invariants;
  llvm::DenseMap<Value, Value> inner;
  {
    OpBuilder::InsertionGuard guard(n.b);
    n.b.setInsertionPointToStart(body.get());
    for (OpOperand *use : outside) {
      Value v = use->get();
      Value &in = inner[v];
      if (!in) {
        if (auto cst = v.getDefiningOp<ConstantOp>()) {
          in = n.b.clone(*cst)->getResult(0);
        } else {
          in = body->addArgument(v.getType(), n.loc);
          invariants.push_back(v);
        }
      }
      use->set(in);
    }
  }
  // The stacked outputs' leading size: the sequences' static length, if any
  // (a conditional loop may stop before it).
  int64_t length = ShapedType::kDynamic;
  for (Value seq : sequences)
    if (auto type = cast<RankedTensorType>(seq.getType());
        !type.isDynamicDim(0) && !conditional)
      length = type.getDimSize(0);
  SmallVector<Type> resultTypes(inits.getTypes());
  for (Value y : ArrayRef<Value>(yields).drop_front(inits.size())) {
    auto type = cast<RankedTensorType>(y.getType());
    SmallVector<int64_t> shape = {length};
    llvm::append_range(shape, type.getShape());
    resultTypes.push_back(type.clone(shape));
  }
  auto scan =
      ScanOp::create(n.b, n.loc, resultTypes, inits, sequences, invariants,
                     reverse ? n.b.getUnitAttr() : UnitAttr(),
                     conditional ? n.b.getUnitAttr() : UnitAttr());
  scan.getBody().push_back(body.release());
  if (failed(verify(scan))) {
    scan->erase();
    return {};
  }
  return scan;
}

IfOp onnx_import::buildIf(
    NodeImporter &n, Value cond,
    function_ref<FailureOr<SmallVector<Value>>(bool)> branch) {
  if (!cond)
    return {};
  std::unique_ptr<Block> blocks[2] = {std::make_unique<Block>(),
                                      std::make_unique<Block>()};
  SmallVector<Value> yields[2];
  for (int k = 0; k < 2; ++k) {
    RegionScope scope(n.graphImporter());
    OpBuilder::InsertionGuard guard(n.b);
    n.b.setInsertionPointToStart(blocks[k].get());
    FailureOr<SmallVector<Value>> built = branch(k == 0);
    if (failed(built) || llvm::any_of(*built, [](Value v) { return !v; }))
      return {};
    yields[k] = std::move(*built);
  }
  if (yields[0].size() != yields[1].size()) {
    (void)n.fail("its branches give different numbers of outputs");
    return {};
  }
  // Each result: the element type and rank of both branches' outputs, a
  // size static where both have it static and equal.
  SmallVector<Type> resultTypes;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(yields[0], yields[1]))) {
    auto t = cast<RankedTensorType>(std::get<0>(pair).getType());
    auto e = cast<RankedTensorType>(std::get<1>(pair).getType());
    if (t.getElementType() != e.getElementType() ||
        t.getRank() != e.getRank()) {
      std::string tText, eText;
      llvm::raw_string_ostream(tText) << t;
      llvm::raw_string_ostream(eText) << e;
      (void)n.fail("output " + std::to_string(i) +
                   " has different element types or ranks in the two "
                   "branches (" +
                   tText + " and " + eText +
                   "); Tide gives an If's output one element type and rank");
      return {};
    }
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < t.getRank(); ++d)
      shape.push_back(t.getDimSize(d) == e.getDimSize(d)
                          ? t.getDimSize(d)
                          : ShapedType::kDynamic);
    resultTypes.push_back(t.clone(shape));
  }
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(n.b);
    n.b.setInsertionPointToEnd(blocks[k].get());
    YieldOp::create(n.b, n.loc, yields[k]);
  }
  // What the branches read from outside: constants copied in, the rest
  // passed as invariants (an argument of both blocks). Ops in nested
  // regions read nothing from outside (tide.scan and tide.if are isolated
  // from above).
  SmallVector<OpOperand *> outside[2];
  SmallVector<Value> invariants;
  llvm::DenseMap<Value, unsigned> argOf;
  for (int k = 0; k < 2; ++k)
    for (Operation &op : *blocks[k])
      for (OpOperand &use : op.getOpOperands()) {
        Value v = use.get();
        if (v.getParentBlock() == blocks[k].get())
          continue;
        outside[k].push_back(&use);
        if (!v.getDefiningOp<ConstantOp>() &&
            argOf.try_emplace(v, invariants.size()).second)
          invariants.push_back(v);
      }
  for (int k = 0; k < 2; ++k) {
    Block *block = blocks[k].get();
    for (Value v : invariants)
      block->addArgument(v.getType(), n.loc);
    llvm::DenseMap<Value, Value> copies;
    for (OpOperand *use : outside[k]) {
      Value v = use->get();
      if (auto cst = v.getDefiningOp<ConstantOp>()) {
        Value &copy = copies[v];
        if (!copy) {
          OpBuilder::InsertionGuard guard(n.b);
          n.b.setInsertionPointToStart(block);
          copy = n.b.clone(*cst)->getResult(0);
        }
        use->set(copy);
        continue;
      }
      use->set(block->getArgument(argOf[v]));
    }
  }
  auto op = IfOp::create(n.b, n.loc, resultTypes, cond, invariants);
  op.getThenRegion().push_back(blocks[0].release());
  op.getElseRegion().push_back(blocks[1].release());
  if (failed(verify(op))) {
    op->erase();
    return {};
  }
  return op;
}
