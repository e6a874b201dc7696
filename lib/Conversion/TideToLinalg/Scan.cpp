//===- Scan.cpp - tide.scan as a host loop --------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// tide.scan becomes an scf.for over the sequences' length whose iteration
// computes the body once: slice `t` of each sequence (tensor.extract_slice),
// the body's tide ops cloned (and lowered in turn by the same patterns), each
// scan output written into its stacked result at `t` (tensor.insert_slice).
// States and stacked results are the loop's iter_args, which bufferization
// keeps in place. A scan output whose step has a run-time size (a batch
// known only at run time) cannot be allocated before a step has run: the
// first step is peeled off to size it, and the loop checks at run time that
// every step has that size.
//
// A conditional scan (a while loop) becomes an scf.while whose `before`
// region tests the condition state (and the end of the sequences, if any);
// the number of steps is not known before the loop ends, so each stacked
// result is a buffer of some capacity (the sequences' length when the
// step's sizes are static, else none) that a step finding it full replaces
// with one of twice the capacity, and the results are its first `count`
// steps.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tide/IR/TideOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::to_linalg;

namespace {

/// The sizes of `v` (constants where static).
SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> sizes;
  auto type = cast<RankedTensorType>(v.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, d))
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return sizes;
}

/// Offsets (position `pos` on the leading axis, 0 elsewhere), sizes (1, then
/// `inner`) and unit strides of one step's slice of a stacked tensor.
void stepSlice(OpBuilder &b, Value pos, ArrayRef<OpFoldResult> inner,
               SmallVectorImpl<OpFoldResult> &offsets,
               SmallVectorImpl<OpFoldResult> &sizes,
               SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign(inner.size() + 1, b.getIndexAttr(0));
  offsets[0] = pos;
  sizes.assign({b.getIndexAttr(1)});
  llvm::append_range(sizes, inner);
  strides.assign(inner.size() + 1, b.getIndexAttr(1));
}

struct LowerScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  /// One step at index `iv` (0-based, in loop order): the body's ops cloned
  /// with its arguments bound; returns the yielded values, signless.
  SmallVector<Value> step(OpBuilder &b, Location loc, ScanOp op, Value iv,
                          Value length, ValueRange states, ValueRange seqs,
                          ValueRange invariants, Value &pos) const {
    pos = iv;
    if (op.getReverse()) {
      Value last = arith::SubIOp::create(
          b, loc, length, arith::ConstantIndexOp::create(b, loc, 1));
      pos = arith::SubIOp::create(b, loc, last, iv);
    }
    Block &body = op.getBodyBlock();
    IRMapping map;
    Value pos64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), pos);
    map.map(op.getPositionArg(),
            tensor::FromElementsOp::create(
                b, loc, RankedTensorType::get({}, b.getI64Type()), pos64));
    for (auto [arg, state] : llvm::zip(op.getStateArgs(), states))
      map.map(arg, castTo(b, loc, state, arg.getType()));
    for (auto [arg, seq] : llvm::zip(op.getSliceArgs(), seqs)) {
      SmallVector<OpFoldResult> inner = sizesOf(b, loc, seq), offsets, sizes,
                                strides;
      inner.erase(inner.begin());
      stepSlice(b, pos, inner, offsets, sizes, strides);
      auto sliceType = cast<RankedTensorType>(signless(arg.getType()));
      // A slice with no elements reads nothing (and a static offset 0 into
      // an axis of size 0 is not a valid slice).
      Value slice = llvm::is_contained(sliceType.getShape(), 0)
                        ? Value(tensor::EmptyOp::create(
                              b, loc, inner, sliceType.getElementType()))
                        : Value(tensor::ExtractSliceOp::create(
                              b, loc, sliceType, seq, offsets, sizes, strides));
      map.map(arg, castTo(b, loc, slice, arg.getType()));
    }
    for (auto [arg, inv] : llvm::zip(op.getInvariantArgs(), invariants))
      map.map(arg, castTo(b, loc, inv, arg.getType()));
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    SmallVector<Value> yielded;
    for (Value v : body.getTerminator()->getOperands())
      yielded.push_back(map.lookupOrDefault(v));
    return toSignless(b, loc, yielded);
  }

  /// `acc` with `y` written at `pos` of its leading axis; checks at run time
  /// that `y`'s sizes are those of `acc`'s steps (unless `checked` already).
  Value insertStep(OpBuilder &b, Location loc, ScanOp op, Value acc, Value y,
                   Value pos, int64_t output, bool checked = false) const {
    auto type = cast<RankedTensorType>(y.getType());
    if (llvm::is_contained(type.getShape(), 0))
      return acc; // nothing to write
    SmallVector<OpFoldResult> inner = sizesOf(b, loc, y), offsets, sizes,
                              strides;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d) && !checked)
        assertSameSize(b, loc, op,
                       getValueOrCreateConstantIndexOp(b, loc, inner[d]),
                       tensor::DimOp::create(b, loc, acc, d + 1),
                       "scan output " + Twine(output) +
                           " changes its size along dimension " + Twine(d) +
                           " from one step to the next");
    stepSlice(b, pos, inner, offsets, sizes, strides);
    return tensor::InsertSliceOp::create(b, loc, y, acc, offsets, sizes,
                                         strides);
  }

  /// `acc` (a stacked result being filled, `pos` steps written) ready for
  /// step `pos`'s output `y`: the same buffer while it has room, else one
  /// of twice the capacity (at least 4) holding the steps so far. Checks
  /// that `y`'s run-time sizes are those of the steps before it.
  Value growFor(OpBuilder &b, Location loc, ScanOp op, Value acc, Value y,
                Value pos, int64_t output) const {
    auto accType = cast<RankedTensorType>(acc.getType());
    auto yType = cast<RankedTensorType>(y.getType());
    SmallVector<OpFoldResult> inner = sizesOf(b, loc, y);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, pos, zero);
    for (int64_t d = 0; d < yType.getRank(); ++d)
      if (yType.isDynamicDim(d)) {
        // (Before the first step the buffer's sizes are placeholders.)
        Value got = getValueOrCreateConstantIndexOp(b, loc, inner[d]);
        Value want = arith::SelectOp::create(
            b, loc, first, got, tensor::DimOp::create(b, loc, acc, d + 1));
        assertSameSize(b, loc, op, got, want,
                       "scan output " + Twine(output) +
                           " changes its size along dimension " + Twine(d) +
                           " from one step to the next");
      }
    Value cap = tensor::DimOp::create(b, loc, acc, 0);
    Value full =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, pos, cap);
    auto grow = scf::IfOp::create(
        b, loc, full,
        [&](OpBuilder &tb, Location l) {
          Value twice = arith::MulIOp::create(
              tb, l, cap, arith::ConstantIndexOp::create(tb, l, 2));
          Value newCap = arith::MaxSIOp::create(
              tb, l, twice, arith::ConstantIndexOp::create(tb, l, 4));
          SmallVector<OpFoldResult> sizes = {newCap};
          llvm::append_range(sizes, inner);
          Value fresh =
              tensor::EmptyOp::create(tb, l, sizes, accType.getElementType());
          // The steps so far, by the old buffer's sizes (placeholders, not
          // `y`'s, before the first step, when nothing is kept).
          SmallVector<OpFoldResult> kept = sizesOf(tb, l, acc);
          kept[0] = pos;
          SmallVector<OpFoldResult> offsets(kept.size(), tb.getIndexAttr(0)),
              strides(kept.size(), tb.getIndexAttr(1));
          // (Steps with no elements: nothing to copy, and a static offset 0
          // into an axis of size 0 is not a valid slice.)
          Value copied = fresh;
          if (!llvm::is_contained(accType.getShape(), 0)) {
            Value old = tensor::ExtractSliceOp::create(tb, l, acc, offsets,
                                                       kept, strides);
            copied = tensor::InsertSliceOp::create(tb, l, old, fresh, offsets,
                                                   kept, strides);
          }
          scf::YieldOp::create(
              tb, l,
              ValueRange{
                  tensor::CastOp::create(tb, l, accType, copied).getResult()});
        },
        [&](OpBuilder &eb, Location l) {
          scf::YieldOp::create(eb, l, ValueRange{acc});
        });
    return grow.getResult(0);
  }

  /// A conditional scan: an scf.while (see the file comment).
  void lowerConditional(PatternRewriter &rewriter, ScanOp op,
                        ArrayRef<Value> inits, ArrayRef<Value> seqs,
                        ArrayRef<Value> invs, Value length) const {
    Location loc = op.getLoc();
    size_t numStates = inits.size();
    auto outputs = op.getScanOutputs();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> iterArgs = {zero};
    llvm::append_range(iterArgs, inits);
    for (Value out : outputs) {
      auto type = cast<RankedTensorType>(signless(out.getType()));
      bool staticStep =
          llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
      SmallVector<Value> dyn = {length && staticStep ? length : zero};
      for (int64_t d = 1; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dyn.push_back(zero);
      iterArgs.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                 type.getElementType(), dyn));
    }
    SmallVector<Type> types = llvm::map_to_vector(
        iterArgs, [](Value v) -> Type { return v.getType(); });
    SmallVector<Location> locs(types.size(), loc);
    auto loop = scf::WhileOp::create(rewriter, loc, types, iterArgs);
    {
      Block *before = rewriter.createBlock(&loop.getBefore(), {}, types, locs);
      Value pos = before->getArgument(0);
      Value go = tensor::ExtractOp::create(
          rewriter, loc, before->getArgument(1), ValueRange{});
      if (length)
        go = arith::AndIOp::create(
            rewriter, loc, go,
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, pos,
                                  length));
      scf::ConditionOp::create(rewriter, loc, go, before->getArguments());
    }
    {
      Block *after = rewriter.createBlock(&loop.getAfter(), {}, types, locs);
      Value iv = after->getArgument(0), pos;
      ValueRange args = after->getArguments().drop_front();
      SmallVector<Value> y = step(rewriter, loc, op, iv, length,
                                  args.take_front(numStates), seqs, invs, pos);
      SmallVector<Value> next = {arith::AddIOp::create(
          rewriter, loc, iv, arith::ConstantIndexOp::create(rewriter, loc, 1))};
      next.append(y.begin(), y.begin() + numStates);
      for (size_t k = 0; k < outputs.size(); ++k) {
        Value acc = growFor(rewriter, loc, op, args[numStates + k],
                            y[numStates + k], pos, k);
        next.push_back(insertStep(rewriter, loc, op, acc, y[numStates + k], pos,
                                  k, /*checked=*/true));
      }
      scf::YieldOp::create(rewriter, loc, next);
    }
    rewriter.setInsertionPointAfter(loop);
    Value count = loop.getResult(0);
    SmallVector<Value> results(loop.getResults().slice(1, numStates));
    for (auto [k, out] : llvm::enumerate(outputs)) {
      Value acc = loop.getResult(1 + numStates + k);
      SmallVector<OpFoldResult> sizes = sizesOf(rewriter, loc, acc);
      sizes[0] = count;
      SmallVector<OpFoldResult> offsets(sizes.size(), rewriter.getIndexAttr(0)),
          strides(sizes.size(), rewriter.getIndexAttr(1));
      auto outType = cast<RankedTensorType>(signless(out.getType()));
      if (llvm::is_contained(cast<RankedTensorType>(acc.getType()).getShape(),
                             0)) {
        // Steps with no elements: the result has none either.
        Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                              outType.getElementType());
        results.push_back(
            tensor::CastOp::create(rewriter, loc, outType, empty));
        continue;
      }
      results.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, outType, acc, offsets, sizes, strides));
    }
    replaceFromSignless(rewriter, op, results);
  }

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    size_t numStates = op.getInits().size();
    SmallVector<Value> inits = toSignless(rewriter, loc, op.getInits());
    SmallVector<Value> seqs = toSignless(rewriter, loc, op.getSequences());
    SmallVector<Value> invs = toSignless(rewriter, loc, op.getInvariants());
    Value length;
    if (!seqs.empty())
      length = tensor::DimOp::create(rewriter, loc, seqs[0], 0);
    for (size_t i = 1; i < seqs.size(); ++i)
      assertSameSize(rewriter, loc, op,
                     tensor::DimOp::create(rewriter, loc, seqs[i], 0), length,
                     "the length of sequence " + Twine(i) +
                         " differs from that of sequence 0 at run time");
    if (op.getConditional()) {
      lowerConditional(rewriter, op, inits, seqs, invs, length);
      return success();
    }
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);

    auto outputs = op.getScanOutputs();
    bool peel = llvm::any_of(outputs, [](Value r) {
      return !cast<RankedTensorType>(r.getType()).hasStaticShape() &&
             llvm::any_of(
                 cast<RankedTensorType>(r.getType()).getShape().drop_front(),
                 ShapedType::isDynamic);
    });
    SmallVector<Value> states = inits, accs;
    Value start = zero;
    if (peel) {
      // The first step sizes the stacked results. A scan over no elements
      // has no step to size them by: its stacked results are empty, with
      // the sizes no step gave 0.
      Value empty = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, length, zero);
      Operation *yield = op.getBodyBlock().getTerminator();
      SmallVector<Type> yieldTypes;
      for (Type t : yield->getOperandTypes())
        yieldTypes.push_back(signless(t));
      SmallVector<Type> resultTypes(yieldTypes.begin(),
                                    yieldTypes.begin() + numStates);
      SmallVector<RankedTensorType> accTypes;
      for (auto [k, out] : llvm::enumerate(outputs)) {
        auto outType = cast<RankedTensorType>(out.getType());
        auto yType = cast<RankedTensorType>(yieldTypes[numStates + k]);
        SmallVector<int64_t> shape = {outType.getDimSize(0)};
        llvm::append_range(shape, yType.getShape());
        accTypes.push_back(
            RankedTensorType::get(shape, yType.getElementType()));
        resultTypes.push_back(accTypes.back());
      }
      auto first = scf::IfOp::create(rewriter, loc, resultTypes, empty,
                                     /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(first.thenBlock());
        SmallVector<Value> none;
        for (auto [state, type] : llvm::zip(
                 inits, ArrayRef<Type>(resultTypes).take_front(numStates)))
          none.push_back(castTo(rewriter, loc, state, type));
        for (RankedTensorType type : accTypes) {
          SmallVector<Value> dyn;
          for (int64_t d = 0; d < type.getRank(); ++d)
            if (type.isDynamicDim(d))
              dyn.push_back(d == 0 ? length : zero);
          none.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                                 type.getElementType(), dyn));
        }
        scf::YieldOp::create(rewriter, loc, none);
        rewriter.setInsertionPointToStart(first.elseBlock());
        Value pos;
        SmallVector<Value> y =
            step(rewriter, loc, op, zero, length, inits, seqs, invs, pos);
        SmallVector<Value> some(y.begin(), y.begin() + numStates);
        for (auto [k, out] : llvm::enumerate(outputs)) {
          Value yk = y[numStates + k];
          SmallVector<OpFoldResult> shape = {
              accTypes[k].isDynamicDim(0) ? OpFoldResult(length)
                                          : OpFoldResult(rewriter.getIndexAttr(
                                                accTypes[k].getDimSize(0)))};
          llvm::append_range(shape, sizesOf(rewriter, loc, yk));
          Value acc = tensor::EmptyOp::create(
              rewriter, loc, shape,
              cast<RankedTensorType>(yk.getType()).getElementType());
          some.push_back(castTo(rewriter, loc,
                                insertStep(rewriter, loc, op, acc, yk, pos, k),
                                accTypes[k]));
        }
        scf::YieldOp::create(rewriter, loc, some);
      }
      states.assign(first.getResults().begin(),
                    first.getResults().begin() + numStates);
      accs.assign(first.getResults().begin() + numStates,
                  first.getResults().end());
      start = one;
    } else {
      for (Value out : outputs) {
        auto type = cast<RankedTensorType>(signless(out.getType()));
        SmallVector<Value> dyn;
        if (type.isDynamicDim(0))
          dyn.push_back(length);
        accs.push_back(tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                               type.getElementType(), dyn));
      }
    }
    SmallVector<Value> iterArgs = states;
    llvm::append_range(iterArgs, accs);
    auto loop = scf::ForOp::create(
        rewriter, loc, start, length, one, iterArgs,
        [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
          Value pos;
          SmallVector<Value> y =
              step(b, l, op, iv, length, args.take_front(numStates), seqs, invs,
                   pos);
          SmallVector<Value> next(y.begin(), y.begin() + numStates);
          for (size_t k = 0; k < outputs.size(); ++k)
            next.push_back(insertStep(b, l, op, args[numStates + k],
                                      y[numStates + k], pos, k));
          scf::YieldOp::create(b, l, next);
        });
    replaceFromSignless(rewriter, op, loop.getResults());
    return success();
  }
};

} // namespace

void mlir::tide::populateScanPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerScan>(patterns.getContext());
}
