//===- StreamStores.cpp - Large host results by non-temporal vector stores ===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A loop that writes a result it never reads, with ordinary stores, reads
// every line of the result into the cache before overwriting it (read for
// ownership): the result's bytes cross the memory bus twice. Non-temporal
// stores write whole lines without reading them, but x86 has them only for
// vectors at their own alignment, and LLVM's loop vectorizer leaves a loop
// with non-temporal scalar stores scalar. So such loops are vectorized here:
//
//   for j in [lb, ub): out[i, j] = f(a[i, j], s)
//
// becomes
//
//   for j in [lb, start): out[i, j] = f(a[i, j], s)     // to the alignment
//   for j in [start, end) step L:                        // L lanes
//     vector.store f(vector.load a[i, j], broadcast s), out[i, j]
//         {nontemporal, alignment}
//   for j in [end, ub): out[i, j] = f(a[i, j], s)
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "BufferOrigins.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tide {
#define GEN_PASS_DEF_STREAMSTORESPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Bytes of a scalar element type (0 when it is not a whole number of bytes
/// or not an integer or float).
int64_t elementBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return type.getIntOrFloatBitWidth() / 8;
}

/// Whether values of `type` are computed here as they are in vectors: f32,
/// f64 and integers (f16 and bf16 are emulated in f32 later, element by
/// element, with their own rounding: left to the scalar code).
bool vectorElement(Type type) {
  return type.isF32() || type.isF64() || isa<IntegerType>(type);
}

/// Whether `type` is a memref whose innermost dimension has unit stride.
bool unitInnerStride(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() == 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// The `math` operations that become vector instructions: those that map
/// to them as they are, and f32 exp and expm1, which tide-expand-host-exp
/// computes inline on vectors as on scalars (others, log and tanh among
/// them, would be called per element).
bool vectorMathOp(Operation *op) {
  if (isa<math::ExpOp, math::ExpM1Op>(op))
    return op->getResult(0).getType().isF32();
  return isa<math::FmaOp, math::SqrtOp, math::RsqrtOp, math::AbsFOp,
             math::AbsIOp, math::CopySignOp, math::FloorOp, math::CeilOp,
             math::TruncOp, math::RoundEvenOp>(op);
}

/// Whether a buffer is only written in the function, never read: every user
/// of the allocation and of its views is a view, a store into it (`store`,
/// or another: the chunks of a loop and the rest after them store into one
/// result), a return or a deallocation.
bool onlyWritten(Value root) {
  SmallVector<Value> work = {root};
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && store.getValueToStore() != value)
        continue;
      if (auto store = dyn_cast<vector::StoreOp>(user);
          store && store.getValueToStore() != value)
        continue;
      if (isa<func::ReturnOp, memref::DeallocOp>(user))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        for (Value result : user->getResults())
          work.push_back(result);
        continue;
      }
      return false;
    }
  }
  return true;
}

/// An innermost loop that can be streamed.
struct Candidate {
  scf::ForOp loop;
  memref::StoreOp store;
};

/// Whether `loop` is an innermost loop of step 1 that stores one row of a
/// large result that nothing else touches, computed by loads at the loop's
/// index, loads from outside it and vectorizable arithmetic.
std::optional<Candidate> match(scf::ForOp loop, int64_t minBytes) {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step != 1 || !loop.getInitArgs().empty())
    return std::nullopt;
  Value iv = loop.getInductionVar();
  auto outside = [&](Value value) {
    return !loop->isAncestor(value.getParentRegion()->getParentOp());
  };
  // Loads and stores: the loop's index innermost, the rest from outside.
  auto rowAccess = [&](Value memref, ValueRange indices) {
    return !indices.empty() && indices.back() == iv &&
           unitInnerStride(memref.getType()) &&
           llvm::all_of(indices.drop_back(), outside);
  };
  memref::StoreOp store;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      if (store || !rowAccess(s.getMemRef(), s.getIndices()) ||
          !outside(s.getMemRef()))
        return std::nullopt;
      store = s;
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      if (!outside(load.getMemRef()) || !elementBytes(load.getType()) ||
          !vectorElement(load.getType()))
        return std::nullopt;
      if (llvm::all_of(load.getIndices(), outside))
        continue;
      if (!rowAccess(load.getMemRef(), load.getIndices()))
        return std::nullopt;
      continue;
    }
    // Arithmetic on scalars that LLVM emits as vector instructions.
    bool arithmetic =
        isa<arith::ArithDialect>(op.getDialect()) || vectorMathOp(&op);
    if (!arithmetic || op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        !op.hasTrait<OpTrait::Elementwise>() || op.getNumResults() != 1)
      return std::nullopt;
    for (Type type :
         llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes()))
      if (!vectorElement(type))
        return std::nullopt; // index values stay scalar
    if (llvm::is_contained(op.getOperands(), iv))
      return std::nullopt;
  }
  if (!store || !elementBytes(store.getValueToStore().getType()) ||
      !vectorElement(store.getValueToStore().getType()))
    return std::nullopt;
  // The result: an allocation of its own, large, written only here.
  Value root = rootOf(store.getMemRef());
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape())
    return std::nullopt;
  int64_t bytes = alloc.getType().getNumElements() *
                  elementBytes(alloc.getType().getElementType());
  if (bytes < minBytes || !onlyWritten(root))
    return std::nullopt;
  return Candidate{loop, store};
}

/// Rewrites `c.loop` into its scalar iterations up to the first aligned
/// element, vector iterations with streamed stores, and the rest.
void stream(OpBuilder &b, Candidate c, int64_t vectorBytes) {
  scf::ForOp loop = c.loop;
  Location loc = loop.getLoc();
  Value iv = loop.getInductionVar();
  Type stored = c.store.getValueToStore().getType();
  int64_t size = elementBytes(stored);
  int64_t lanes = vectorBytes / size;
  b.setInsertionPoint(loop);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The address of the row's element at the lower bound.
  Value memref = c.store.getMemRef();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value element = metadata.getOffset();
  auto strides = metadata.getStrides();
  ValueRange indices = c.store.getIndices();
  for (unsigned d = 0; d + 1 < indices.size(); ++d)
    element = arith::AddIOp::create(
        b, loc, element, arith::MulIOp::create(b, loc, indices[d], strides[d]));
  element = arith::AddIOp::create(b, loc, element, loop.getLowerBound());
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, element, constant(size)));
  // Scalar iterations to the alignment: (V - address % V) % V bytes.
  Value vector = constant(vectorBytes);
  Value misaligned = arith::RemUIOp::create(b, loc, address, vector);
  Value peelBytes = arith::RemUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, vector, misaligned), vector);
  Value peel = arith::DivUIOp::create(b, loc, peelBytes, constant(size));
  Value count = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getUpperBound(), loop.getLowerBound()),
      constant(0));
  peel = arith::MinUIOp::create(b, loc, peel, count);
  Value start = arith::AddIOp::create(b, loc, loop.getLowerBound(), peel);
  Value rest = arith::SubIOp::create(b, loc, count, peel);
  Value whole = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, rest, constant(lanes)).getResult(),
      constant(lanes));
  Value end = arith::AddIOp::create(b, loc, start, whole);

  // The scalar iterations: the loop itself, cut in two around the vector
  // ones.
  auto head = cast<scf::ForOp>(b.clone(*loop));
  head.getUpperBoundMutable().assign(start);

  // The vector iterations, when there are any: what does not depend on the
  // index once before the loop (loads from outside it read nothing the
  // loop writes: the result is written only here), then the loop.
  auto any =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, start, end);
  auto guard = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
  b.setInsertionPointToStart(guard.thenBlock());
  llvm::SetVector<Value> varying;
  varying.insert(iv);
  IRMapping scalars;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == c.store.getOperation())
      continue;
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); })) {
      varying.insert(op.getResult(0));
      continue;
    }
    b.clone(op, scalars);
  }
  auto body = scf::ForOp::create(b, loc, start, end, constant(lanes));
  b.setInsertionPointToStart(body.getBody());
  Value j = body.getInductionVar();
  DenseMap<Value, Value> vectors, broadcasts;
  auto vectorOf = [&](Value scalar) -> Value {
    if (Value v = vectors.lookup(scalar))
      return v;
    Value &v = broadcasts[scalar];
    if (!v) {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(body);
      v = vector::BroadcastOp::create(
          b, loc, VectorType::get({lanes}, scalar.getType()),
          scalars.lookupOrDefault(scalar));
    }
    return v;
  };
  auto rowIndices = [&](ValueRange indices) {
    SmallVector<Value> out(indices.begin(), indices.end());
    out.back() = j;
    return out;
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op != c.store.getOperation() && !varying.contains(op.getResult(0)))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      vectors[load.getResult()] = vector::LoadOp::create(
          b, loc, VectorType::get({lanes}, load.getType()), load.getMemRef(),
          rowIndices(load.getIndices()));
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto vstore = vector::StoreOp::create(
          b, loc, vectorOf(store.getValueToStore()), store.getMemRef(),
          rowIndices(store.getIndices()));
      vstore.setNontemporal(true);
      vstore.setAlignment(vectorBytes);
      continue;
    }
    OperationState state(op.getLoc(), op.getName());
    for (Value operand : op.getOperands())
      state.addOperands(vectorOf(operand));
    state.addTypes(VectorType::get({lanes}, op.getResult(0).getType()));
    state.addAttributes(op.getAttrs());
    vectors[op.getResult(0)] = b.create(state)->getResult(0);
  }

  // The rest, scalar.
  b.setInsertionPointAfter(guard);
  auto tail = cast<scf::ForOp>(b.clone(*loop));
  tail.getLowerBoundMutable().assign(end);
  loop.erase();
}

struct StreamStoresPass
    : public tide::impl::StreamStoresPassBase<StreamStoresPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (minBytes < 0 ||
        (vectorBytes != 16 && vectorBytes != 32 && vectorBytes != 64)) {
      func.emitError() << "tide-stream-stores: invalid 'min-bytes' "
                       << static_cast<int64_t>(minBytes)
                       << " or 'vector-bytes' "
                       << static_cast<int64_t>(vectorBytes)
                       << "; expected a non-negative size and 16, 32 or 64";
      return signalPassFailure();
    }
    if (minBytes == 0)
      return;
    SmallVector<Candidate> candidates;
    func.walk([&](scf::ForOp loop) {
      bool innermost = true;
      for (Operation &op : loop.getBody()->without_terminator())
        innermost &= op.getNumRegions() == 0;
      if (innermost)
        if (std::optional<Candidate> c = match(loop, minBytes))
          if (elementBytes(c->store.getValueToStore().getType()) <= vectorBytes)
            candidates.push_back(*c);
    });
    // The outermost operations of the function holding streamed loops: an
    // sfence after each (placed first: a loop at the top is replaced).
    llvm::SetVector<Operation *> outermost;
    for (Candidate &c : candidates) {
      Operation *top = c.loop;
      while (top->getParentOp() != func)
        top = top->getParentOp();
      outermost.insert(top);
    }
    OpBuilder b(&getContext());
    for (Operation *top : outermost) {
      b.setInsertionPointAfter(top);
      LLVM::CallIntrinsicOp::create(b, top->getLoc(),
                                    b.getStringAttr("llvm.x86.sse.sfence"),
                                    ValueRange{});
    }
    for (Candidate &c : candidates)
      stream(b, c, vectorBytes);
  }
};

} // namespace
