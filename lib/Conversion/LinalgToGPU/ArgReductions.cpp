//===- ArgReductions.cpp - argmax/argmin on the GPU -----------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Arg-reductions (argmax/argmin) are block-parallel like other reductions,
// on the same emitter (emitBlockReduction): each thread's best element and
// its first index, then two gpu.all_reduce (the value, then the smallest
// index holding it), split over blocks the same way.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

/// Arg-reductions (argmax/argmin as convert-tide-to-linalg writes them: a
/// value and an index accumulator, the first element always taken, then a
/// strict comparison) run in parallel like other reductions. Each thread
/// keeps its best element and the first index of it; the block reduces
/// the values with gpu.all_reduce (NaN-propagating for floats: the first
/// NaN is the result, as in NumPy), then the indices of the threads that
/// hold that value with a second one (min). False when the payload has
/// another shape.
bool gpu_lowering::lowerArgReduction(KernelBuilder &kernels,
                                     linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 2 || op.getNumReductionLoops() != 1)
    return false;
  Block *block = op.getBlock();
  BlockArgument acc = op.getRegionOutputArgs()[0];
  BlockArgument accIdx = op.getRegionOutputArgs()[1];
  auto yield = cast<linalg::YieldOp>(block->getTerminator());
  auto selValue = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto selIndex = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!selValue || !selIndex ||
      selValue.getCondition() != selIndex.getCondition() ||
      selValue.getFalseValue() != acc || selIndex.getFalseValue() != accIdx)
    return false;
  Value x = selValue.getTrueValue();
  auto cast = selIndex.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto indexOp = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : nullptr;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (!indexOp || iters[indexOp.getDim()] != utils::IteratorType::reduction)
    return false;
  auto orOp = selValue.getCondition().getDefiningOp<arith::OrIOp>();
  if (!orOp)
    return false;
  // One side is idx == 0, the other the comparison: for integers
  // `x > acc` (or <); for floats `ord(acc) & (x > acc | isnan(x))`, NaN
  // being the extreme (NumPy's rule).
  auto isFirstCheck = [&](Value v) {
    auto cmp = v.getDefiningOp<arith::CmpIOp>();
    return cmp && cmp.getPredicate() == arith::CmpIPredicate::eq &&
           cmp.getLhs() == cast.getResult() &&
           matchPattern(cmp.getRhs(), m_Zero());
  };
  // The operands of a commutative `OpTy` on v, the one that satisfies
  // `first` first.
  auto operandsOf = [](auto opTag, Value v, function_ref<bool(Value)> first)
      -> std::optional<std::pair<Value, Value>> {
    using OpTy = decltype(opTag);
    auto op = v.getDefiningOp<OpTy>();
    if (!op)
      return std::nullopt;
    if (first(op.getLhs()))
      return std::make_pair(op.getLhs(), op.getRhs());
    if (first(op.getRhs()))
      return std::make_pair(op.getRhs(), op.getLhs());
    return std::nullopt;
  };
  auto top = operandsOf(arith::OrIOp(), selValue.getCondition(), isFirstCheck);
  if (!top)
    return false;
  Value better = top->second;
  bool isMax, isFloat = isa<FloatType>(x.getType());
  auto comparesToAcc = [&](Operation *o) {
    return o && o->getNumOperands() == 2 && o->getOperand(0) == x &&
           o->getOperand(1) == acc;
  };
  if (isFloat) {
    auto isCheck = [&](Value v, arith::CmpFPredicate pred, Value operand) {
      auto cmp = v.getDefiningOp<arith::CmpFOp>();
      return cmp && cmp.getPredicate() == pred && cmp.getLhs() == operand &&
             cmp.getRhs() == operand;
    };
    auto conj = operandsOf(arith::AndIOp(), better, [&](Value v) {
      return isCheck(v, arith::CmpFPredicate::ORD, acc);
    });
    if (!conj)
      return false;
    auto disj = operandsOf(arith::OrIOp(), conj->second, [&](Value v) {
      return isCheck(v, arith::CmpFPredicate::UNO, x);
    });
    if (!disj)
      return false;
    auto cmpf = disj->second.getDefiningOp<arith::CmpFOp>();
    if (!comparesToAcc(cmpf))
      return false;
    if (cmpf.getPredicate() == arith::CmpFPredicate::OGT)
      isMax = true;
    else if (cmpf.getPredicate() == arith::CmpFPredicate::OLT)
      isMax = false;
    else
      return false;
  } else {
    auto cmpi = better.getDefiningOp<arith::CmpIOp>();
    if (!comparesToAcc(cmpi))
      return false;
    if (cmpi.getPredicate() == arith::CmpIPredicate::sgt)
      isMax = true;
    else if (cmpi.getPredicate() == arith::CmpIPredicate::slt)
      isMax = false;
    else
      return false;
  }
  // The ops that compute x, which must not read the accumulators.
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work{x};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == acc || v == accIdx)
      return false;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !slice.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
    // Values its regions read from the block (a gather's guarded load in
    // an scf.if reads the clamped index computed before it).
    llvm::SetVector<Value> captured;
    for (Region &region : def->getRegions())
      getUsedValuesDefinedAbove(region, captured);
    llvm::append_range(work, captured);
  }
  Type valueType = x.getType();
  Type indexType = accIdx.getType();
  if (!isa<IntegerType>(indexType) || !isa<IntegerType, FloatType>(valueType) ||
      isFloat != isa<FloatType>(valueType))
    return false;
  // Both results are stored once per output: their maps must not read the
  // reduced dim.
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init).isFunctionOfDim(indexOp.getDim()))
      return false;
  Type accType = accumulatorType(valueType);
  using K = gpu::AllReduceOperation;
  K kind = isFloat ? (isMax ? K::MAXIMUMF : K::MINIMUMF)
                   : (isMax ? K::MAXSI : K::MINSI);

  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> sizes = loopSizes(b, op);
  SmallVector<Value> pSizes, rSizes;
  std::tie(pSizes, rSizes) = splitSizes(sizes, iters);
  Value p = product(b, loc, pSizes), r = rSizes.front();
  Type i64 = b.getI64Type();
  // x at reduced position rIv, in the accumulator type.
  auto elementAt = [&](OpBuilder &lb, ArrayRef<Value> pIvs, Value rIv) {
    SmallVector<Value> ivs = mergeIvs(iters, pIvs, rIv);
    IRMapping mapping;
    loadOperands(lb, loc, op, ivs, mapping, /*inits=*/false);
    for (Operation &inner : block->without_terminator()) {
      if (!slice.contains(&inner))
        continue;
      if (auto idx = dyn_cast<linalg::IndexOp>(inner))
        mapping.map(idx.getResult(), ivs[idx.getDim()]);
      else
        lb.clone(inner, mapping);
    }
    return convertTo(lb, loc, mapping.lookupOrDefault(x), accType, false);
  };
  auto none = [&](OpBuilder &kb) {
    return arith::ConstantOp::create(kb, loc, kb.getI64IntegerAttr(-1));
  };
  auto i64Of = [&](OpBuilder &kb, Value v) -> Value {
    return arith::IndexCastUIOp::create(kb, loc, i64, v);
  };
  // Whether (v, i) replaces (best, bestIdx) in a fold in increasing order:
  // the first element, a strictly better one, or (floats) the first NaN.
  auto takes = [&](OpBuilder &lb, Value v, Value best, Value bestIdx) {
    Value empty = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::eq,
                                        bestIdx, none(lb));
    if (!isFloat)
      return arith::OrIOp::create(
                 lb, loc, empty,
                 arith::CmpIOp::create(lb, loc,
                                       isMax ? arith::CmpIPredicate::sgt
                                             : arith::CmpIPredicate::slt,
                                       v, best))
          .getResult();
    Value strict = arith::CmpFOp::create(
        lb, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        v, best);
    Value vNaN =
        arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::UNO, v, v);
    Value bestOrdered =
        arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::ORD, best, best);
    return arith::AndIOp::create(
               lb, loc, bestOrdered,
               arith::OrIOp::create(
                   lb, loc, empty, arith::OrIOp::create(lb, loc, strict, vNaN)))
        .getResult();
  };
  // A thread's (best, first index of it) over start, start + step, ...
  // below end, four elements per iteration (their loads issued together:
  // one load in flight per thread cannot keep up with HBM), then the rest.
  auto fold = [&](OpBuilder &kb, Value start, Value end, Value step,
                  function_ref<std::pair<Value, Value>(OpBuilder &, Value)>
                      at) {
    constexpr int64_t kUnroll = 4;
    Value zero = index(kb, loc, 0), one = index(kb, loc, 1);
    Value span = arith::SelectOp::create(
        kb, loc,
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, start, end),
        arith::SubIOp::create(kb, loc, end, start), zero);
    Value count = arith::CeilDivUIOp::create(kb, loc, span, step);
    Value full =
        arith::DivUIOp::create(kb, loc, count, index(kb, loc, kUnroll));
    auto step1 = [&](OpBuilder &lb, std::pair<Value, Value> vi, Value best,
                     Value bestIdx) {
      Value take = takes(lb, vi.first, best, bestIdx);
      return std::make_pair(
          arith::SelectOp::create(lb, loc, take, vi.first, best).getResult(),
          arith::SelectOp::create(lb, loc, take, vi.second, bestIdx)
              .getResult());
    };
    auto position = [&](OpBuilder &lb, Value j) -> Value {
      return arith::AddIOp::create(lb, loc, start,
                                   arith::MulIOp::create(lb, loc, j, step));
    };
    auto main = scf::ForOp::create(
        kb, loc, zero, full, one,
        ValueRange{identityOf(kb, loc, kind, accType), none(kb)});
    {
      OpBuilder lb = OpBuilder::atBlockBegin(main.getBody());
      Value j0 = arith::MulIOp::create(lb, loc, main.getInductionVar(),
                                       index(lb, loc, kUnroll));
      SmallVector<std::pair<Value, Value>> elements;
      for (int64_t u = 0; u < kUnroll; ++u)
        elements.push_back(
            at(lb, position(lb, arith::AddIOp::create(lb, loc, j0,
                                                      index(lb, loc, u)))));
      std::pair<Value, Value> acc{main.getRegionIterArgs()[0],
                                  main.getRegionIterArgs()[1]};
      for (auto &vi : elements)
        acc = step1(lb, vi, acc.first, acc.second);
      scf::YieldOp::create(lb, loc, ValueRange{acc.first, acc.second});
    }
    auto rest = scf::ForOp::create(
        kb, loc, arith::MulIOp::create(kb, loc, full, index(kb, loc, kUnroll)),
        count, one, main.getResults());
    {
      OpBuilder lb = OpBuilder::atBlockBegin(rest.getBody());
      auto acc =
          step1(lb, at(lb, position(lb, rest.getInductionVar())),
                rest.getRegionIterArgs()[0], rest.getRegionIterArgs()[1]);
      scf::YieldOp::create(lb, loc, ValueRange{acc.first, acc.second});
    }
    return std::make_pair(rest.getResult(0), rest.getResult(1));
  };
  // Equal values; NaN equals NaN.
  auto same = [&](OpBuilder &kb, Value v, Value w) -> Value {
    if (!isFloat)
      return arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, v, w);
    Value bothNaN = arith::AndIOp::create(
        kb, loc,
        arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::UNO, v, v),
        arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::UNO, w, w));
    return arith::OrIOp::create(
        kb, loc,
        arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::OEQ, v, w),
        bothNaN);
  };
  // The block's best value (NaN if any) and the smallest index holding it.
  auto blockBest = [&](OpBuilder &kb, ValueRange folded) {
    Value best = folded[0], bestIdx = folded[1];
    Value m = gpu::AllReduceOp::create(
        kb, loc, best, gpu::AllReduceOperationAttr::get(kb.getContext(), kind),
        true);
    Value holds = same(kb, best, m);
    Value idx = gpu::AllReduceOp::create(
        kb, loc, arith::SelectOp::create(kb, loc, holds, bestIdx, none(kb)),
        gpu::AllReduceOperationAttr::get(kb.getContext(), K::MINUI), true);
    return SmallVector<Value>{m, idx};
  };
  // Thread 0 stores the result (rows with no elements keep the inits).
  auto finish = [&](OpBuilder &kb, Value tid, ArrayRef<Value> pIvs,
                    ValueRange results) {
    Value m = results[0], idx = results[1];
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid,
                                        index(kb, loc, 0));
    Value nonEmpty = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt,
                                           r, index(kb, loc, 0));
    OpBuilder tb =
        ifThen(kb, loc, arith::AndIOp::create(kb, loc, first, nonEmpty));
    SmallVector<Value> outIvs = mergeIvs(iters, pIvs, index(tb, loc, 0));
    Value values[] = {convertTo(tb, loc, m, valueType, false),
                      convertTo(tb, loc, idx, indexType, false)};
    storeResults(tb, loc, op, outIvs, values);
  };
  auto elementWithIndex = [&](ArrayRef<Value> pIvs) {
    return [&, pIvs = SmallVector<Value>(pIvs)](OpBuilder &lb, Value rIv) {
      return std::make_pair(elementAt(lb, pIvs, rIv), i64Of(lb, rIv));
    };
  };

  auto reduceRange = [&](OpBuilder &kb, ArrayRef<Value> pIvs, Value start,
                         Value step) -> SmallVector<Value> {
    auto [best, bestIdx] = fold(kb, start, r, step, elementWithIndex(pIvs));
    return {best, bestIdx};
  };
  auto identities = [&](OpBuilder &kb) -> SmallVector<Value> {
    return {identityOf(kb, loc, kind, accType), none(kb)};
  };
  // Partials hold increasing index ranges only per stretch, so each is taken
  // on value, and ties go to the smaller index.
  auto foldPartial = [&](OpBuilder &lb, ValueRange acc,
                         ValueRange partial) -> SmallVector<Value> {
    Value v = partial[0], i = partial[1];
    Value best = acc[0], bestIdx = acc[1];
    Value hasIndex =
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne, i, none(lb));
    Value earlier = arith::AndIOp::create(
        lb, loc, same(lb, v, best),
        arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, i, bestIdx));
    Value take = arith::AndIOp::create(
        lb, loc, hasIndex,
        arith::OrIOp::create(lb, loc, takes(lb, v, best, bestIdx), earlier));
    return {arith::SelectOp::create(lb, loc, take, v, best),
            arith::SelectOp::create(lb, loc, take, i, bestIdx)};
  };
  emitBlockReduction(kernels, op, pSizes, p, r,
                     {{accType, i64},
                      reduceRange,
                      identities,
                      foldPartial,
                      blockBest,
                      finish});
  op->erase();
  return true;
}
