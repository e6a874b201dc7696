//===- TileAndFuseRows.cpp - Reductions and their consumers by row tiles --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tide {
#define GEN_PASS_DEF_TILEANDFUSEROWSPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Whether `op` runs on the host: no tide.device, or a CPU one.
bool onHost(Operation *op) {
  auto device = op->getAttrOfType<DeviceAttr>(TideDialect::getDeviceAttrName());
  return !device || device.isCPU();
}

/// A tensor-level linalg op that can join a group: on the host, every
/// indexing map a projected permutation, one result, and not a contraction
/// (a matmul or a convolution stays whole for the BLAS).
bool isCandidate(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
      op->getNumResults() != 1 || !isa<TilingInterface>(op) || !onHost(op))
    return false;
  if (linalgOp.getNumReductionLoops() > 0 && linalgOp.getNumDpsInputs() >= 2)
    return false;
  return llvm::all_of(linalgOp.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

/// The ops that can be computed tile by tile with a root: for each one, the
/// loop dimensions of its own that the root's tiled loops map to (in the
/// root's order).
struct Group {
  llvm::MapVector<Operation *, SmallVector<unsigned>> members;
  bool conflict = false;
};

/// For `op` with its tiled loops `loops`, the producers of its tensor
/// operands whose tiles depend on every tiled loop.
void collect(linalg::LinalgOp op, ArrayRef<unsigned> loops, Group &group) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    Operation *producer = operand.get().getDefiningOp();
    if (!isCandidate(producer))
      continue;
    // The operand's dimensions that each tiled loop indexes.
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<unsigned> dims;
    for (unsigned loop : loops) {
      std::optional<unsigned> pos =
          map.getResultPosition(getAffineDimExpr(loop, op.getContext()));
      if (!pos)
        break; // the operand is broadcast along a tiled loop
      dims.push_back(*pos);
    }
    if (dims.size() != loops.size())
      continue;
    // Through the producer's result map, to the producer's loops.
    auto producerOp = cast<linalg::LinalgOp>(producer);
    AffineMap out =
        producerOp.getIndexingMapMatchingResult(cast<OpResult>(operand.get()));
    SmallVector<unsigned> producerLoops;
    for (unsigned dim : dims)
      producerLoops.push_back(
          cast<AffineDimExpr>(out.getResult(dim)).getPosition());
    auto [it, inserted] = group.members.try_emplace(producer, producerLoops);
    if (!inserted) {
      if (it->second != producerLoops)
        group.conflict = true;
      continue;
    }
    collect(producerOp, producerLoops, group);
  }
}

/// Removes the members with a user outside the group (their results would
/// have to be computed whole anyway), and what is then no longer reachable
/// from the root through members.
void prune(Operation *root, Group &group) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto &[op, loops] : group.members) {
      bool outside = llvm::any_of(op->getUsers(), [&](Operation *user) {
        return user != root && !group.members.count(user);
      });
      if (outside) {
        group.members.erase(op);
        changed = true;
        break;
      }
    }
    if (changed) {
      // Reachability from the root through the remaining members.
      llvm::SetVector<Operation *> reached;
      SmallVector<Operation *> work = {root};
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        for (Value operand : op->getOperands())
          if (Operation *def = operand.getDefiningOp();
              def && group.members.count(def) && reached.insert(def))
            work.push_back(def);
      }
      group.members.remove_if(
          [&](auto &entry) { return !reached.contains(entry.first); });
    }
  }
}

/// Keeps tide.device on the linalg ops that a pattern creates in place of
/// one that had it.
struct KeepDevice : public RewriterBase::Listener {
  SmallVector<Attribute> devices;

  void notifyPatternBegin(const Pattern &, Operation *op) override {
    devices.push_back(op->getAttr(TideDialect::getDeviceAttrName()));
  }
  void notifyPatternEnd(const Pattern &, LogicalResult) override {
    devices.pop_back();
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (!devices.empty() && devices.back() && isa<linalg::LinalgOp>(op) &&
        !op->hasAttr(TideDialect::getDeviceAttrName()))
      op->setAttr(TideDialect::getDeviceAttrName(), devices.back());
  }
};

struct TileAndFuseRowsPass
    : public tide::impl::TileAndFuseRowsPassBase<TileAndFuseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileBytes < 1 || minBytes < 0) {
      getOperation().emitError()
          << "tide-tile-and-fuse-rows: invalid 'tile-bytes' "
          << static_cast<int64_t>(tileBytes) << " or 'min-bytes' "
          << static_cast<int64_t>(minBytes)
          << "; expected a positive tile and a non-negative minimum";
      return signalPassFailure();
    }
    // Reductions that keep their reduced dimensions write through maps
    // like (d0, d1) -> (d0, 0), which upstream's tiling does not handle:
    // unit dimensions are dropped from the ops of the groups found first
    // (reshapes between them fold away; other ops are left as they are),
    // then the groups are found again and tiled.
    DenseSet<Operation *> grouped;
    forEachGroup([&](Operation *root, ArrayRef<int64_t>, const Group &group) {
      grouped.insert(root);
      for (auto &entry : group.members)
        grouped.insert(entry.first);
      return true;
    });
    if (grouped.empty()) {
      fuseIntoReductions();
      computeInPlace();
      return;
    }
    if (failed(dropUnitDims(grouped)))
      return signalPassFailure();
    bool tiled = false;
    IRRewriter rewriter(&getContext());
    forEachGroup(
        [&](Operation *root, ArrayRef<int64_t> sizes, const Group &group) {
          if (failed(tileAndFuse(rewriter, root, sizes, group)))
            return false; // left whole: still correct, one pass per op
          tiled = true;
          return true;
        });
    if (!tiled) {
      fuseIntoReductions();
      computeInPlace();
      return;
    }
    // A tile's intermediate results get buffers of the tile's size, not
    // slices of whole-tensor ones.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // A producer read by two fused ops (the exponentials, by the sum and
    // the division) is fused once per slice: the copies are the same ops on
    // the same slices.
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, getOperation());
    fuseIntoReductions();
    computeInPlace();
  }

  /// An elementwise op that reads, element for element, an intermediate
  /// result nothing else reads (softmax's division of the exponentials, a
  /// layer norm's scaling of the centred values) overwrites it: the
  /// intermediate is computed into the op's destination (the tile of the
  /// result) and the op updates it in place, where it would otherwise be
  /// written to a scratch buffer and read back, one more stream through the
  /// cache per tile.
  void computeInPlace() {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (onHost(op) && op.hasPureTensorSemantics() &&
          op.getNumReductionLoops() == 0 && op.getNumDpsInits() == 1 &&
          op->getNumResults() == 1)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance;
    for (linalg::GenericOp op : ops) {
      OpOperand *init = op.getDpsInitOperand(0);
      AffineMap map = op.getMatchingIndexingMap(init);
      if (op.payloadUsesValueFromOperand(init) || !map.isIdentity())
        continue;
      for (OpOperand *input : op.getDpsInputOperands()) {
        auto value = dyn_cast<OpResult>(input->get());
        auto producer =
            value ? dyn_cast<linalg::GenericOp>(value.getOwner()) : nullptr;
        if (!producer || !value.hasOneUse() ||
            value.getType() != op->getResult(0).getType() ||
            op.getMatchingIndexingMap(input) != map ||
            producer->getBlock() != op->getBlock() || !onHost(producer) ||
            !producer.hasPureTensorSemantics())
          continue;
        OpOperand *producerInit =
            producer.getDpsInitOperand(value.getResultNumber());
        if (!producerInit->get().getDefiningOp<tensor::EmptyOp>() ||
            producer.payloadUsesValueFromOperand(producerInit))
          continue;
        // The op's destination (a slice of the tiles' shared result, or an
        // empty tensor) must be there before the producer.
        Value dest = init->get();
        if (!dominance.properlyDominates(dest, producer)) {
          Operation *def = dest.getDefiningOp();
          if (!def || !isa<tensor::ExtractSliceOp, tensor::EmptyOp>(def) ||
              !dest.hasOneUse() ||
              llvm::any_of(def->getOperands(), [&](Value operand) {
                return !dominance.properlyDominates(operand, producer);
              }))
            continue;
          rewriter.moveOpBefore(def, producer);
        }
        Operation *empty = producerInit->get().getDefiningOp();
        rewriter.modifyOpInPlace(producer, [&] { producerInit->set(dest); });
        if (empty->use_empty())
          rewriter.eraseOp(empty);
        // The op again, with the intermediate as its destination and its
        // element read from the destination's block argument.
        SmallVector<Value> inputs;
        SmallVector<AffineMap> maps;
        for (OpOperand *other : op.getDpsInputOperands())
          if (other != input) {
            inputs.push_back(other->get());
            maps.push_back(op.getMatchingIndexingMap(other));
          }
        maps.push_back(map);
        unsigned argument = input->getOperandNumber();
        rewriter.setInsertionPoint(op);
        auto inPlace = linalg::GenericOp::create(
            rewriter, op.getLoc(), op->getResultTypes(), inputs,
            ValueRange{value}, maps, op.getIteratorTypesArray());
        for (NamedAttribute attr : op->getDiscardableAttrs())
          inPlace->setAttr(attr.getName(), attr.getValue());
        rewriter.inlineRegionBefore(op.getRegion(), inPlace.getRegion(),
                                    inPlace.getRegion().begin());
        Block &body = inPlace.getRegion().front();
        rewriter.replaceAllUsesWith(body.getArgument(argument),
                                    body.getArguments().back());
        body.eraseArgument(argument);
        rewriter.replaceOp(op, inPlace->getResults());
        break;
      }
    }
  }

  /// An elementwise op whose result a reduction reads, and later ops too
  /// (softmax's exponentials: the sum, then the division; a layer norm's
  /// centred values: the variance, then the scaling), is computed in the
  /// reduction's loop nest, which writes it out as a second result
  /// (upstream's elementwise fusion keeps a producer's result that has other
  /// users): one pass over the rows instead of two, in the tiles and in
  /// functions too small to tile alike.
  void fuseIntoReductions() {
    SmallVector<OpOperand *> candidates;
    getOperation().walk([&](linalg::GenericOp consumer) {
      if (!onHost(consumer) || !consumer.hasPureTensorSemantics() ||
          consumer.getNumReductionLoops() == 0 ||
          consumer.getNumDpsInputs() != 1 || consumer->getNumResults() != 1)
        return;
      OpOperand *input = consumer.getDpsInputOperand(0);
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || producer->hasOneUse() || !onHost(producer) ||
          producer->getNumResults() != 1 ||
          producer.getNumReductionLoops() != 0 ||
          producer->getBlock() != consumer->getBlock())
        return;
      // The other users come after the reduction: they read the fused op's
      // second result, defined where the reduction was.
      for (Operation *user : producer->getUsers())
        if (user != consumer && (user->getBlock() != consumer->getBlock() ||
                                 !consumer->isBeforeInBlock(user)))
          return;
      if (linalg::areElementwiseOpsFusable(input))
        candidates.push_back(input);
    });
    IRRewriter rewriter(&getContext());
    for (OpOperand *input : candidates) {
      auto consumer = cast<linalg::GenericOp>(input->getOwner());
      Operation *producer = input->get().getDefiningOp();
      Attribute device = consumer->getAttr(TideDialect::getDeviceAttrName());
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, input);
      if (failed(fused))
        continue;
      for (auto [from, to] : fused->replacements)
        rewriter.replaceUsesWithIf(from, to, [&](OpOperand &use) {
          return use.getOwner() != fused->fusedOp;
        });
      if (device)
        fused->fusedOp->setAttr(TideDialect::getDeviceAttrName(), device);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
    }
  }

  /// Calls `fn` on each root worth tiling, last first, with its tile sizes
  /// and group; an op that joins a later root's group (when `fn` returns
  /// true) is not a root of its own.
  void forEachGroup(
      function_ref<bool(Operation *, ArrayRef<int64_t>, const Group &)> fn) {
    SmallVector<Operation *> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        ops.push_back(op);
    });
    DenseSet<Operation *> taken;
    for (Operation *op : llvm::reverse(ops)) {
      if (taken.contains(op))
        continue;
      std::optional<SmallVector<int64_t>> sizes = tileSizes(op);
      if (!sizes)
        continue;
      SmallVector<unsigned> loops;
      for (auto [loop, size] : llvm::enumerate(*sizes))
        if (size != 0)
          loops.push_back(loop);
      Group group;
      collect(cast<linalg::LinalgOp>(op), loops, group);
      if (group.conflict)
        continue;
      prune(op, group);
      bool reduces = llvm::any_of(group.members, [](auto &entry) {
        return cast<linalg::LinalgOp>(entry.first).getNumReductionLoops() > 0;
      });
      if (!reduces)
        continue;
      SmallVector<Operation *> members;
      for (auto &entry : group.members)
        members.push_back(entry.first);
      if (fn(op, *sizes, group))
        taken.insert(members.begin(), members.end());
    }
  }

  LogicalResult dropUnitDims(const DenseSet<Operation *> &ops) {
    linalg::ControlDropUnitDims control;
    control.controlFn = [&](Operation *op) -> SmallVector<unsigned> {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !ops.contains(op))
        return {};
      return llvm::to_vector(llvm::seq<unsigned>(0, generic.getNumLoops()));
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldUnitExtentDimsPatterns(patterns, control);
    linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(patterns,
                                                               control);
    KeepDevice listener;
    GreedyRewriteConfig config;
    config.setListener(&listener);
    return applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }

  /// The root's tile sizes: its parallel loops but the innermost loop are
  /// tiled, the last tiled one by as many iterations as fill `tileBytes`
  /// (the others by 1). None when the root is not worth tiling.
  std::optional<SmallVector<int64_t>> tileSizes(Operation *op) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
      return std::nullopt;
    int64_t elementBytes =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    if (type.getNumElements() * elementBytes < minBytes)
      return std::nullopt;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    unsigned n = ranges.size();
    // Static loops only (a static result can still have dynamic loops: an
    // empty result broadcast from dynamic operands), and no empty ones.
    if (n < 2 || llvm::any_of(
                     ranges,
                     [](int64_t range) {
                       return ShapedType::isDynamic(range) || range <= 0;
                     }))
      return std::nullopt;
    SmallVector<utils::IteratorType> kinds = linalgOp.getIteratorTypesArray();
    SmallVector<int64_t> sizes(n, 0);
    int64_t rowElements = 1;
    int last = -1;
    for (unsigned loop = 0; loop < n; ++loop) {
      if (loop + 1 < n && kinds[loop] == utils::IteratorType::parallel) {
        sizes[loop] = 1;
        last = loop;
      } else {
        rowElements *= ranges[loop];
      }
    }
    if (last < 0)
      return std::nullopt;
    int64_t rows = std::min(
        ranges[last],
        std::max<int64_t>(1, tileBytes / (rowElements * elementBytes)));
    // Prefer a row count that divides the rows (down to half the tile): no
    // partial last tile (a 4096x1000 f32 softmax in tiles of 3 rows took
    // 2.74 ms a call against 2.40 in tiles of 2 or 4).
    for (int64_t r = rows; r > 0 && 2 * r >= rows; --r) {
      if (ranges[last] % r == 0) {
        rows = r;
        break;
      }
    }
    sizes[last] = rows;
    return sizes;
  }

  LogicalResult tileAndFuse(RewriterBase &rewriter, Operation *root,
                            ArrayRef<int64_t> sizes, const Group &group) {
    scf::SCFTileAndFuseOptions options;
    options.tilingOptions.setTileSizes(
        getAsIndexOpFoldResult(&getContext(), sizes));
    options.tilingOptions.setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          if (!group.members.count(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    rewriter.setInsertionPoint(root);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root), options);
    if (failed(result))
      return failure();
    Attribute device = root->getAttr(TideDialect::getDeviceAttrName());
    if (device)
      for (Operation *op : result->tiledAndFusedOps)
        if (!op->hasAttr(TideDialect::getDeviceAttrName()))
          op->setAttr(TideDialect::getDeviceAttrName(), device);
    for (OpResult value : root->getResults())
      if (Value replacement = result->replacements.lookup(value))
        rewriter.replaceAllUsesWith(value, replacement);
    // The root and the fused producers are dead now (every user of a member
    // is in the group).
    if (root->use_empty())
      rewriter.eraseOp(root);
    SmallVector<Operation *> members;
    for (auto &entry : group.members)
      members.push_back(entry.first);
    bool erased = true;
    while (erased) {
      erased = false;
      for (Operation *&op : members)
        if (op && op->use_empty()) {
          rewriter.eraseOp(op);
          op = nullptr;
          erased = true;
        }
    }
    return success();
  }
};

} // namespace
