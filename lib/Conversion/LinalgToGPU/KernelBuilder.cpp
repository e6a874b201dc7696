//===- KernelBuilder.cpp - Index math, payloads and launches --------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// What every strategy of convert-linalg-to-gpu builds kernels with: the
// per-function KernelBuilder (which buffers are on which GPU, kernel names),
// index arithmetic, payload cloning and 1-D launches.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

KernelBuilder::KernelBuilder(func::FuncOp func) : func(func) {
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    DeviceAttr device = getArgumentResidence(func, i);
    if (device && device.isGPU())
      resident[func.getArgument(i)] = device;
  }
  func.walk([&](Operation *op) {
    if (!isa<ViewLikeOpInterface, memref::CastOp, memref::ReshapeOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp>(op))
      return;
    if (!op->getNumOperands())
      return;
    auto it = resident.find(op->getOperand(0));
    if (it == resident.end())
      return;
    DeviceAttr device = it->second;
    for (Value r : op->getResults())
      resident[r] = device;
  });
}

DeviceAttr KernelBuilder::getBufferDevice(Value v) const {
  auto type = dyn_cast<BaseMemRefType>(v.getType());
  if (!type)
    return {};
  if (DeviceAttr device = resident.lookup(v))
    return device;
  return getMemorySpaceDevice(type.getMemorySpace());
}

DeviceAttr KernelBuilder::getOpDevice(Operation *op) const {
  for (Value v : op->getOperands())
    if (DeviceAttr device = getBufferDevice(v))
      return device;
  for (Value v : op->getResults())
    if (DeviceAttr device = getBufferDevice(v))
      return device;
  return {};
}

std::string KernelBuilder::nameFor(Operation *op) {
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

//===----------------------------------------------------------------------===//
// Index math and payloads
//===----------------------------------------------------------------------===//

Value gpu_lowering::index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value gpu_lowering::product(OpBuilder &b, Location loc,
                            ArrayRef<Value> values) {
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

SmallVector<Value> gpu_lowering::delinearize(OpBuilder &b, Location loc,
                                             Value linear,
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

SmallVector<Value> gpu_lowering::applyMap(OpBuilder &b, Location loc,
                                          AffineMap map, ArrayRef<Value> ivs) {
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

SmallVector<Value> gpu_lowering::loopSizes(OpBuilder &b, linalg::LinalgOp op) {
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(b, op.getLoc()))
    sizes.push_back(
        getValueOrCreateConstantIndexOp(b, op.getLoc(), range.size));
  return sizes;
}

std::pair<SmallVector<Value>, SmallVector<Value>>
gpu_lowering::splitSizes(ArrayRef<Value> sizes,
                         ArrayRef<utils::IteratorType> iters) {
  SmallVector<Value> parallel, reduction;
  for (auto [size, it] : llvm::zip(sizes, iters))
    (it == utils::IteratorType::parallel ? parallel : reduction)
        .push_back(size);
  return {parallel, reduction};
}

ReductionLoops gpu_lowering::getReductionLoops(OpBuilder &b,
                                               linalg::LinalgOp op) {
  Location loc = op.getLoc();
  ReductionLoops loops;
  SmallVector<Value> sizes = loopSizes(b, op);
  loops.iters = op.getIteratorTypesArray();
  std::tie(loops.pSizes, loops.rSizes) = splitSizes(sizes, loops.iters);
  loops.p = product(b, loc, loops.pSizes);
  loops.r = product(b, loc, loops.rSizes);
  return loops;
}

SmallVector<Value> gpu_lowering::mergeIvs(ArrayRef<utils::IteratorType> iters,
                                          ArrayRef<Value> pIvs,
                                          ArrayRef<Value> rIvs) {
  SmallVector<Value> ivs;
  unsigned pi = 0, ri = 0;
  for (utils::IteratorType it : iters)
    ivs.push_back(it == utils::IteratorType::parallel ? pIvs[pi++]
                                                      : rIvs[ri++]);
  return ivs;
}

void gpu_lowering::loadOperands(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                ArrayRef<Value> ivs, IRMapping &mapping,
                                bool inits) {
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

void gpu_lowering::clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                ArrayRef<Value> ivs, IRMapping &mapping,
                                Operation *skip) {
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

void gpu_lowering::storeResults(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                ArrayRef<Value> ivs, ValueRange values) {
  for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable()))
    memref::StoreOp::create(
        b, loc, values[i], init.get(),
        applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
}

Type gpu_lowering::accumulatorType(Type type) {
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  if (auto i = dyn_cast<IntegerType>(type); i && i.getWidth() < 32)
    return IntegerType::get(type.getContext(), 32);
  return type;
}

Value gpu_lowering::convertTo(OpBuilder &b, Location loc, Value v, Type to,
                              bool isUnsigned) {
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

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

Kernel gpu_lowering::makeKernel(OpBuilder &b, Location loc, Value blocks,
                                StringRef name, int64_t blockSize) {
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

Value gpu_lowering::globalThreadId(Kernel &k, Location loc, int64_t blockSize) {
  return arith::AddIOp::create(
      k.body, loc,
      arith::MulIOp::create(k.body, loc, k.blockId,
                            index(k.body, loc, blockSize)),
      k.threadId);
}

OpBuilder gpu_lowering::ifThen(OpBuilder &b, Location loc, Value cond) {
  return scf::IfOp::create(b, loc, cond, /*withElse=*/false)
      .getThenBodyBuilder();
}

Value gpu_lowering::blocksFor(OpBuilder &b, Location loc, Value n, int64_t d) {
  Value blocks = arith::CeilDivUIOp::create(b, loc, n, index(b, loc, d));
  return arith::MaxUIOp::create(b, loc, blocks, index(b, loc, 1));
}

std::pair<OpBuilder, Value> gpu_lowering::launchPerItem(OpBuilder &b,
                                                        Location loc, Value n,
                                                        StringRef name) {
  Kernel k = makeKernel(b, loc, blocksFor(b, loc, n, kBlockSize), name);
  Value item = globalThreadId(k, loc);
  Value inRange =
      arith::CmpIOp::create(k.body, loc, arith::CmpIPredicate::ult, item, n);
  return {ifThen(k.body, loc, inRange), item};
}
