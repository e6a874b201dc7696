//===- LinalgToGPU.cpp - Buffer-level linalg on device memory to kernels --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// After one-shot bufferization, GPU values live in memrefs whose memory space
// is their GPU, `#tide.device<cuda:N>` (tide-assign-memory-spaces). This pass
// turns everything that touches them into GPU code:
//
//  - a linalg op with only parallel loops becomes one `gpu.launch`, one
//    thread per iteration point (so fused elementwise chains are one kernel);
//  - a reduction whose payload combines into its accumulator with one
//    associative op (sum, product, max, min, ...) becomes a block-parallel
//    reduction: threads stride over the reduced elements, then
//    `gpu.all_reduce` combines them; when there are few outputs, the reduced
//    range is split over many blocks and a second kernel combines the
//    per-block partials. Narrow integers accumulate in i32 (the same result
//    modulo 2^n) and f16/bf16 in f32;
//  - arg-reductions (argmax/argmin) are block-parallel too: each thread's
//    best element and its first index, then two gpu.all_reduce (the value,
//    then the smallest index holding it), split over blocks the same way;
//  - other linalg ops with reductions (batched matmul) get one thread per
//    output;
//  - 2-D f16/bf16/f32/f64 matmuls call cuBLAS through Tide's runtime;
//  - memref.alloc/dealloc/copy on device memory become gpu.alloc/dealloc/
//    memcpy (a copy between strided device views becomes a kernel).
//
// Host code that would read device memory directly is an error.
//
//===----------------------------------------------------------------------===//

#include "tide/Conversion/Passes.h"

#include "tide/Conversion/GemmMatchers.h"

#include "tide/IR/TideDialect.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>

namespace mlir::tide {
#define GEN_PASS_DEF_CONVERTLINALGTOGPUPASS
#include "tide/Conversion/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

constexpr int64_t kBlockSize = 256;
/// Blocks that keep all SMs of a large GPU busy in a split reduction.
constexpr int64_t kSplitBlocks = 1056;
/// Elements each thread reduces at least before a reduction is split.
constexpr int64_t kElementsPerSplit = 4096;
constexpr int64_t kMaxSplit = 1024;

/// Values known to hold device pointers in the default space: function
/// arguments resident on the GPU (`tide.resident`) and views of them.
thread_local DenseSet<Value> *residentValues = nullptr;

bool onDevice(Value v) {
  auto type = dyn_cast<BaseMemRefType>(v.getType());
  if (!type)
    return false;
  if (residentValues && residentValues->contains(v))
    return true;
  return static_cast<bool>(getMemorySpaceDevice(type.getMemorySpace()));
}

/// Collects the GPU-resident arguments of `func` and the views of them.
void collectResident(func::FuncOp func, DenseSet<Value> &values) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    DeviceAttr device = getArgumentResidence(func, i);
    if (device && device.isGPU())
      values.insert(func.getArgument(i));
  }
  func.walk([&](Operation *op) {
    if (!isa<ViewLikeOpInterface, memref::CastOp, memref::ReshapeOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
      return;
    if (op->getNumOperands() && values.contains(op->getOperand(0)))
      for (Value r : op->getResults())
        values.insert(r);
  });
}

/// Moves host allocations that sit between GPU work up before the first GPU
/// op of the block (with the constants and sizes they need), so that
/// gpu-async-region does not stop the stream for them: one stream, one
/// synchronization per call.
void hoistHostAllocations(Block &block) {
  Operation *firstGpu = nullptr;
  for (Operation &op : block)
    if (isa<gpu::GPUDialect>(op.getDialect())) {
      firstGpu = &op;
      break;
    }
  if (!firstGpu)
    return;
  std::function<bool(Value, SmallVectorImpl<Operation *> &)> available =
      [&](Value v, SmallVectorImpl<Operation *> &moves) -> bool {
    Operation *def = v.getDefiningOp();
    if (!def)
      return v.getParentBlock() == &block || !block.getParentOp()->isAncestor(
                                                  v.getParentBlock()->getParentOp());
    if (def->getBlock() != &block)
      return !block.getParentOp()->isProperAncestor(def);
    if (def->isBeforeInBlock(firstGpu))
      return true;
    if (!isPure(def) || def->getNumRegions())
      return false;
    for (Value operand : def->getOperands())
      if (!available(operand, moves))
        return false;
    moves.push_back(def);
    return true;
  };
  SmallVector<memref::AllocOp> allocs;
  for (Operation &op : block)
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (firstGpu->isBeforeInBlock(alloc) && !onDevice(alloc))
        allocs.push_back(alloc);
  for (memref::AllocOp alloc : allocs) {
    SmallVector<Operation *> moves;
    bool ok = true;
    for (Value operand : alloc->getOperands())
      ok = ok && available(operand, moves);
    if (!ok)
      continue;
    for (Operation *op : moves)
      op->moveBefore(firstGpu);
    alloc->moveBefore(firstGpu);
  }
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The product of index values, folded where they are constants.
Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  int64_t known = 1;
  Value p;
  for (Value v : values) {
    if (std::optional<int64_t> c = getConstantIntValue(v)) {
      known *= *c;
      continue;
    }
    p = p ? arith::MulIOp::create(b, loc, p, v).getResult() : v;
  }
  if (!p)
    return index(b, loc, known);
  if (known != 1)
    p = arith::MulIOp::create(b, loc, p, index(b, loc, known));
  return p;
}

/// Row-major indices of `linear` over `sizes`.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<Value> sizes) {
  SmallVector<Value> out(sizes.size());
  Value rem = linear;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (i == 0) {
      out[0] = rem;
      break;
    }
    out[i] = arith::RemUIOp::create(b, loc, rem, sizes[i]);
    rem = arith::DivUIOp::create(b, loc, rem, sizes[i]);
  }
  return out;
}

SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      out.push_back(ivs[d.getPosition()]);
    else if (auto c = dyn_cast<AffineConstantExpr>(e))
      out.push_back(index(b, loc, c.getValue()));
    else
      out.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
  }
  return out;
}

/// Maps the payload's block arguments to loaded elements (inputs, and inits
/// when `inits`) at `ivs`.
void loadOperands(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  ArrayRef<Value> ivs, IRMapping &mapping, bool inits) {
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || (!inits && op.isDpsInit(&operand)))
      continue;
    Value v = operand.get();
    if (isa<MemRefType>(v.getType()))
      v = memref::LoadOp::create(
          b, loc, v,
          applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs));
    mapping.map(arg, v);
  }
}

/// Clones the payload but its terminator (and `skip`); linalg.index reads
/// `ivs`.
void clonePayload(OpBuilder &b, linalg::LinalgOp op, ArrayRef<Value> ivs,
                  IRMapping &mapping, Operation *skip = nullptr) {
  for (Operation &inner : op.getBlock()->without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto idx = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(idx.getResult(), ivs[idx.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
}

void storeResults(OpBuilder &b, Location loc, linalg::LinalgOp op,
                  ArrayRef<Value> ivs, ValueRange values) {
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable()))
    memref::StoreOp::create(
        b, loc, values[i], init.get(),
        applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
}

/// The reduction kind of a payload combiner, if gpu.all_reduce has it.
std::optional<gpu::AllReduceOperation> combinerKind(Operation *op) {
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

/// The accumulator type of a block reduction over `type`.
Type accumulatorType(Type type) {
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
    return IntegerType::get(type.getContext(), 32);
  return type;
}

Value convertTo(OpBuilder &b, Location loc, Value v, Type to, bool isUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<FloatType>(from))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, loc, to, v);
  return isUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                    : arith::ExtSIOp::create(b, loc, to, v).getResult();
}

Value identityOf(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                 Type type) {
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

/// `combiner`'s op applied to (a, b) in their type.
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value x,
              Value y) {
  OperationState state(loc, combiner->getName());
  state.addOperands({x, y});
  state.addTypes(x.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

struct Kernel {
  gpu::LaunchOp launch;
  OpBuilder body;
  Value blockId, threadId;
};

Kernel makeKernel(OpBuilder &b, Location loc, Value blocks, StringRef name,
                  int64_t blockSize = kBlockSize) {
  Value one = index(b, loc, 1);
  auto launch = gpu::LaunchOp::create(
      b, loc, blocks, one, one, index(b, loc, blockSize), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
      /*privateAttributions=*/{}, nullptr, nullptr, nullptr,
      FlatSymbolRefAttr::get(b.getContext(), "tide_kernels"),
      FlatSymbolRefAttr::get(b.getContext(), name));
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  gpu::TerminatorOp::create(body, loc);
  body.setInsertionPointToStart(&launch.getBody().front());
  return {launch, body, launch.getBlockIds().x, launch.getThreadIds().x};
}

/// blockIdx.x * blockDim.x + threadIdx.x of a kernel's 1-D launch.
Value globalThreadId(Kernel &k, Location loc, int64_t blockSize = kBlockSize) {
  return arith::AddIOp::create(
      k.body, loc,
      arith::MulIOp::create(k.body, loc, k.blockId,
                            index(k.body, loc, blockSize)),
      k.threadId);
}

/// A builder inside `if (cond)` at the current point of `b`.
OpBuilder ifThen(OpBuilder &b, Location loc, Value cond) {
  return scf::IfOp::create(b, loc, cond, /*withElse=*/false)
      .getThenBodyBuilder();
}

/// Loop sizes split into the parallel and the reduction loops' sizes.
std::pair<SmallVector<Value>, SmallVector<Value>>
splitSizes(ArrayRef<Value> sizes, ArrayRef<utils::IteratorType> iters) {
  SmallVector<Value> parallel, reduction;
  for (auto [size, it] : llvm::zip(sizes, iters))
    (it == utils::IteratorType::parallel ? parallel : reduction).push_back(size);
  return {parallel, reduction};
}

/// max(ceil(n / d), 1): a launch needs at least one block.
Value blocksFor(OpBuilder &b, Location loc, Value n, int64_t d) {
  Value blocks = arith::CeilDivUIOp::create(b, loc, n, index(b, loc, d));
  return arith::MaxUIOp::create(b, loc, blocks, index(b, loc, 1));
}

std::optional<int64_t> constantOf(Value v) {
  return getConstantIntValue(v);
}

/// Whether a reduction with p outputs of r elements each is split over
/// several blocks per output: few outputs (not enough blocks to fill the
/// GPU) and long enough rows.
bool shouldSplit(std::optional<int64_t> staticP, std::optional<int64_t> staticR) {
  return staticP && *staticP > 0 && *staticP < kSplitBlocks / 4 &&
         (!staticR || *staticR >= 2 * kElementsPerSplit);
}

/// Blocks per output of a split reduction: about kSplitBlocks in all, each
/// reducing at least kElementsPerSplit elements, at most kMaxSplit.
Value splitFactor(OpBuilder &b, Location loc, int64_t p,
                  std::optional<int64_t> staticR, Value r) {
  int64_t maxSplit =
      std::clamp<int64_t>(llvm::divideCeil(kSplitBlocks, p), 1, kMaxSplit);
  if (staticR)
    return index(b, loc,
                 std::clamp<int64_t>(
                     std::min<int64_t>(maxSplit,
                                       llvm::divideCeil(*staticR, kElementsPerSplit)),
                     1, kMaxSplit));
  return arith::MinUIOp::create(b, loc, blocksFor(b, loc, r, kElementsPerSplit),
                                index(b, loc, maxSplit));
}

/// A 1-D GPU buffer of `count` partial results.
Value allocPartials(OpBuilder &b, Location loc, Type type, Value count) {
  auto memrefType =
      MemRefType::get({ShapedType::kDynamic}, type, MemRefLayoutAttrInterface(),
                      getMemorySpace(DeviceAttr::cuda(b.getContext(), 0)));
  return gpu::AllocOp::create(b, loc, memrefType, Type(), ValueRange(),
                              ValueRange{count}, ValueRange(), false)
      .getMemref();
}

class KernelBuilder {
public:
  KernelBuilder(func::FuncOp func) : func(func) {}

  std::string nameFor(Operation *op) {
    std::string what = op->getName().stripDialect().str();
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      for (Operation &inner : generic.getBody()->without_terminator())
        if (!isa<arith::ConstantOp, linalg::IndexOp>(inner)) {
          what = inner.getName().stripDialect().str();
          break;
        }
    for (char &c : what)
      if (!isalnum(static_cast<unsigned char>(c)))
        c = '_';
    return (func.getSymName() + "_" + what + "_" + Twine(counter++)).str();
  }

  /// Elementwise over contiguous buffers with no broadcasting: each thread
  /// handles one 16-byte vector (4 x 32-bit or 2 x 64-bit elements) with
  /// aligned vector loads and stores. False when that does not apply.
  bool lowerContiguous(linalg::LinalgOp op) {
    // Identity operands (all outputs among them) are contiguous buffers of
    // the iteration space. Broadcast inputs read a subset of the dims in
    // order: one that ends with the innermost dim is read as a vector too
    // (the lanes stay in one row), one that does not is one scalar for all
    // lanes.
    unsigned maxBytes = 0;
    int64_t n = 1;
    SmallVector<int64_t> shape = op.getStaticLoopRanges();
    int64_t rank = shape.size();
    for (int64_t size : shape)
      if (ShapedType::isDynamic(size))
        return false;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type) {
        if (isa<ShapedType>(v.getType()))
          return false;
        continue;
      }
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!type.getLayout().isIdentity() || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        return false;
      if (!map.isIdentity()) {
        if (op.isDpsInit(&operand) || !map.isProjectedPermutation())
          return false;
        int64_t previous = -1;
        for (AffineExpr e : map.getResults()) {
          int64_t d = cast<AffineDimExpr>(e).getPosition();
          if (d <= previous)
            return false;
          previous = d;
        }
      }
      unsigned bits = type.getElementType().getIntOrFloatBitWidth();
      if (bits % 8)
        return false;
      maxBytes = std::max(maxBytes, bits / 8);
    }
    for (int64_t size : shape)
      n *= size;
    if (!maxBytes || op.hasIndexSemantics() || rank == 0)
      return false;
    int64_t width = maxBytes == 8 ? 2 : 4;
    if (shape.back() % width || n / width == 0)
      return false;

    OpBuilder b(op);
    Location loc = op.getLoc();
    // 1-D views of the buffers, made on the host.
    auto flat = [&](Value v) -> Value {
      auto type = cast<MemRefType>(v.getType());
      if (type.getRank() == 1)
        return v;
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        all[0].push_back(d);
      return memref::CollapseShapeOp::create(b, loc, v, all);
    };
    SmallVector<Value> flats;
    for (OpOperand &operand : op->getOpOperands())
      flats.push_back(isa<MemRefType>(operand.get().getType()) &&
                              op.getMatchingIndexingMap(&operand).isIdentity()
                          ? flat(operand.get())
                          : operand.get());
    int64_t vectors = n / width;
    Kernel k = makeKernel(b, loc, index(b, loc, llvm::divideCeil(vectors, kBlockSize)),
                          nameFor(op));
    OpBuilder &kb = k.body;
    Value gid = globalThreadId(k, loc);
    Value inRange = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                          gid, index(kb, loc, vectors));
    OpBuilder tb = ifThen(kb, loc, inRange);
    Value base = arith::MulIOp::create(tb, loc, gid, index(tb, loc, width));
    // Load each operand the payload reads as one vector (or one scalar for
    // all lanes).
    SmallVector<Value> loaded(op->getNumOperands()), splat(op->getNumOperands());
    SmallVector<Value> ivs;
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      if (!isa<MemRefType>(operand.get().getType()) ||
          op.getMatchingBlockArgument(&operand).use_empty())
        continue;
      Type element = cast<MemRefType>(operand.get().getType()).getElementType();
      auto vt = VectorType::get({width}, element);
      auto align = llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (map.isIdentity()) {
        loaded[i] = vector::LoadOp::create(tb, loc, vt, flats[i], ValueRange{base},
                                           /*nontemporal=*/false, align);
        continue;
      }
      if (ivs.empty()) {
        SmallVector<Value> sizes;
        for (int64_t size : shape)
          sizes.push_back(index(tb, loc, size));
        ivs = delinearize(tb, loc, base, sizes);
      }
      SmallVector<Value> idx = applyMap(tb, loc, map, ivs);
      bool innermost = map.getNumResults() &&
                       cast<AffineDimExpr>(map.getResults().back()).getPosition() ==
                           static_cast<unsigned>(rank - 1);
      if (innermost)
        loaded[i] = vector::LoadOp::create(tb, loc, vt, operand.get(), idx,
                                           /*nontemporal=*/false, align);
      else
        splat[i] = memref::LoadOp::create(tb, loc, operand.get(), idx);
    }
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t lane = 0; lane < width; ++lane) {
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands()) {
        BlockArgument arg = op.getMatchingBlockArgument(&operand);
        if (arg.use_empty())
          continue;
        unsigned i = operand.getOperandNumber();
        mapping.map(arg, loaded[i]  ? vector::ExtractOp::create(tb, loc, loaded[i], lane)
                                          .getResult()
                         : splat[i] ? splat[i]
                                    : operand.get());
      }
      clonePayload(tb, op, {}, mapping);
      for (auto [i, v] :
           llvm::enumerate(op.getBlock()->getTerminator()->getOperands()))
        results[i].push_back(mapping.lookupOrDefault(v));
    }
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      Type element = cast<MemRefType>(init.get().getType()).getElementType();
      auto vt = VectorType::get({width}, element);
      Value v = vector::FromElementsOp::create(tb, loc, vt, results[i]);
      vector::StoreOp::create(
          tb, loc, v, flats[init.getOperandNumber()], ValueRange{base},
          /*nontemporal=*/false,
          llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8));
    }
    op->erase();
    return true;
  }

  /// One thread per iteration point.
  void lowerParallel(linalg::LinalgOp op) {
    if (lowerContiguous(op))
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, op);
    Value n = product(b, loc, sizes);
    Kernel k = makeKernel(b, loc, blocksFor(b, loc, n, kBlockSize), nameFor(op));
    OpBuilder &kb = k.body;
    Value gid = globalThreadId(k, loc);
    Value inRange =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, gid, n);
    OpBuilder tb = ifThen(kb, loc, inRange);
    SmallVector<Value> ivs = delinearize(tb, loc, gid, sizes);
    IRMapping mapping;
    loadOperands(tb, loc, op, ivs, mapping, /*inits=*/true);
    clonePayload(tb, op, ivs, mapping);
    SmallVector<Value> yields;
    for (Value v : op.getBlock()->getTerminator()->getOperands())
      yields.push_back(mapping.lookupOrDefault(v));
    storeResults(tb, loc, op, ivs, yields);
    op->erase();
  }

  /// Block-parallel reduction; false when the payload is not one combiner.
  bool lowerReduction(linalg::LinalgOp op) {
    if (op.getNumDpsInits() != 1)
      return false;
    Block *block = op.getBlock();
    Value yielded = block->getTerminator()->getOperand(0);
    Operation *comb = yielded.getDefiningOp();
    BlockArgument acc = op.getRegionOutputArgs()[0];
    if (!comb || comb->getBlock() != block || comb->getNumOperands() != 2 ||
        !acc.hasOneUse() || !combinerKind(comb))
      return false;
    unsigned accPos;
    if (comb->getOperand(0) == acc)
      accPos = 0;
    else if (comb->getOperand(1) == acc)
      accPos = 1;
    else
      return false;
    Value element = comb->getOperand(1 - accPos);
    gpu::AllReduceOperation kind = *combinerKind(comb);
    bool isUnsigned = kind == gpu::AllReduceOperation::MAXUI ||
                      kind == gpu::AllReduceOperation::MINUI;

    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, op);
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<Value> pSizes, rSizes;
    std::tie(pSizes, rSizes) = splitSizes(sizes, iters);
    Value p = product(b, loc, pSizes), r = product(b, loc, rSizes);
    Value init = op.getDpsInits()[0];
    Type elementType = cast<MemRefType>(init.getType()).getElementType();
    Type accType = accumulatorType(elementType);

    // Full loop indices from parallel and reduction indices.
    auto merge = [&](ArrayRef<Value> pIvs, ArrayRef<Value> rIvs) {
      SmallVector<Value> ivs;
      unsigned pi = 0, ri = 0;
      for (utils::IteratorType it : iters)
        ivs.push_back(it == utils::IteratorType::parallel ? pIvs[pi++]
                                                          : rIvs[ri++]);
      return ivs;
    };
    // A thread's accumulation over reduced elements start, start + step, ...
    auto accumulate = [&](OpBuilder &kb, ArrayRef<Value> pIvs, Value start,
                          Value step) -> Value {
      Value id = identityOf(kb, loc, kind, accType);
      auto loop = scf::ForOp::create(kb, loc, start, r, step, ValueRange{id});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      SmallVector<Value> rIvs = delinearize(lb, loc, loop.getInductionVar(), rSizes);
      SmallVector<Value> ivs = merge(pIvs, rIvs);
      IRMapping mapping;
      loadOperands(lb, loc, op, ivs, mapping, /*inits=*/false);
      clonePayload(lb, op, ivs, mapping, comb);
      Value x = convertTo(lb, loc, mapping.lookupOrDefault(element), accType,
                          isUnsigned);
      Value next = combine(lb, loc, comb, loop.getRegionIterArgs()[0], x);
      scf::YieldOp::create(lb, loc, next);
      return loop.getResult(0);
    };
    auto allReduce = [&](OpBuilder &kb, Value v) -> Value {
      return gpu::AllReduceOp::create(
          kb, loc, v, gpu::AllReduceOperationAttr::get(kb.getContext(), kind),
          /*uniform=*/true);
    };
    // Thread 0 combines the block's total into the output element.
    auto finish = [&](OpBuilder &kb, Value tid, ArrayRef<Value> pIvs,
                      Value total) {
      Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                          tid, index(kb, loc, 0));
      OpBuilder tb = ifThen(kb, loc, first);
      SmallVector<Value> zeros(rSizes.size(), index(tb, loc, 0));
      SmallVector<Value> outIdx = applyMap(
          tb, loc, op.getMatchingIndexingMap(op.getDpsInitOperand(0)),
          merge(pIvs, zeros));
      Value old = memref::LoadOp::create(tb, loc, init, outIdx);
      Value t = convertTo(tb, loc, total, elementType, isUnsigned);
      Value v = accPos == 0 ? combine(tb, loc, comb, old, t)
                            : combine(tb, loc, comb, t, old);
      memref::StoreOp::create(tb, loc, v, init, outIdx);
    };

    std::optional<int64_t> staticP = constantOf(p), staticR = constantOf(r);
    bool split = shouldSplit(staticP, staticR);
    if (!split) {
      Kernel k = makeKernel(b, loc, arith::MaxUIOp::create(b, loc, p, index(b, loc, 1)),
                            nameFor(op));
      OpBuilder &kb = k.body;
      Value live = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                         k.blockId, p);
      OpBuilder tb = ifThen(kb, loc, live);
      SmallVector<Value> pIvs = delinearize(tb, loc, k.blockId, pSizes);
      Value total = allReduce(
          tb, accumulate(tb, pIvs, k.threadId, index(tb, loc, kBlockSize)));
      finish(tb, k.threadId, pIvs, total);
      op->erase();
      return true;
    }

    // Split: G blocks per output, then one block per output over partials.
    Value g = splitFactor(b, loc, *staticP, staticR, r);
    Value pg = arith::MulIOp::create(b, loc, p, g);
    Value partials = allocPartials(b, loc, accType, pg);
    std::string name = nameFor(op);
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
      Value step =
          arith::MulIOp::create(kb, loc, g, index(kb, loc, kBlockSize));
      Value total = allReduce(kb, accumulate(kb, pIvs, start, step));
      Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                          k.threadId, index(kb, loc, 0));
      OpBuilder tb = ifThen(kb, loc, first);
      memref::StoreOp::create(tb, loc, total, partials, ValueRange{k.blockId});
    }
    {
      Kernel k = makeKernel(b, loc, p, name + "_partials");
      OpBuilder &kb = k.body;
      SmallVector<Value> pIvs = delinearize(kb, loc, k.blockId, pSizes);
      Value base = arith::MulIOp::create(kb, loc, k.blockId, g);
      Value id = identityOf(kb, loc, kind, accType);
      auto loop = scf::ForOp::create(kb, loc, k.threadId, g,
                                     index(kb, loc, kBlockSize), ValueRange{id});
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value x = memref::LoadOp::create(
            lb, loc, partials,
            ValueRange{arith::AddIOp::create(lb, loc, base,
                                             loop.getInductionVar())});
        scf::YieldOp::create(
            lb, loc, combine(lb, loc, comb, loop.getRegionIterArgs()[0], x));
      }
      Value total = allReduce(kb, loop.getResult(0));
      finish(kb, k.threadId, pIvs, total);
    }
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), partials);
    op->erase();
    return true;
  }

  /// Softmax along the last dimension: one block per row, three passes
  /// over the row (max, sum of exponentials, write), the row's later
  /// passes served from cache: HBM traffic is one read and one write.
  /// f16/bf16 rows compute in f32.
  void lowerSoftmax(linalg::SoftmaxOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value input = op.getInput(), output = op.getOutput();
    auto type = cast<MemRefType>(input.getType());
    int64_t rank = type.getRank();
    Type element = type.getElementType();
    Type compute = accumulatorType(element);
    SmallVector<Value> outer;
    for (int64_t d = 0; d + 1 < rank; ++d)
      outer.push_back(memref::DimOp::create(b, loc, input, d).getResult());
    for (Value &v : outer)
      if (std::optional<int64_t> c = getConstantIntValue(v))
        v = index(b, loc, *c);
    Value rows = product(b, loc, outer);
    Value cols = memref::DimOp::create(b, loc, input, rank - 1);
    if (std::optional<int64_t> c = getConstantIntValue(cols))
      cols = index(b, loc, *c);
    // Short rows get a smaller block (down to one warp): no idle threads
    // waiting at the block-wide reductions.
    int64_t threads = kBlockSize;
    if (std::optional<int64_t> c = getConstantIntValue(cols))
      threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(*c), 32, kBlockSize);
    Kernel k = makeKernel(b, loc, arith::MaxUIOp::create(b, loc, rows, index(b, loc, 1)),
                          nameFor(op), threads);
    OpBuilder &kb = k.body;
    Value live = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                       k.blockId, rows);
    OpBuilder tb = ifThen(kb, loc, live);
    SmallVector<Value> rowIvs = delinearize(tb, loc, k.blockId, outer);
    auto at = [&](Value col) {
      SmallVector<Value> idx(rowIvs);
      idx.push_back(col);
      return idx;
    };
    auto load = [&](OpBuilder &lb, Value col) -> Value {
      Value x = memref::LoadOp::create(lb, loc, input, at(col));
      return convertTo(lb, loc, x, compute, false);
    };
    auto fold = [&](Value init, function_ref<Value(OpBuilder &, Value, Value)> step) {
      auto loop = scf::ForOp::create(tb, loc, k.threadId, cols,
                                     index(tb, loc, threads), ValueRange{init});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      scf::YieldOp::create(
          lb, loc,
          step(lb, loop.getRegionIterArgs()[0], load(lb, loop.getInductionVar())));
      return loop.getResult(0);
    };
    auto fc = cast<FloatType>(compute);
    Value negInf = arith::ConstantOp::create(
        tb, loc, tb.getFloatAttr(fc, APFloat::getInf(fc.getFloatSemantics(), true)));
    Value zero = arith::ConstantOp::create(tb, loc, tb.getFloatAttr(fc, 0.0));
    Value localMax = fold(negInf, [&](OpBuilder &lb, Value acc, Value x) -> Value {
      return arith::MaximumFOp::create(lb, loc, acc, x);
    });
    Value rowMax = gpu::AllReduceOp::create(
        tb, loc, localMax,
        gpu::AllReduceOperationAttr::get(tb.getContext(),
                                         gpu::AllReduceOperation::MAXIMUMF),
        true);
    Value localSum = fold(zero, [&](OpBuilder &lb, Value acc, Value x) -> Value {
      Value e = math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
      return arith::AddFOp::create(lb, loc, acc, e);
    });
    Value rowSum = gpu::AllReduceOp::create(
        tb, loc, localSum,
        gpu::AllReduceOperationAttr::get(tb.getContext(),
                                         gpu::AllReduceOperation::ADD),
        true);
    auto loop = scf::ForOp::create(tb, loc, k.threadId, cols,
                                   index(tb, loc, threads));
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      Value x = load(lb, loop.getInductionVar());
      Value e = math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
      Value y = convertTo(lb, loc, arith::DivFOp::create(lb, loc, e, rowSum),
                          element, false);
      memref::StoreOp::create(lb, loc, y, output, at(loop.getInductionVar()));
    }
    op->erase();
  }

  /// Arg-reductions (argmax/argmin as convert-tide-to-linalg writes them: a
  /// value and an index accumulator, the first element always taken, then a
  /// strict comparison) run in parallel like other reductions. Each thread
  /// keeps its best element and the first index of it; the block reduces
  /// the values with gpu.all_reduce (NaN-propagating for floats: the first
  /// NaN is the result, as in NumPy), then the indices of the threads that
  /// hold that value with a second one (min). False when the payload has
  /// another shape.
  bool lowerArgReduction(linalg::LinalgOp op) {
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
    auto operandsOf = [](auto opTag, Value v,
                         function_ref<bool(Value)> first) -> std::optional<std::pair<Value, Value>> {
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
    auto merge = [&](ArrayRef<Value> pIvs, Value rIv) {
      SmallVector<Value> ivs;
      unsigned pi = 0;
      for (utils::IteratorType it : iters)
        ivs.push_back(it == utils::IteratorType::parallel ? pIvs[pi++] : rIv);
      return ivs;
    };
    // x at reduced position rIv, in the accumulator type.
    auto elementAt = [&](OpBuilder &lb, ArrayRef<Value> pIvs, Value rIv) {
      SmallVector<Value> ivs = merge(pIvs, rIv);
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
      Value vNaN = arith::CmpFOp::create(lb, loc, arith::CmpFPredicate::UNO, v, v);
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
                    function_ref<std::pair<Value, Value>(OpBuilder &, Value)> at) {
      constexpr int64_t kUnroll = 4;
      Value zero = index(kb, loc, 0), one = index(kb, loc, 1);
      Value span = arith::SelectOp::create(
          kb, loc,
          arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, start, end),
          arith::SubIOp::create(kb, loc, end, start), zero);
      Value count = arith::CeilDivUIOp::create(kb, loc, span, step);
      Value full = arith::DivUIOp::create(kb, loc, count, index(kb, loc, kUnroll));
      auto step1 = [&](OpBuilder &lb, std::pair<Value, Value> vi, Value best,
                       Value bestIdx) {
        Value take = takes(lb, vi.first, best, bestIdx);
        return std::make_pair(
            arith::SelectOp::create(lb, loc, take, vi.first, best).getResult(),
            arith::SelectOp::create(lb, loc, take, vi.second, bestIdx).getResult());
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
          elements.push_back(at(
              lb, position(lb, arith::AddIOp::create(lb, loc, j0, index(lb, loc, u)))));
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
        auto acc = step1(lb, at(lb, position(lb, rest.getInductionVar())),
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
          kb, loc, arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::UNO, v, v),
          arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::UNO, w, w));
      return arith::OrIOp::create(
          kb, loc, arith::CmpFOp::create(kb, loc, arith::CmpFPredicate::OEQ, v, w),
          bothNaN);
    };
    // The block's best value (NaN if any) and the smallest index holding it.
    auto blockBest = [&](OpBuilder &kb, Value best, Value bestIdx) {
      Value m = gpu::AllReduceOp::create(
          kb, loc, best, gpu::AllReduceOperationAttr::get(kb.getContext(), kind),
          true);
      Value holds = same(kb, best, m);
      Value idx = gpu::AllReduceOp::create(
          kb, loc, arith::SelectOp::create(kb, loc, holds, bestIdx, none(kb)),
          gpu::AllReduceOperationAttr::get(kb.getContext(), K::MINUI), true);
      return std::make_pair(m, idx);
    };
    // Thread 0 stores the result (rows with no elements keep the inits).
    auto finish = [&](OpBuilder &kb, Value tid, ArrayRef<Value> pIvs, Value m,
                      Value idx) {
      Value first = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                          tid, index(kb, loc, 0));
      Value nonEmpty = arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ugt,
                                             r, index(kb, loc, 0));
      OpBuilder tb = ifThen(kb, loc, arith::AndIOp::create(kb, loc, first, nonEmpty));
      SmallVector<Value> outIvs = merge(pIvs, index(tb, loc, 0));
      Value values[] = {convertTo(tb, loc, m, valueType, false),
                        convertTo(tb, loc, idx, indexType, false)};
      storeResults(tb, loc, op, outIvs, values);
    };
    auto elementWithIndex = [&](ArrayRef<Value> pIvs) {
      return [&, pIvs = SmallVector<Value>(pIvs)](OpBuilder &lb, Value rIv) {
        return std::make_pair(elementAt(lb, pIvs, rIv), i64Of(lb, rIv));
      };
    };

    std::optional<int64_t> staticP = constantOf(p), staticR = constantOf(r);
    bool split = shouldSplit(staticP, staticR);
    std::string name = nameFor(op);
    if (!split) {
      Kernel k = makeKernel(b, loc, arith::MaxUIOp::create(b, loc, p, index(b, loc, 1)),
                            name);
      OpBuilder &kb = k.body;
      OpBuilder tb = ifThen(kb, loc,
                            arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                                  k.blockId, p));
      SmallVector<Value> pIvs = delinearize(tb, loc, k.blockId, pSizes);
      auto [best, bestIdx] = fold(tb, k.threadId, r, index(tb, loc, kBlockSize),
                                  elementWithIndex(pIvs));
      auto [m, idx] = blockBest(tb, best, bestIdx);
      finish(tb, k.threadId, pIvs, m, idx);
      op->erase();
      return true;
    }

    // Split: G blocks per output, each over every G-th stretch of
    // kBlockSize elements, then one block per output over the partials.
    Value g = splitFactor(b, loc, *staticP, staticR, r);
    Value pg = arith::MulIOp::create(b, loc, p, g);
    Value partialValues = allocPartials(b, loc, accType, pg);
    Value partialIndices = allocPartials(b, loc, i64, pg);
    {
      Kernel k = makeKernel(b, loc, pg, name);
      OpBuilder &kb = k.body;
      Value pIndex = arith::DivUIOp::create(kb, loc, k.blockId, g);
      Value gIndex = arith::RemUIOp::create(kb, loc, k.blockId, g);
      SmallVector<Value> pIvs = delinearize(kb, loc, pIndex, pSizes);
      Value start = arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, gIndex, index(kb, loc, kBlockSize)),
          k.threadId);
      Value step = arith::MulIOp::create(kb, loc, g, index(kb, loc, kBlockSize));
      auto [best, bestIdx] = fold(kb, start, r, step, elementWithIndex(pIvs));
      auto [m, idx] = blockBest(kb, best, bestIdx);
      OpBuilder tb = ifThen(kb, loc,
                            arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::eq,
                                                  k.threadId, index(kb, loc, 0)));
      memref::StoreOp::create(tb, loc, m, partialValues, ValueRange{k.blockId});
      memref::StoreOp::create(tb, loc, idx, partialIndices, ValueRange{k.blockId});
    }
    {
      Kernel k = makeKernel(b, loc, p, name + "_partials");
      OpBuilder &kb = k.body;
      SmallVector<Value> pIvs = delinearize(kb, loc, k.blockId, pSizes);
      Value base = arith::MulIOp::create(kb, loc, k.blockId, g);
      // Partials hold increasing index ranges only per stretch, so each is
      // taken on value, and ties go to the smaller index below.
      auto loop = scf::ForOp::create(
          kb, loc, k.threadId, g, index(kb, loc, kBlockSize),
          ValueRange{identityOf(kb, loc, kind, accType), none(kb)});
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        Value at = arith::AddIOp::create(lb, loc, base, loop.getInductionVar());
        Value v = memref::LoadOp::create(lb, loc, partialValues, ValueRange{at});
        Value i = memref::LoadOp::create(lb, loc, partialIndices, ValueRange{at});
        Value best = loop.getRegionIterArgs()[0], bestIdx = loop.getRegionIterArgs()[1];
        Value hasIndex = arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ne, i,
                                               none(lb));
        Value earlier = arith::AndIOp::create(
            lb, loc, same(lb, v, best),
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, i, bestIdx));
        Value take = arith::AndIOp::create(
            lb, loc, hasIndex,
            arith::OrIOp::create(lb, loc, takes(lb, v, best, bestIdx), earlier));
        scf::YieldOp::create(
            lb, loc,
            ValueRange{arith::SelectOp::create(lb, loc, take, v, best),
                       arith::SelectOp::create(lb, loc, take, i, bestIdx)});
      }
      auto [m, idx] = blockBest(kb, loop.getResult(0), loop.getResult(1));
      finish(kb, k.threadId, pIvs, m, idx);
    }
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), partialValues);
    gpu::DeallocOp::create(b, loc, Type(), ValueRange(), partialIndices);
    op->erase();
    return true;
  }

  /// One thread per output point, looping over the reduced elements.
  void lowerSequential(linalg::LinalgOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> sizes = loopSizes(b, op);
    SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
    SmallVector<Value> pSizes, rSizes;
    std::tie(pSizes, rSizes) = splitSizes(sizes, iters);
    Value p = product(b, loc, pSizes), r = product(b, loc, rSizes);
    Kernel k = makeKernel(b, loc, blocksFor(b, loc, p, kBlockSize), nameFor(op));
    OpBuilder &kb = k.body;
    Value gid = globalThreadId(k, loc);
    Value inRange =
        arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, gid, p);
    OpBuilder tb = ifThen(kb, loc, inRange);
    SmallVector<Value> pIvs = delinearize(tb, loc, gid, pSizes);
    auto merge = [&](ArrayRef<Value> rIvs) {
      SmallVector<Value> ivs;
      unsigned pi = 0, ri = 0;
      for (utils::IteratorType it : iters)
        ivs.push_back(it == utils::IteratorType::parallel ? pIvs[pi++]
                                                          : rIvs[ri++]);
      return ivs;
    };
    SmallVector<Value> zeros(rSizes.size(), index(tb, loc, 0));
    SmallVector<Value> outIvs = merge(zeros);
    SmallVector<Value> inits;
    for (OpOperand &init : op.getDpsInitsMutable())
      inits.push_back(memref::LoadOp::create(
          tb, loc, init.get(),
          applyMap(tb, loc, op.getMatchingIndexingMap(&init), outIvs)));
    auto loop = scf::ForOp::create(tb, loc, index(tb, loc, 0), r,
                                   index(tb, loc, 1), inits);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      SmallVector<Value> ivs =
          merge(delinearize(lb, loc, loop.getInductionVar(), rSizes));
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

private:
  SmallVector<Value> loopSizes(OpBuilder &b, linalg::LinalgOp op) {
    SmallVector<Value> sizes;
    for (Range range : op.createLoopRanges(b, op.getLoc()))
      sizes.push_back(
          getValueOrCreateConstantIndexOp(b, op.getLoc(), range.size));
    return sizes;
  }

  func::FuncOp func;
  unsigned counter = 0;
};

bool hasIdentityLayout(Value v) {
  auto type = cast<MemRefType>(v.getType());
  return type.getLayout().isIdentity();
}

void lowerLibraryGemm(ModuleOp module, linalg::MatmulOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  // C = A * B when the op before zero-fills C: cuBLAS overwrites (beta 0)
  // instead of a fill kernel plus an accumulating GEMM.
  bool accumulate = true;
  Value c = op.getDpsInits()[0];
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
      fill && fill.getDpsInits()[0] == c && matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    fill->erase();
    accumulate = false;
  }
  Type element =
      cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType();
  StringRef name = element.isF16()    ? TIDE_RT_GPU_GEMM_F16
                   : element.isBF16() ? TIDE_RT_GPU_GEMM_BF16
                   : element.isF32()  ? TIDE_RT_GPU_GEMM_F32
                                      : TIDE_RT_GPU_GEMM_F64;
  Attribute space = getMemorySpace(DeviceAttr::cuda(b.getContext(), 0));
  auto dynType = MemRefType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic}, element,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                             {ShapedType::kDynamic, 1}),
      space);
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    callee = func::FuncOp::create(
        mb, module.getLoc(), name,
        mb.getFunctionType({dynType, dynType, dynType, mb.getI32Type()}, {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    mb.getUnitAttr());
  }
  SmallVector<Value> operands;
  for (Value v : op->getOperands()) {
    // Resident arguments are device pointers in the default space: the
    // callee's type says the GPU's, which the strip pass removes later.
    Value spaced = v;
    auto type = llvm::cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != dynType.getMemorySpace())
      spaced = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), dynType.getMemorySpace()),
          v);
    operands.push_back(memref::CastOp::create(b, loc, dynType, spaced));
  }
  operands.push_back(arith::ConstantIntOp::create(b, loc, accumulate ? 1 : 0, 32));
  func::CallOp::create(b, loc, callee, operands);
  op->erase();
}

/// A batched matmul through cuBLAS's strided batched GEMM: one call per
/// index of the outer batch dims (host loops), the innermost batch dim as
/// cuBLAS's batch (a broadcast operand has batch stride 0).
void lowerLibraryBatchedGemm(ModuleOp module, linalg::LinalgOp op,
                             ArrayRef<BatchedGemmOperand> operands) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool accumulate = true;
  Value c = op.getDpsInits()[0];
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
      fill && fill.getDpsInits()[0] == c &&
      matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    fill->erase();
    accumulate = false;
  }
  Type element = cast<MemRefType>(c.getType()).getElementType();
  std::string name = std::string(TIDE_RT_GPU_GEMM_PREFIX) + "batched_" +
                     (element.isF16()    ? "f16"
                      : element.isBF16() ? "bf16"
                      : element.isF32()  ? "f32"
                                         : "f64");
  Attribute space = getMemorySpace(DeviceAttr::cuda(b.getContext(), 0));
  int64_t dyn = ShapedType::kDynamic;
  auto viewType = MemRefType::get(
      {dyn, dyn, dyn}, element,
      StridedLayoutAttr::get(b.getContext(), dyn, {dyn, dyn, 1}), space);
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    callee = func::FuncOp::create(
        mb, module.getLoc(), name,
        mb.getFunctionType({viewType, viewType, viewType, mb.getI32Type()}, {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), mb.getUnitAttr());
  }
  int64_t batchRank = cast<MemRefType>(c.getType()).getRank() - 2;
  // Each operand's base, offset, sizes and strides (in the GPU's space:
  // resident arguments are device pointers in the default space).
  struct Meta {
    Value base, offset;
    SmallVector<Value> sizes, strides;
  };
  SmallVector<Meta> metas;
  for (const BatchedGemmOperand &operand : operands) {
    Value v = operand.value;
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != space)
      v = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(), type.getLayout(), space),
          v);
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, v);
    Meta m;
    m.base = meta.getBaseBuffer();
    m.offset = meta.getOffset();
    m.sizes.assign(meta.getSizes().begin(), meta.getSizes().end());
    m.strides.assign(meta.getStrides().begin(), meta.getStrides().end());
    metas.push_back(m);
  }
  const Meta &cMeta = metas[2];
  // Host loops over the outer batch dims.
  SmallVector<Value> ivs;
  OpBuilder ib = b;
  for (int64_t d = 0; d + 1 < batchRank; ++d) {
    auto loop = scf::ForOp::create(ib, loc, index(ib, loc, 0), cMeta.sizes[d],
                                   index(ib, loc, 1));
    ivs.push_back(loop.getInductionVar());
    ib = OpBuilder::atBlockBegin(loop.getBody());
    ib.setInsertionPoint(loop.getBody()->getTerminator());
  }
  Value batch = cMeta.sizes[batchRank - 1];
  SmallVector<Value> views;
  for (auto [operand, meta] : llvm::zip(operands, metas)) {
    Value offset = meta.offset;
    for (int64_t d = 0; d + 1 < batchRank; ++d)
      if (std::optional<int64_t> dim = operand.dimOf[d])
        offset = arith::AddIOp::create(
            ib, loc, offset, arith::MulIOp::create(ib, loc, ivs[d], meta.strides[*dim]));
    Value batchStride = index(ib, loc, 0);
    if (std::optional<int64_t> dim = operand.dimOf[batchRank - 1])
      batchStride = meta.strides[*dim];
    int64_t r = meta.sizes.size();
    SmallVector<OpFoldResult> sizes{batch, meta.sizes[r - 2], meta.sizes[r - 1]};
    SmallVector<OpFoldResult> strides{batchStride, meta.strides[r - 2], ib.getIndexAttr(1)};
    views.push_back(memref::ReinterpretCastOp::create(ib, loc, viewType, meta.base,
                                                      OpFoldResult(offset), sizes, strides));
  }
  views.push_back(arith::ConstantIntOp::create(ib, loc, accumulate ? 1 : 0, 32));
  func::CallOp::create(ib, loc, callee, views);
  op->erase();
}

struct ConvertLinalgToGPUPass
    : public tide::impl::ConvertLinalgToGPUPassBase<ConvertLinalgToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool ok = true;
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      DenseSet<Value> resident;
      collectResident(func, resident);
      residentValues = &resident;
      llvm::scope_exit reset([] { residentValues = nullptr; });
      KernelBuilder kernels(func);
      SmallVector<Operation *> work;
      func.walk([&](Operation *op) {
        if (op->getParentOfType<gpu::LaunchOp>())
          return;
        if (isa<linalg::LinalgOp, linalg::SoftmaxOp, memref::AllocOp,
                memref::AllocaOp, memref::DeallocOp, memref::CopyOp>(op) &&
            llvm::any_of(op->getOperands(), onDevice))
          work.push_back(op);
        else if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
                 onDevice(op->getResult(0)))
          work.push_back(op);
      });
      for (Operation *op : work) {
        OpBuilder b(op);
        Location loc = op->getLoc();
        if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
          Value dev = gpu::AllocOp::create(b, loc, alloc.getType(), Type(),
                                           ValueRange(),
                                           alloc.getDynamicSizes(),
                                           alloc.getSymbolOperands(), false)
                          .getMemref();
          alloc.replaceAllUsesWith(dev);
          alloc.erase();
        } else if (isa<memref::AllocaOp>(op)) {
          op->emitError("a stack allocation in GPU memory cannot be lowered");
          ok = false;
        } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
          gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                                 dealloc.getMemref());
          dealloc.erase();
        } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          Value src = copy.getSource(), dst = copy.getTarget();
          if (hasIdentityLayout(src) && hasIdentityLayout(dst)) {
            gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), dst, src);
            copy.erase();
          } else if (onDevice(src) && onDevice(dst)) {
            auto lcopy = linalg::CopyOp::create(b, loc, src, dst);
            copy.erase();
            kernels.lowerParallel(cast<linalg::LinalgOp>(lcopy.getOperation()));
          } else {
            // A strided view on one side: go through a contiguous buffer on
            // that side (a kernel gathers on the GPU, memref.copy on the
            // host).
            bool srcDev = onDevice(src);
            Value strided = hasIdentityLayout(src) ? dst : src;
            auto type = cast<MemRefType>(strided.getType());
            auto flat = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(),
                                        type.getMemorySpace());
            SmallVector<Value> dyn;
            for (int64_t d = 0; d < type.getRank(); ++d)
              if (type.isDynamicDim(d))
                dyn.push_back(memref::DimOp::create(b, loc, strided, d));
            bool stridedOnDevice = onDevice(strided);
            Value tmp =
                stridedOnDevice
                    ? gpu::AllocOp::create(b, loc, flat, Type(), ValueRange(),
                                           dyn, ValueRange(), false)
                          .getMemref()
                    : memref::AllocOp::create(b, loc, flat, dyn).getResult();
            bool gatherFirst = strided == src;
            Operation *gather = nullptr;
            if (gatherFirst) {
              if (stridedOnDevice)
                gather = linalg::CopyOp::create(b, loc, src, tmp);
              else
                memref::CopyOp::create(b, loc, src, tmp);
              gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), dst, tmp);
            } else {
              gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), tmp, src);
              if (stridedOnDevice)
                gather = linalg::CopyOp::create(b, loc, tmp, dst);
              else
                memref::CopyOp::create(b, loc, tmp, dst);
            }
            if (stridedOnDevice)
              gpu::DeallocOp::create(b, loc, Type(), ValueRange(), tmp);
            else
              memref::DeallocOp::create(b, loc, tmp);
            (void)srcDev;
            copy.erase();
            if (gather)
              kernels.lowerParallel(cast<linalg::LinalgOp>(gather));
          }
        } else if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
          if (!onDevice(softmax.getInput()) || !onDevice(softmax.getOutput())) {
            op->emitError("mixes host and GPU memory; every operand of a "
                          "GPU op must be in GPU memory");
            ok = false;
            continue;
          }
          kernels.lowerSoftmax(softmax);
        } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
          if (!llvm::all_of(linalgOp->getOperands(), [](Value v) {
                return !isa<MemRefType>(v.getType()) || onDevice(v);
              })) {
            op->emitError("mixes host and GPU memory; every operand of a "
                          "GPU op must be in GPU memory");
            ok = false;
            continue;
          }
          // A zero fill right before a library GEMM of the same buffer is
          // folded into the GEMM (beta = 0).
          if (auto fill = dyn_cast<linalg::FillOp>(op)) {
            auto next = dyn_cast_or_null<linalg::LinalgOp>(op->getNextNode());
            auto nextMatmul = dyn_cast_or_null<linalg::MatmulOp>(op->getNextNode());
            if (next && useLibrary &&
                ((nextMatmul && isLibraryGemm(nextMatmul, GemmLibrary::CuBlas)) ||
                 !matchBatchedGemm(next, GemmLibrary::CuBlas).empty()) &&
                next.getDpsInits()[0] == fill.getDpsInits()[0] &&
                matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
              continue;
          }
          auto matmul = dyn_cast<linalg::MatmulOp>(op);
          SmallVector<BatchedGemmOperand> batched;
          if (useLibrary)
            batched = matchBatchedGemm(linalgOp, GemmLibrary::CuBlas);
          if (matmul && useLibrary && isLibraryGemm(matmul, GemmLibrary::CuBlas))
            lowerLibraryGemm(module, matmul);
          else if (!batched.empty())
            lowerLibraryBatchedGemm(module, linalgOp, batched);
          else if (linalgOp.getNumReductionLoops() == 0)
            kernels.lowerParallel(linalgOp);
          else if (!kernels.lowerReduction(linalgOp) &&
                   !kernels.lowerArgReduction(linalgOp))
            kernels.lowerSequential(linalgOp);
        }
      }
      if (!func.isExternal())
        hoistHostAllocations(func.getBody().front());
      // Nothing left may read or write GPU memory from the host.
      func.walk([&](Operation *op) {
        if (op->getParentOfType<gpu::LaunchOp>())
          return;
        if (isa<memref::LoadOp, memref::StoreOp>(op) &&
            llvm::any_of(op->getOperands(), onDevice)) {
          op->emitError("reads or writes GPU memory on the host");
          ok = false;
        }
      });
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
