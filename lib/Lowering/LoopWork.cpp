//===- LoopWork.cpp - Innermost iterations of a loop nest ----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "LoopWork.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tide;

bool LoopWork::definedOutside(Value value) const {
  Operation *owner = value.getDefiningOp();
  if (!owner)
    owner = value.getParentBlock()->getParentOp();
  return !root->isAncestor(owner);
}

std::optional<int64_t> LoopWork::getStatic(std::optional<OpFoldResult> work) {
  if (!work)
    return std::nullopt;
  return getConstantIntValue(*work);
}

std::optional<OpFoldResult> LoopWork::mul(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  if (x && y)
    return OpFoldResult(
        builder
            ? builder->getIndexAttr(*x * *y)
            : IntegerAttr::get(IndexType::get(root->getContext()), *x * *y));
  if ((x && *x == 1) || (y && *y == 0))
    return b;
  if ((y && *y == 1) || (x && *x == 0))
    return a;
  if (!builder)
    return std::nullopt;
  Location loc = root->getLoc();
  return OpFoldResult(builder->createOrFold<arith::MulIOp>(
      loc, getValueOrCreateConstantIndexOp(*builder, loc, a),
      getValueOrCreateConstantIndexOp(*builder, loc, b)));
}

std::optional<OpFoldResult> LoopWork::add(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  if (x && y)
    return OpFoldResult(
        IntegerAttr::get(IndexType::get(root->getContext()), *x + *y));
  if (x && *x == 0)
    return b;
  if (y && *y == 0)
    return a;
  if (!builder)
    return std::nullopt;
  Location loc = root->getLoc();
  return OpFoldResult(builder->createOrFold<arith::AddIOp>(
      loc, getValueOrCreateConstantIndexOp(*builder, loc, a),
      getValueOrCreateConstantIndexOp(*builder, loc, b)));
}

std::optional<OpFoldResult>
LoopWork::tripCount(OpFoldResult lb, OpFoldResult ub, OpFoldResult step) {
  MLIRContext *ctx = root->getContext();
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (l && u && s && *s > 0)
    return OpFoldResult(IntegerAttr::get(
        IndexType::get(ctx), *u > *l ? (*u - *l + *s - 1) / *s : 0));
  // A chunk [lb, lb + c) (tide-parallelize-loops' chunks of an innermost
  // dimension): c / step iterations, whatever lb is.
  if (auto value = dyn_cast<Value>(ub); value && s && *s > 0)
    if (auto add = value.getDefiningOp<arith::AddIOp>())
      for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                          std::pair(add.getRhs(), add.getLhs())})
        if (OpFoldResult(x) == lb)
          if (std::optional<int64_t> c = getConstantIntValue(y); c && *c >= 0)
            return OpFoldResult(
                IntegerAttr::get(IndexType::get(ctx), (*c + *s - 1) / *s));
  if (!builder)
    return std::nullopt;
  // A bound computed inside the nest: count the loop once.
  for (OpFoldResult bound : {lb, ub, step})
    if (auto value = dyn_cast<Value>(bound); value && !definedOutside(value))
      return OpFoldResult(IntegerAttr::get(IndexType::get(ctx), 1));
  Location loc = root->getLoc();
  OpBuilder &b = *builder;
  Value lo = getValueOrCreateConstantIndexOp(b, loc, lb);
  Value hi = getValueOrCreateConstantIndexOp(b, loc, ub);
  Value st = getValueOrCreateConstantIndexOp(b, loc, step);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value span = b.createOrFold<arith::SubIOp>(loc, hi, lo);
  Value up = b.createOrFold<arith::AddIOp>(
      loc, span, b.createOrFold<arith::SubIOp>(loc, st, one));
  Value trips = b.createOrFold<arith::DivSIOp>(loc, up, st);
  return OpFoldResult(b.createOrFold<arith::MaxSIOp>(loc, trips, zero));
}

std::optional<OpFoldResult> LoopWork::ofRegion(Region &region) {
  OpFoldResult total = IntegerAttr::get(IndexType::get(root->getContext()), 0);
  for (Block &block : region)
    for (Operation &op : block) {
      std::optional<OpFoldResult> work = ofOp(&op);
      if (!work)
        return std::nullopt;
      std::optional<OpFoldResult> sum = add(total, *work);
      if (!sum)
        return std::nullopt;
      total = *sum;
    }
  // A body without loops: one iteration, or as many as the elements its
  // vector stores write (a 16x16 block of tide-tile-transposes is 256
  // elements' work, not one).
  if (std::optional<int64_t> t = getConstantIntValue(total); t && *t == 0)
    return OpFoldResult(
        IntegerAttr::get(IndexType::get(root->getContext()),
                         std::max<int64_t>(1, storedElements(region))));
  return total;
}

int64_t LoopWork::storedElements(Region &region) {
  int64_t elements = 0;
  for (Block &block : region)
    for (Operation &op : block) {
      Value stored;
      if (auto store = dyn_cast<vector::StoreOp>(op))
        stored = store.getValueToStore();
      else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
        stored = write.getVector();
      else if (auto masked = dyn_cast<vector::MaskedStoreOp>(op))
        stored = masked.getValueToStore();
      if (auto type =
              dyn_cast_or_null<VectorType>(stored ? stored.getType() : Type()))
        elements += type.getNumElements();
    }
  return elements;
}

std::optional<OpFoldResult> LoopWork::ofOp(Operation *op) {
  SmallVector<OpFoldResult> lbs, ubs, steps;
  if (auto loop = dyn_cast<LoopLikeOpInterface>(op)) {
    std::optional<SmallVector<OpFoldResult>> l = loop.getLoopLowerBounds(),
                                             u = loop.getLoopUpperBounds(),
                                             s = loop.getLoopSteps();
    if (l && u && s) {
      lbs = *l;
      ubs = *u;
      steps = *s;
    }
  } else if (auto nest = dyn_cast<omp::LoopNestOp>(op)) {
    for (auto [l, u, s] :
         llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                   nest.getLoopSteps())) {
      lbs.push_back(l);
      ubs.push_back(u);
      steps.push_back(s);
    }
  }
  OpFoldResult zero = IntegerAttr::get(IndexType::get(root->getContext()), 0);
  if (op->getNumRegions() == 0)
    return zero;
  OpFoldResult body = zero;
  for (Region &region : op->getRegions()) {
    std::optional<OpFoldResult> work = ofRegion(region);
    if (!work)
      return std::nullopt;
    std::optional<OpFoldResult> sum = add(body, *work);
    if (!sum)
      return std::nullopt;
    body = *sum;
  }
  for (auto [l, u, s] : llvm::zip(lbs, ubs, steps)) {
    std::optional<OpFoldResult> trips = tripCount(l, u, s);
    if (!trips)
      return std::nullopt;
    std::optional<OpFoldResult> product = mul(body, *trips);
    if (!product)
      return std::nullopt;
    body = *product;
  }
  return body;
}

std::optional<OpFoldResult> LoopWork::ofRoot() { return ofOp(root); }
