//===- ChannelsLast.cpp - GPU convolutions in the NHWC layout -------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// cuDNN's tensor-core convolutions work on channels-last data. Handed NCHW
// buffers, they transpose the input, run, and transpose the output back: in
// ResNet-50 at batch 32 in bf16 those transposes were a fifth of the GPU's
// time. oneDNN's CPU convolutions likewise reorder NCHW activations into the
// layout their kernels read, and back, at every call. This pass makes the
// convolutions channels-last at the tensor level and moves the transposes that
// brings down the graph, where consecutive convolutions' transposes meet and
// cancel (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/IR/TideDialect.h"
#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::tide {
#define GEN_PASS_DEF_CHANNELSLASTPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// Broadcast operands up to this many elements are permuted where a
/// transpose sinks past them (biases, scales: a kernel over a few KB).
constexpr int64_t kSmallOperand = 1 << 16;

/// The placement attributes of `from` copied onto `to`.
void copyPlacement(Operation *from, Operation *to) {
  for (StringRef name :
       {TideDialect::getDeviceAttrName(), TideDialect::getReasonAttrName()})
    if (Attribute attr = from->getAttr(name))
      to->setAttr(name, attr);
}

/// A transpose of `value` by `perm`, placed as `like`.
Value transpose(PatternRewriter &rewriter, Operation *like, Value value,
                ArrayRef<int64_t> perm) {
  auto op = TransposeOp::create(rewriter, like->getLoc(), value, perm);
  copyPlacement(like, op);
  return op;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return inv;
}

/// Whether `user` is a transpose that undoes `t` (and so cancels with it).
bool undoes(Operation *user, TransposeOp t) {
  auto other = dyn_cast<TransposeOp>(user);
  if (!other)
    return false;
  for (auto [i, p] : llvm::enumerate(other.getPerm()))
    if (t.getPerm()[p] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Whether `op` is the only reader of `t` other than transposes undoing it:
/// moving `t` past `op` then moves it, rather than copying it.
bool onlyReader(TransposeOp t, Operation *op) {
  return llvm::all_of(t->getUsers(), [&](Operation *user) {
    return user == op || undoes(user, t);
  });
}

/// Whether `op` is an elementwise op a transpose can move through: one
/// result, no regions, of the unary, binary, compare, select or cast
/// families, every operand data.
bool isMovableElementwise(Operation *op) {
  auto facts = dyn_cast<OpFactsInterface>(op);
  if (!facts || facts.getKernelGroup() != KernelGroup::Elementwise ||
      !llvm::is_contained({LoweringFamily::Unary, LoweringFamily::Binary,
                           LoweringFamily::Compare, LoweringFamily::Select,
                           LoweringFamily::Cast},
                          facts.getLoweringFamily()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    if (facts.getOperandRole(i) != OperandRole::Data)
      return false;
  return true;
}

/// Whether every reader of `t` takes it elementwise at full size or reduces
/// it (so `t` can move past each of them, as one copy per reader that later
/// transposes may cancel) or undoes it. A block's output in f32 read by a
/// cast to the next convolution's bf16 and by the next residual add is such a
/// value, and so is a squeeze-and-excitation block's input (MobileNetV3,
/// EfficientNet), read by a global mean and by the product with its scale.
bool onlyElementwiseReaders(TransposeOp t) {
  return llvm::all_of(t->getUsers(), [&](Operation *user) {
    return undoes(user, t) ||
           (isMovableElementwise(user) &&
            cast<RankedTensorType>(user->getResult(0).getType()).getShape() ==
                t.getType().getShape()) ||
           isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp,
               ReduceProdOp>(user);
  });
}

/// Ops a channels-last layout passes through between convolutions (the
/// transposes sink past them): elementwise ops, pools and concatenations.
bool passesLayout(Operation *op) {
  return isMovableElementwise(op) || isa<MaxPoolOp, AvgPoolOp, ConcatOp>(op);
}

/// Whether another 2-D convolution reads what `conv` computes, or computed
/// what it reads, through elementwise ops and pools only (ResNet's blocks,
/// a conv, bias, ReLU, pool, conv chain): then the transposes between them
/// cancel. Looks at most kSearchLimit ops each way.
bool nextToAnotherConv(ConvOp conv) {
  constexpr unsigned kSearchLimit = 64;
  auto isConv = [&](Operation *op) {
    auto other = dyn_cast_or_null<ConvOp>(op);
    return other && other != conv && other.getType().getRank() == 4;
  };
  // Down: the readers of the result.
  SmallVector<Operation *> work(conv->getUsers().begin(),
                                conv->getUsers().end());
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty() && seen.size() < kSearchLimit) {
    Operation *op = work.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (isConv(op))
      return true;
    if (passesLayout(op))
      llvm::append_range(work, op->getUsers());
  }
  // Up: what computed the input (a residual add's other operand too).
  work.assign({conv.getInput().getDefiningOp()});
  seen.clear();
  while (!work.empty() && seen.size() < kSearchLimit) {
    Operation *op = work.pop_back_val();
    if (!op || !seen.insert(op).second)
      continue;
    if (isConv(op))
      return true;
    if (passesLayout(op))
      for (Value operand : op->getOperands())
        work.push_back(operand.getDefiningOp());
  }
  return false;
}

/// conv (NCHW) -> transpose(conv channels_last (transpose(x), transpose(w))).
/// A host convolution with no other convolution next to it stays NCHW: its
/// input and output transposes would not cancel, and oneDNN reorders NCHW
/// data inside the call faster than Tide's transposes and padding copy do
/// (a 3x3 convolution over 1x64x56x56 with argument weights: 0.73-0.79 ms a
/// call NCHW, 1.09-1.18 ms channels-last on the build VM).
struct ConvToChannelsLast : OpRewritePattern<ConvOp> {
  ConvToChannelsLast(MLIRContext *ctx, bool f32, bool host,
                     const llvm::DenseSet<Operation *> &isolated)
      : OpRewritePattern(ctx), f32(f32), host(host), isolated(isolated) {}

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    DeviceAttr device = getDevice(op);
    Type element = op.getType().getElementType();
    bool gpu = device && device.isGPU();
    if (!gpu && isolated.contains(op))
      return rewriter.notifyMatchFailure(op, "an isolated host conv");
    // (Grouped convolutions, depthwise ones included, on the host only:
    // oneDNN reads them in NHWC as well.)
    if (op.getChannelsLast() || op.getType().getRank() != 4 ||
        (gpu && op.getGroups() != 1) ||
        !op.getWeight().getType().hasStaticShape() ||
        !(gpu ? element.isF16() || element.isBF16() || (f32 && element.isF32())
              : host && element.isF32() &&
                    op.getWeight().getType().hasStaticShape()))
      return rewriter.notifyMatchFailure(op, "not a 2-D conv to rewrite");
    SmallVector<int64_t> toLast = {0, 2, 3, 1}, toFirst = {0, 3, 1, 2};
    Value x = transpose(rewriter, op, op.getInput(), toLast);
    Value w = transpose(rewriter, op, op.getWeight(), toLast);
    auto conv = ConvOp::create(rewriter, op.getLoc(), x, w, op.getStrides(),
                               op.getDilations(), op.getPads(), op.getGroups(),
                               /*channels_last=*/true);
    copyPlacement(op, conv);
    rewriter.replaceOp(op, transpose(rewriter, op, conv, toFirst));
    return success();
  }

  bool f32, host;
  /// Host convolutions with no other next to them (nextToAnotherConv),
  /// found before any rewrite.
  const llvm::DenseSet<Operation *> &isolated;
};

/// op(transpose(a, p), transpose(b, p), bias) ->
///   transpose(op(a, b, transpose(bias, inverse(p))), p)
/// for elementwise ops: see Passes.td for when.
struct SinkTransposeThroughElementwise
    : OpInterfaceRewritePattern<OpFactsInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(OpFactsInterface facts,
                                PatternRewriter &rewriter) const override {
    Operation *op = facts.getOperation();
    if (!isMovableElementwise(op))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = type.getRank();
    // The permutation of the full-size transposed operands.
    std::optional<SmallVector<int64_t>> perm;
    for (Value operand : op->getOperands()) {
      auto t = operand.getDefiningOp<TransposeOp>();
      // (An identity transpose folds away; moving it would create another
      // one below the op, and the driver would move that one forever.)
      if (!t || t.getType().getShape() != type.getShape() ||
          isIdentity(t.getPerm()))
        continue;
      if (perm && ArrayRef<int64_t>(*perm) != t.getPerm())
        return failure();
      perm = SmallVector<int64_t>(t.getPerm());
    }
    if (!perm)
      return failure();
    SmallVector<int64_t> inv = inverse(*perm);
    // Every operand: a transpose by `perm` read by nothing else, or a small
    // broadcast operand (permuted), or one of only 1s (left as it is).
    SmallVector<Value> operands;
    SmallVector<bool> transposed;
    for (Value operand : op->getOperands()) {
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || operandType.getRank() > rank)
        return failure();
      auto t = operand.getDefiningOp<TransposeOp>();
      if (t && t.getType().getShape() == type.getShape() &&
          t.getPerm() == ArrayRef<int64_t>(*perm)) {
        if (!onlyReader(t, op) && !onlyElementwiseReaders(t))
          return failure();
        operands.push_back(t.getInput());
        transposed.push_back(true);
        continue;
      }
      // A full-size operand another op already transposed by the inverse
      // (a convolution's input read again by a residual add): that one.
      if (operandType.getShape() == type.getShape()) {
        TransposeOp existing;
        for (Operation *user : operand.getUsers()) {
          auto other = dyn_cast<TransposeOp>(user);
          // Not one of this op's own operands: op(t(y), y) with t its own
          // inverse would become t(op(y, t(y))), the same form again, and
          // the driver would move it until its rewrite limit.
          if (other && other.getPerm() == ArrayRef<int64_t>(inv) &&
              other->getBlock() == op->getBlock() &&
              other->isBeforeInBlock(op) &&
              !llvm::is_contained(op->getOperands(), other.getResult())) {
            existing = other;
            break;
          }
        }
        if (!existing)
          return failure();
        operands.push_back(existing);
        transposed.push_back(true);
        continue;
      }
      // A broadcast operand: small, and of size 1 in a dimension where the
      // result is not (NumPy's rules align the trailing dimensions).
      int64_t lead = rank - operandType.getRank();
      bool broadcast =
          lead > 0 && llvm::any_of(type.getShape().take_front(lead),
                                   [](int64_t d) { return d != 1; });
      for (int64_t d = lead; d < rank && !broadcast; ++d)
        broadcast =
            operandType.getDimSize(d - lead) == 1 && type.getDimSize(d) != 1;
      if (!broadcast || !operandType.hasStaticShape() ||
          operandType.getNumElements() > kSmallOperand)
        return failure();
      operands.push_back(operand);
      transposed.push_back(false);
    }
    for (auto [operand, moved] : llvm::zip(operands, transposed)) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      if (moved || llvm::all_of(operandType.getShape(),
                                [](int64_t d) { return d == 1; }))
        continue;
      // NumPy broadcasting aligns the trailing dimensions: the rank-`rank`
      // shape first, then permuted as the data are.
      if (operandType.getRank() < rank) {
        SmallVector<int64_t> shape(rank - operandType.getRank(), 1);
        llvm::append_range(shape, operandType.getShape());
        auto reshape = ReshapeOp::create(
            rewriter, op->getLoc(),
            RankedTensorType::get(shape, operandType.getElementType()),
            operand);
        copyPlacement(op, reshape);
        operand = reshape;
      }
      operand = transpose(rewriter, op, operand, inv);
    }
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      shape.push_back(type.getDimSize(inv[d]));
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(
        RankedTensorType::get(shape, type.getElementType()));
    rewriter.replaceOp(op, transpose(rewriter, op, moved->getResult(0), *perm));
    return success();
  }
};

/// reduce(transpose(x, p), axes) -> transpose'(reduce(x, p[axes])).
template <typename OpTy>
struct SinkTransposeThroughReduction : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().template getDefiningOp<TransposeOp>();
    if (!t || (!onlyReader(t, op) && !onlyElementwiseReaders(t)) ||
        isIdentity(t.getPerm()))
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    int64_t rank = perm.size();
    SmallVector<int64_t> axes;
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : op.getAxes()) {
      int64_t axis = a < 0 ? a + rank : a;
      if (axis < 0 || axis >= rank)
        return failure();
      reduced[axis] = true;
    }
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        axes.push_back(perm[d]);
    llvm::sort(axes);
    auto reduction = OpTy::create(rewriter, op.getLoc(), t.getInput(), axes,
                                  op.getKeepdims());
    copyPlacement(op, reduction);
    // With keepdims the reduced dims stay in place: the same permutation.
    // Without, the kept dims of x in order, permuted as op's result is.
    SmallVector<int64_t> after;
    if (op.getKeepdims()) {
      after.assign(perm.begin(), perm.end());
    } else {
      SmallVector<int64_t> kept; // x's kept dims, in x's order
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(axes, d))
          kept.push_back(d);
      for (int64_t d = 0; d < rank; ++d)
        if (!reduced[d])
          after.push_back(llvm::find(kept, perm[d]) - kept.begin());
    }
    rewriter.replaceOp(op, transpose(rewriter, op, reduction, after));
    return success();
  }
};

/// pool(transpose(x, NHWC -> NCHW)) -> transpose(pool channels_last (x)).
template <typename OpTy>
struct SinkTransposeThroughPool : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().template getDefiningOp<TransposeOp>();
    if (op.getChannelsLast() || !t || !onlyReader(t, op))
      return failure();
    // The permutation that moves the last dimension to position 1.
    int64_t rank = op.getType().getRank();
    SmallVector<int64_t> toFirst = {0, rank - 1};
    for (int64_t d = 1; d < rank - 1; ++d)
      toFirst.push_back(d);
    if (t.getPerm() != ArrayRef<int64_t>(toFirst))
      return failure();
    auto type = op.getType();
    SmallVector<int64_t> shape = {type.getDimSize(0)};
    for (int64_t d = 2; d < rank; ++d)
      shape.push_back(type.getDimSize(d));
    shape.push_back(type.getDimSize(1));
    auto pool = cast<OpTy>(rewriter.clone(*op));
    pool.getInputMutable().assign(t.getInput());
    pool.setChannelsLast(true);
    pool.getResult().setType(
        RankedTensorType::get(shape, type.getElementType()));
    rewriter.replaceOp(op, transpose(rewriter, op, pool, toFirst));
    return success();
  }
};

/// concat(transpose(x_i, perm) ..., axis) ->
/// transpose(concat(x_i ..., perm[axis]), perm): the blocks that join
/// branches along the channels (SqueezeNet's Fire modules, Inception's)
/// stay in the convolutions' layout.
struct SinkTransposeThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> inputs;
    for (Value input : op.getInputs()) {
      auto t = input.getDefiningOp<TransposeOp>();
      if (!t || isIdentity(t.getPerm()) || !onlyReader(t, op))
        return failure();
      if (perm && ArrayRef<int64_t>(*perm) != t.getPerm())
        return failure();
      perm = SmallVector<int64_t>(t.getPerm());
      inputs.push_back(t.getInput());
    }
    if (!perm)
      return failure();
    int64_t rank = op.getType().getRank();
    // (getAxis() is unsigned: -1 read as such is 2^64 - 1.)
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    auto concat = ConcatOp::create(rewriter, op.getLoc(), inputs,
                                   rewriter.getI64IntegerAttr((*perm)[axis]));
    copyPlacement(op, concat);
    rewriter.replaceOp(op, transpose(rewriter, op, concat, *perm));
    return success();
  }
};

/// reshape(transpose(x, p)) -> transpose(reshape'(x), p') where the reshape
/// only splits dimensions (static shapes): x's dimensions split the same way.
/// With the two below, a channel shuffle (ShuffleNet's reshape, transpose,
/// reshape and slices between convolutions) stays channels-last: the
/// transpose out of the layout sinks through it to the next convolution's.
struct SinkTransposeThroughExpand : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (op.getShape() || !t || !onlyReader(t, op))
      return failure();
    auto src = cast<RankedTensorType>(t.getType());
    auto dst = cast<RankedTensorType>(op.getType());
    if (!src.hasStaticShape() || !dst.hasStaticShape() ||
        dst.getRank() <= src.getRank())
      return failure();
    // groups[j]: the result dimensions t's dimension j splits into.
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(dst, src);
    if (!groups || static_cast<int64_t>(groups->size()) != src.getRank())
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    SmallVector<int64_t> inv = inverse(perm), shape, start(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
      start[i] = shape.size();
      for (int64_t d : (*groups)[inv[i]])
        shape.push_back(dst.getDimSize(d));
    }
    SmallVector<int64_t> newPerm;
    for (auto [j, group] : llvm::enumerate(*groups))
      for (size_t k = 0; k < group.size(); ++k)
        newPerm.push_back(start[perm[j]] + k);
    auto reshape = ReshapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, dst.getElementType()), t.getInput());
    copyPlacement(op, reshape);
    rewriter.replaceOp(op, transpose(rewriter, op, reshape, newPerm));
    return success();
  }
};

/// reshape(transpose(x, p)) -> transpose(reshape'(transpose(x, q)), p')
/// where the reshape only merges dimensions (static shapes) and each merged
/// group of t's dimensions comes from a range of x's: q orders each range as
/// the group reads it (omitted when it already does), and the merge moves
/// before the transpose that is left, p' (which must not be the identity:
/// then there is nothing to sink).
struct SinkTransposeThroughCollapse : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (op.getShape() || !t || !onlyReader(t, op))
      return failure();
    auto src = cast<RankedTensorType>(t.getType());
    auto dst = cast<RankedTensorType>(op.getType());
    if (!src.hasStaticShape() || !dst.hasStaticShape() ||
        dst.getRank() >= src.getRank())
      return failure();
    std::optional<SmallVector<ReassociationIndices>> groups =
        getReassociationIndicesForReshape(src, dst);
    if (!groups || static_cast<int64_t>(groups->size()) != dst.getRank())
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    int64_t rank = perm.size();
    // Each group's x dimensions: a range [lo, lo + size).
    SmallVector<int64_t> lo;
    for (const ReassociationIndices &group : *groups) {
      int64_t first = rank;
      for (int64_t j : group)
        first = std::min(first, perm[j]);
      for (int64_t j : group)
        if (perm[j] >= first + static_cast<int64_t>(group.size()))
          return failure(); // not a range (the values are distinct)
      lo.push_back(first);
    }
    // q: x's dimensions with each range in its group's order.
    SmallVector<int64_t> q(rank);
    for (auto [g, group] : llvm::enumerate(*groups))
      for (auto [k, j] : llvm::enumerate(group))
        q[lo[g] + k] = perm[j];
    // The merged groups in x's order, and p' over them.
    SmallVector<int64_t> order(groups->size());
    for (size_t g = 0; g < order.size(); ++g)
      order[g] = g;
    llvm::sort(order, [&](int64_t a, int64_t b) { return lo[a] < lo[b]; });
    SmallVector<int64_t> outer = inverse(order);
    if (isIdentity(outer))
      return failure();
    Value x = t.getInput();
    if (!isIdentity(q))
      x = transpose(rewriter, t, x, q);
    SmallVector<int64_t> shape;
    for (int64_t g : order)
      shape.push_back(dst.getDimSize(g));
    auto reshape = ReshapeOp::create(
        rewriter, op.getLoc(),
        RankedTensorType::get(shape, dst.getElementType()), x);
    copyPlacement(op, reshape);
    // Result dimension g is the merged x range at position outer[g].
    SmallVector<int64_t> newPerm(outer.begin(), outer.end());
    rewriter.replaceOp(op, transpose(rewriter, op, reshape, newPerm));
    return success();
  }
};

/// slice(transpose(x, p)) -> transpose(slice'(x), p), when every reader of
/// the transpose is a slice (each then takes its part of x).
struct SinkTransposeThroughSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto t = op.getInput().getDefiningOp<TransposeOp>();
    if (!t || isIdentity(t.getPerm()) ||
        !llvm::all_of(t->getUsers(),
                      [](Operation *user) { return isa<SliceOp>(user); }))
      return failure();
    ArrayRef<int64_t> perm = t.getPerm();
    int64_t rank = perm.size();
    SmallVector<int64_t> start(rank), limit(rank), strides(rank);
    for (int64_t j = 0; j < rank; ++j) {
      start[perm[j]] = op.getStart()[j];
      limit[perm[j]] = op.getLimit()[j];
      strides[perm[j]] = op.getStrides()[j];
    }
    auto slice = SliceOp::create(rewriter, op.getLoc(), t.getInput(), start,
                                 limit, strides);
    copyPlacement(op, slice);
    rewriter.replaceOp(op, transpose(rewriter, op, slice, perm));
    return success();
  }
};

/// A transpose that moves only dimensions of size 1 is a reshape.
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!type.hasStaticShape())
      return failure();
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t last = -1;
    for (auto [i, p] : llvm::enumerate(perm)) {
      if (type.getDimSize(i) == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    auto reshape =
        rewriter.replaceOpWithNewOp<ReshapeOp>(op, type, op.getInput());
    copyPlacement(op, reshape);
    return success();
  }
};

struct ChannelsLastPass
    : public tide::impl::ChannelsLastPassBase<ChannelsLastPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    llvm::DenseSet<Operation *> isolated;
    getOperation().walk([&](ConvOp conv) {
      if (!conv.getChannelsLast() && !nextToAnotherConv(conv))
        isolated.insert(conv);
    });
    // Whether a convolution is (or will be) channels-last: only then do
    // transposes sink through reshapes and slices (a network without
    // convolutions keeps its transposes where they are, attention's too).
    bool anyChannelsLast = false;
    getOperation().walk([&](ConvOp conv) {
      if (conv.getChannelsLast() || !isolated.contains(conv))
        anyChannelsLast = true;
    });
    RewritePatternSet patterns(ctx);
    patterns.add<ConvToChannelsLast>(ctx, f32, host, isolated);
    if (anyChannelsLast)
      patterns.add<SinkTransposeThroughExpand, SinkTransposeThroughCollapse,
                   SinkTransposeThroughSlice>(ctx);
    patterns.add<SinkTransposeThroughElementwise,
                 SinkTransposeThroughReduction<ReduceSumOp>,
                 SinkTransposeThroughReduction<ReduceMeanOp>,
                 SinkTransposeThroughReduction<ReduceMaxOp>,
                 SinkTransposeThroughReduction<ReduceMinOp>,
                 SinkTransposeThroughReduction<ReduceProdOp>,
                 SinkTransposeThroughPool<MaxPoolOp>,
                 SinkTransposeThroughPool<AvgPoolOp>,
                 SinkTransposeThroughConcat, TransposeOfUnitDimsToReshape>(ctx);
    TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    ReshapeOp::getCanonicalizationPatterns(patterns, ctx);
    // Not converging within the driver's limits only leaves transposes in
    // place: the values are right either way. The rewrites are bounded too
    // (an iteration whose rewrites keep adding work would never end).
    int64_t ops = 0;
    getOperation().walk([&](Operation *) { ++ops; });
    GreedyRewriteConfig config;
    config.setMaxNumRewrites(64 * ops + 1024);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
