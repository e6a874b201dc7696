//===- Reductions.cpp - Block-parallel reductions on the GPU --------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// One emitter for block-parallel reductions (emitBlockReduction), used by
// plain reductions here and by arg-reductions (ArgReductions.cpp): the
// threads of a block stride over an output's reduced elements and the block
// combines their folds; when there are few outputs, the reduced range is
// split over many blocks and a second kernel combines the per-block
// partials. A reduction whose payload combines into its accumulator with
// one associative op (sum, product, max, min, ...) uses gpu.all_reduce;
// narrow integers accumulate in i32 (the same result modulo 2^n) and
// f16/bf16 in f32. Other reductions get one thread per output.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

/// Blocks that keep all SMs of a large GPU busy in a split reduction.
static constexpr int64_t kSplitBlocks = 1056;
/// Elements each thread reduces at least before a reduction is split.
static constexpr int64_t kElementsPerSplit = 4096;
static constexpr int64_t kMaxSplit = 1024;

Value gpu_lowering::identityOf(OpBuilder &b, Location loc,
                               gpu::AllReduceOperation kind, Type type) {
  using K = gpu::AllReduceOperation;
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = APFloat::getZero(sem);
    if (kind == K::MUL)
      v = APFloat::getOne(sem);
    else if (kind == K::MAXIMUMF || kind == K::MAXNUMF)
      v = APFloat::getInf(sem, /*Negative=*/true);
    else if (kind == K::MINIMUMF || kind == K::MINNUMF)
      v = APFloat::getInf(sem, /*Negative=*/false);
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, v));
  }
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = APInt::getZero(w);
  if (kind == K::MUL)
    v = APInt(w, 1);
  else if (kind == K::AND || kind == K::MINUI)
    v = APInt::getAllOnes(w);
  else if (kind == K::MAXSI)
    v = APInt::getSignedMinValue(w);
  else if (kind == K::MINSI)
    v = APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

//===----------------------------------------------------------------------===//
// The block-parallel reduction emitter
//===----------------------------------------------------------------------===//

/// Whether a reduction with p outputs of r elements each is split over
/// several blocks per output: few outputs (not enough blocks to fill the
/// GPU) and long enough rows.
static bool shouldSplit(std::optional<int64_t> staticP,
                        std::optional<int64_t> staticR) {
  return staticP && *staticP > 0 && *staticP < kSplitBlocks / 4 &&
         (!staticR || *staticR >= 2 * kElementsPerSplit);
}

/// Blocks per output of a split reduction: about kSplitBlocks in all, each
/// reducing at least kElementsPerSplit elements, at most kMaxSplit.
static Value splitFactor(OpBuilder &b, Location loc, int64_t p,
                         std::optional<int64_t> staticR, Value r) {
  int64_t maxSplit =
      std::clamp<int64_t>(llvm::divideCeil(kSplitBlocks, p), 1, kMaxSplit);
  if (staticR)
    return index(
        b, loc,
        std::clamp<int64_t>(
            std::min<int64_t>(maxSplit,
                              llvm::divideCeil(*staticR, kElementsPerSplit)),
            1, kMaxSplit));
  return arith::MinUIOp::create(b, loc, blocksFor(b, loc, r, kElementsPerSplit),
                                index(b, loc, maxSplit));
}

/// A 1-D buffer of `count` partial results in `device`'s memory.
static Value allocPartials(OpBuilder &b, Location loc, DeviceAttr device,
                           Type type, Value count) {
  auto memrefType =
      MemRefType::get({ShapedType::kDynamic}, type, MemRefLayoutAttrInterface(),
                      getMemorySpace(device));
  return gpu::AllocOp::create(b, loc, memrefType, Type(), ValueRange(),
                              ValueRange{count}, ValueRange(), false)
      .getMemref();
}

void gpu_lowering::emitBlockReduction(KernelBuilder &kernels,
                                      linalg::LinalgOp op,
                                      ArrayRef<Value> pSizes, Value p, Value r,
                                      const BlockReduction &reduction) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  std::string name = kernels.nameFor(op);
  std::optional<int64_t> staticP = getConstantIntValue(p),
                         staticR = getConstantIntValue(r);
  if (!shouldSplit(staticP, staticR)) {
    // One block per output.
    Kernel k = makeKernel(
        b, loc, arith::MaxUIOp::create(b, loc, p, index(b, loc, 1)), name);
    OpBuilder &kb = k.body;
    Value live =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, k.blockId, p);
    OpBuilder tb = ifThen(kb, loc, live);
    SmallVector<Value> pIvs = delinearize(tb, loc, k.blockId, pSizes);
    Value step = index(tb, loc, kBlockSize);
    SmallVector<Value> results = reduction.combineBlock(
        tb, reduction.reduceRange(tb, pIvs, k.threadId, step));
    reduction.finish(tb, k.threadId, pIvs, results);
    return;
  }

  // Split: G blocks per output, each over every G-th stretch of kBlockSize
  // elements, then one block per output over the partials.
  Value g = splitFactor(b, loc, *staticP, staticR, r);
  Value pg = arith::MulIOp::create(b, loc, p, g);
  DeviceAttr device = kernels.getOpDevice(op);
  SmallVector<Value> partials;
  for (Type type : reduction.partialTypes)
    partials.push_back(allocPartials(b, loc, device, type, pg));
  {
    Kernel k = makeKernel(b, loc, pg, name);
    OpBuilder &kb = k.body;
    Value pIndex = arith::DivUIOp::create(kb, loc, k.blockId, g);
    Value gIndex = arith::RemUIOp::create(kb, loc, k.blockId, g);
    SmallVector<Value> pIvs = delinearize(kb, loc, pIndex, pSizes);
    Value start = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, gIndex, index(kb, loc, kBlockSize)),
        k.threadId);
    Value step = arith::MulIOp::create(kb, loc, g, index(kb, loc, kBlockSize));
    SmallVector<Value> results = reduction.combineBlock(
        kb, reduction.reduceRange(kb, pIvs, start, step));
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                        k.threadId, index(kb, loc, 0));
    OpBuilder tb = ifThen(kb, loc, first);
    for (auto [result, buffer] : llvm::zip_equal(results, partials))
      memref::StoreOp::create(tb, loc, result, buffer, ValueRange{k.blockId});
  }
  {
    Kernel k = makeKernel(b, loc, p, name + "_partials");
    OpBuilder &kb = k.body;
    SmallVector<Value> pIvs = delinearize(kb, loc, k.blockId, pSizes);
    Value base = arith::MulIOp::create(kb, loc, k.blockId, g);
    auto loop =
        scf::ForOp::create(kb, loc, k.threadId, g, index(kb, loc, kBlockSize),
                           reduction.identities(kb));
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value at = arith::AddIOp::create(lb, loc, base, loop.getInductionVar());
      SmallVector<Value> loaded;
      for (Value buffer : partials)
        loaded.push_back(
            memref::LoadOp::create(lb, loc, buffer, ValueRange{at}));
      scf::YieldOp::create(
          lb, loc, reduction.foldPartial(lb, loop.getRegionIterArgs(), loaded));
    }
    SmallVector<Value> results = reduction.combineBlock(kb, loop.getResults());
    reduction.finish(kb, k.threadId, pIvs, results);
  }
  for (Value buffer : partials)
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), buffer);
}

//===----------------------------------------------------------------------===//
// Reductions with one associative combiner
//===----------------------------------------------------------------------===//

/// The reduction kind of a payload combiner, if gpu.all_reduce has it.
static std::optional<gpu::AllReduceOperation> combinerKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::AddFOp) { return K::ADD; })
      .Case([](arith::AddIOp) { return K::ADD; })
      .Case([](arith::MulFOp) { return K::MUL; })
      .Case([](arith::MulIOp) { return K::MUL; })
      .Case([](arith::MaximumFOp) { return K::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return K::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return K::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return K::MINNUMF; })
      .Case([](arith::MaxSIOp) { return K::MAXSI; })
      .Case([](arith::MinSIOp) { return K::MINSI; })
      .Case([](arith::MaxUIOp) { return K::MAXUI; })
      .Case([](arith::MinUIOp) { return K::MINUI; })
      .Case([](arith::AndIOp) { return K::AND; })
      .Case([](arith::OrIOp) { return K::OR; })
      .Case([](arith::XOrIOp) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

Value gpu_lowering::combineWith(OpBuilder &b, Location loc, Operation *combiner,
                                Value x, Value y) {
  OperationState state(loc, combiner->getName());
  state.addOperands({x, y});
  state.addTypes(x.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

std::optional<ReductionCombiner>
gpu_lowering::matchCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return std::nullopt;
  Block *block = op.getBlock();
  Value yielded = block->getTerminator()->getOperand(0);
  Operation *comb = yielded.getDefiningOp();
  BlockArgument acc = op.getRegionOutputArgs()[0];
  if (!comb || comb->getBlock() != block || comb->getNumOperands() != 2 ||
      !acc.hasOneUse() || !combinerKind(comb))
    return std::nullopt;
  unsigned accPos;
  if (comb->getOperand(0) == acc)
    accPos = 0;
  else if (comb->getOperand(1) == acc)
    accPos = 1;
  else
    return std::nullopt;
  return ReductionCombiner{comb, accPos, *combinerKind(comb),
                           comb->getOperand(1 - accPos)};
}

/// The most elements per output that one thread reduces on its own when there
/// are many outputs.
static constexpr int64_t kSmallReduction = 64;

bool gpu_lowering::lowerReduction(KernelBuilder &kernels, linalg::LinalgOp op,
                                  linalg::FillOp initFill) {
  std::optional<ReductionCombiner> match = matchCombiner(op);
  if (!match)
    return false;
  Operation *comb = match->op;
  unsigned accPos = match->accPos;
  Value element = match->element;
  gpu::AllReduceOperation kind = match->kind;
  bool isUnsigned = kind == gpu::AllReduceOperation::MAXUI ||
                    kind == gpu::AllReduceOperation::MINUI;
  // Small windows over many outputs (pooling): one thread per output
  // (lowerSequential) instead of a block per output. It accumulates in the
  // output's type, so f16/bf16 sums and products stay here (they accumulate
  // in f32); max, min and the bitwise ops are exact in any type.
  {
    int64_t parallel = 1, reduced = 1;
    for (auto [size, iter] :
         llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
      int64_t &product =
          iter == utils::IteratorType::parallel ? parallel : reduced;
      product = ShapedType::isDynamic(size) || ShapedType::isDynamic(product)
                    ? ShapedType::kDynamic
                    : product * size;
    }
    Type outType =
        cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
    bool inexact = kind == gpu::AllReduceOperation::ADD ||
                   kind == gpu::AllReduceOperation::MUL;
    bool narrow = outType.isF16() || outType.isBF16();
    if (!ShapedType::isDynamic(parallel) && !ShapedType::isDynamic(reduced) &&
        reduced <= kSmallReduction && parallel >= kBlockSize * 16 &&
        !(inexact && narrow))
      return false;
  }

  OpBuilder b(op);
  Location loc = op.getLoc();
  ReductionLoops loops = getReductionLoops(b, op);
  ArrayRef<utils::IteratorType> iters = loops.iters;
  ArrayRef<Value> pSizes = loops.pSizes, rSizes = loops.rSizes;
  Value init = op.getDpsInits()[0];
  Type elementType = cast<MemRefType>(init.getType()).getElementType();
  Type accType = accumulatorType(elementType);

  // A thread's accumulation over reduced elements start, start + step, ...
  auto accumulate = [&](OpBuilder &kb, ArrayRef<Value> pIvs, Value start,
                        Value step) -> SmallVector<Value> {
    Value id = identityOf(kb, loc, kind, accType);
    auto loop =
        scf::ForOp::create(kb, loc, start, loops.r, step, ValueRange{id});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<Value> rIvs =
        delinearize(lb, loc, loop.getInductionVar(), rSizes);
    SmallVector<Value> ivs = mergeIvs(iters, pIvs, rIvs);
    IRMapping mapping;
    loadOperands(lb, loc, op, ivs, mapping, /*inits=*/false);
    clonePayload(lb, op, ivs, mapping, comb);
    Value x = convertTo(lb, loc, mapping.lookupOrDefault(element), accType,
                        isUnsigned);
    Value next = combineWith(lb, loc, comb, loop.getRegionIterArgs()[0], x);
    scf::YieldOp::create(lb, loc, next);
    return {loop.getResult(0)};
  };
  auto identities = [&](OpBuilder &kb) -> SmallVector<Value> {
    return {identityOf(kb, loc, kind, accType)};
  };
  auto foldPartial = [&](OpBuilder &lb, ValueRange acc,
                         ValueRange partials) -> SmallVector<Value> {
    return {combineWith(lb, loc, comb, acc[0], partials[0])};
  };
  auto allReduce = [&](OpBuilder &kb, ValueRange v) -> SmallVector<Value> {
    return {gpu::AllReduceOp::create(
        kb, loc, v[0], gpu::AllReduceOperationAttr::get(kb.getContext(), kind),
        /*uniform=*/true)};
  };
  // Thread 0 combines the block's total into the output element.
  auto finish = [&](OpBuilder &kb, Value tid, ArrayRef<Value> pIvs,
                    ValueRange total) {
    Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq, tid,
                                        index(kb, loc, 0));
    OpBuilder tb = ifThen(kb, loc, first);
    SmallVector<Value> zeros(rSizes.size(), index(tb, loc, 0));
    SmallVector<Value> outIdx =
        applyMap(tb, loc, op.getMatchingIndexingMap(op.getDpsInitOperand(0)),
                 mergeIvs(iters, pIvs, zeros));
    // The output's initial value: the fill's scalar when the fill right
    // before was folded in (no fill kernel, no load), else what it holds.
    Value old = initFill
                    ? initFill.getInputs()[0]
                    : memref::LoadOp::create(tb, loc, init, outIdx).getResult();
    Value t = convertTo(tb, loc, total[0], elementType, isUnsigned);
    Value v = accPos == 0 ? combineWith(tb, loc, comb, old, t)
                          : combineWith(tb, loc, comb, t, old);
    memref::StoreOp::create(tb, loc, v, init, outIdx);
  };
  emitBlockReduction(
      kernels, op, pSizes, loops.p, loops.r,
      {{accType}, accumulate, identities, foldPartial, allReduce, finish});
  op->erase();
  if (initFill)
    initFill->erase();
  return true;
}

//===----------------------------------------------------------------------===//
// Other reductions
//===----------------------------------------------------------------------===//

void gpu_lowering::lowerSequential(KernelBuilder &kernels,
                                   linalg::LinalgOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto [iters, pSizes, rSizes, p, r] = getReductionLoops(b, op);
  auto [tb, gid] = launchPerItem(b, loc, p, kernels.nameFor(op));
  SmallVector<Value> pIvs = delinearize(tb, loc, gid, pSizes);
  SmallVector<Value> zeros(rSizes.size(), index(tb, loc, 0));
  SmallVector<Value> outIvs = mergeIvs(iters, pIvs, zeros);
  SmallVector<Value> inits;
  for (OpOperand &init : op.getDpsInitsMutable())
    inits.push_back(memref::LoadOp::create(
        tb, loc, init.get(),
        applyMap(tb, loc, op.getMatchingIndexingMap(&init), outIvs)));
  auto loop = scf::ForOp::create(tb, loc, index(tb, loc, 0), r,
                                 index(tb, loc, 1), inits);
  {
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<Value> ivs = mergeIvs(
        iters, pIvs, delinearize(lb, loc, loop.getInductionVar(), rSizes));
    IRMapping mapping;
    loadOperands(lb, loc, op, ivs, mapping, /*inits=*/false);
    for (auto [arg, v] :
         llvm::zip(op.getRegionOutputArgs(), loop.getRegionIterArgs()))
      mapping.map(arg, v);
    clonePayload(lb, op, ivs, mapping);
    SmallVector<Value> yields;
    for (Value v : op.getBlock()->getTerminator()->getOperands())
      yields.push_back(mapping.lookupOrDefault(v));
    scf::YieldOp::create(lb, loc, yields);
  }
  storeResults(tb, loc, op, outIvs, loop.getResults());
  op->erase();
}
