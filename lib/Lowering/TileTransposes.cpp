//===- TileTransposes.cpp - Transposes in cache-sized tiles ---------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tide {
#define GEN_PASS_DEF_TILETRANSPOSESPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// For a buffer-level, all-parallel linalg op with one input read through a
/// permutation that moves the innermost dimension and an identity-mapped
/// result: the two loops to tile (the result's innermost one and the loop
/// that indexes the input's innermost dimension). None otherwise.
std::optional<std::pair<unsigned, unsigned>>
transposedLoops(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() < 2 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  AffineMap in = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!out.isIdentity() || !in.isPermutation() || in.isIdentity())
    return std::nullopt;
  unsigned rank = op.getNumLoops();
  unsigned inInner = cast<AffineDimExpr>(in.getResult(rank - 1)).getPosition();
  if (inInner == rank - 1)
    return std::nullopt; // contiguous rows on both sides
  // Both sides must be memrefs with unit innermost strides for tiles to help.
  for (Value v :
       {op.getDpsInputOperand(0)->get(), op.getDpsInitOperand(0)->get()}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return std::nullopt;
  }
  return std::make_pair(inInner, rank - 1);
}

/// Elements of a vector block side (16 x 32-bit: one 64-byte line, an
/// AVX-512 register).
constexpr int64_t kBlock = 16;

/// Whether `op` copies its input through the permutation (the body yields
/// the input element) and the elements are 32 bits wide, as the 16x16
/// shuffle lowering of vector.transpose needs.
bool isPlainTranspose32(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body->getArgument(0))
    return false;
  Type in = getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
  Type out = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  return in == out && in.isIntOrFloat() && in.getIntOrFloatBitWidth() == 32;
}

/// Whether every 16-element row that the blocks store into `out` (a full
/// buffer, before tiling) starts on a 64-byte boundary: an allocation
/// aligned to 64 bytes whose rows are whole multiples of 16 elements.
bool rowsAligned(Value out) {
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getAlignment() || *alloc.getAlignment() < 64)
    return false;
  auto type = cast<MemRefType>(out.getType());
  return type.getLayout().isIdentity() && type.hasStaticShape() &&
         type.getShape().back() % kBlock == 0;
}

/// The 16 columns of the 16x16 block whose rows are `rows` (vector<16xT>,
/// 32-bit T): 64 two-input shuffles in four rounds, the masks of AVX-512's
/// unpack{lo,hi}ps, shufps and shuff32x4 (LLVM selects those instructions, or
/// AVX2 ones for halves). Built from vector.shuffle rather than one 2-D
/// vector.transpose: the canonicalizer folds a transpose of inserted rows
/// followed by row extracts into 256 scalar moves.
SmallVector<Value> transpose16x16(OpBuilder &b, Location loc,
                                  ArrayRef<Value> rows) {
  // Within each 128-bit lane k (elements 4k .. 4k + 3) of x and y (y's
  // elements numbered from 16), the lane's elements are picked by `pick`.
  auto perLane = [&](Value x, Value y,
                     function_ref<std::array<int64_t, 4>(int64_t)> pick) {
    SmallVector<int64_t> mask;
    for (int64_t k = 0; k < 4; ++k)
      llvm::append_range(mask, pick(4 * k));
    return vector::ShuffleOp::create(b, loc, x, y, mask).getResult();
  };
  auto unpackLo = [&](Value x, Value y) {
    return perLane(x, y, [](int64_t l) {
      return std::array<int64_t, 4>{l, 16 + l, l + 1, 17 + l};
    });
  };
  auto unpackHi = [&](Value x, Value y) {
    return perLane(x, y, [](int64_t l) {
      return std::array<int64_t, 4>{l + 2, 18 + l, l + 3, 19 + l};
    });
  };
  auto pairsLo = [&](Value x, Value y) { // shufps 0x44
    return perLane(x, y, [](int64_t l) {
      return std::array<int64_t, 4>{l, l + 1, 16 + l, 17 + l};
    });
  };
  auto pairsHi = [&](Value x, Value y) { // shufps 0xEE
    return perLane(x, y, [](int64_t l) {
      return std::array<int64_t, 4>{l + 2, l + 3, 18 + l, 19 + l};
    });
  };
  // Whole lanes: x's lanes `first` and `first + 2`, then y's (shuff32x4
  // 0x88 for first = 0, 0xDD for first = 1).
  auto lanes = [&](Value x, Value y, int64_t first) {
    SmallVector<int64_t> mask;
    for (int64_t base : {int64_t(0), int64_t(16)})
      for (int64_t lane : {first, first + 2})
        for (int64_t e = 0; e < 4; ++e)
          mask.push_back(base + 4 * lane + e);
    return vector::ShuffleOp::create(b, loc, x, y, mask).getResult();
  };
  SmallVector<Value> r(rows), t(16);
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = unpackLo(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = unpackHi(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    r[4 * k] = pairsLo(t[4 * k], t[4 * k + 2]);
    r[4 * k + 1] = pairsHi(t[4 * k], t[4 * k + 2]);
    r[4 * k + 2] = pairsLo(t[4 * k + 1], t[4 * k + 3]);
    r[4 * k + 3] = pairsHi(t[4 * k + 1], t[4 * k + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    t[k] = lanes(r[k], r[4 + k], 0);
    t[4 + k] = lanes(r[k], r[4 + k], 1);
    t[8 + k] = lanes(r[8 + k], r[12 + k], 0);
    t[12 + k] = lanes(r[8 + k], r[12 + k], 1);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = lanes(t[k], t[8 + k], 0);
    r[8 + k] = lanes(t[k], t[8 + k], 1);
    r[4 + k] = lanes(t[4 + k], t[12 + k], 0);
    r[12 + k] = lanes(t[4 + k], t[12 + k], 1);
  }
  return r;
}

/// A copy of `tile` over the loop ranges [offsets[l], offsets[l] + sizes[l])
/// of its own iteration space (views of its operands).
void copyRange(IRRewriter &rewriter, linalg::LinalgOp tile,
               ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes) {
  if (llvm::any_of(sizes, [](OpFoldResult s) { return isZeroInteger(s); }))
    return; // nothing left there
  Location loc = tile.getLoc();
  IRMapping map;
  for (OpOperand &operand : tile->getOpOperands()) {
    AffineMap m = tile.getMatchingIndexingMap(&operand);
    SmallVector<OpFoldResult> o, z,
        ones(m.getNumResults(), rewriter.getIndexAttr(1));
    for (AffineExpr e : m.getResults()) {
      unsigned loop = cast<AffineDimExpr>(e).getPosition();
      o.push_back(offsets[loop]);
      z.push_back(sizes[loop]);
    }
    map.map(operand.get(),
            memref::SubViewOp::create(rewriter, loc, operand.get(), o, z, ones)
                .getResult());
  }
  rewriter.clone(*tile, map);
}

/// Replaces the tiled copy `tile` (loops `a`: the input's innermost, `b`:
/// the result's innermost) by 16x16 blocks (16 row loads along `a`, a
/// vector.transpose, 16 row stores along `b`, non-temporal when `streaming`)
/// over its other loops, and copies element by element of what is left at
/// the tile's edges when a side is not a multiple of 16.
void copyByBlocks(IRRewriter &rewriter, linalg::LinalgOp tile, unsigned a,
                  unsigned b, bool streaming) {
  Location loc = tile.getLoc();
  Value in = tile.getDpsInputOperand(0)->get();
  Value out = tile.getDpsInitOperand(0)->get();
  AffineMap inMap = tile.getMatchingIndexingMap(tile.getDpsInputOperand(0));
  Type element = getElementTypeOrSelf(out.getType());
  unsigned rank = tile.getNumLoops();
  rewriter.setInsertionPoint(tile);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value step = arith::ConstantIndexOp::create(rewriter, loc, kBlock);
  // The result is identity-mapped: its dimension l is loop l.
  // (Folded where static: LLVM unrolls the block loops of constant trip
  // counts.)
  auto outType = cast<MemRefType>(out.getType());
  SmallVector<Value> dims;
  for (unsigned l = 0; l < rank; ++l)
    dims.push_back(
        outType.isDynamicDim(l)
            ? memref::DimOp::create(rewriter, loc, out, l).getResult()
            : arith::ConstantIndexOp::create(rewriter, loc,
                                             outType.getDimSize(l))
                  .getResult());
  auto wholeBlocks = [&](Value size) -> Value {
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return arith::ConstantIndexOp::create(rewriter, loc, *c - *c % kBlock);
    Value rest = arith::RemUIOp::create(rewriter, loc, size, step);
    return arith::SubIOp::create(rewriter, loc, size, rest);
  };
  auto minus = [&](Value x, Value y) -> OpFoldResult {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return rewriter.getIndexAttr(*cx - *cy);
    return arith::SubIOp::create(rewriter, loc, x, y).getResult();
  };
  Value endA = wholeBlocks(dims[a]), endB = wholeBlocks(dims[b]);

  // The edges, element by element: loop a past its whole blocks (all of b),
  // then loop b past its whole blocks (a's whole blocks).
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(dims.begin(), dims.end());
  offsets[a] = endA;
  sizes[a] = minus(dims[a], endA);
  copyRange(rewriter, tile, offsets, sizes);
  offsets[a] = rewriter.getIndexAttr(0);
  sizes[a] = endA;
  offsets[b] = endB;
  sizes[b] = minus(dims[b], endB);
  copyRange(rewriter, tile, offsets, sizes);

  SmallVector<Value> iv(rank);
  // The other loops, whole, outermost first; then the blocks, b outside a
  // (the input's rows in order).
  for (unsigned l = 0; l < rank; ++l) {
    if (l == a || l == b)
      continue;
    auto loop = scf::ForOp::create(rewriter, loc, zero, dims[l], one);
    iv[l] = loop.getInductionVar();
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }
  auto loopB = scf::ForOp::create(rewriter, loc, zero, endB, step);
  rewriter.setInsertionPoint(loopB.getBody()->getTerminator());
  auto loopA = scf::ForOp::create(rewriter, loc, zero, endA, step);
  rewriter.setInsertionPoint(loopA.getBody()->getTerminator());
  Value ia = loopA.getInductionVar(), ib = loopB.getInductionVar();

  auto rowType = VectorType::get({kBlock}, element);
  // Row r: the input at loop b = ib + r, loop a = ia .. ia + 15 (the input's
  // contiguous dimension).
  SmallVector<Value> rows;
  for (int64_t r = 0; r < kBlock; ++r) {
    iv[a] = ia;
    iv[b] = arith::AddIOp::create(
        rewriter, loc, ib, arith::ConstantIndexOp::create(rewriter, loc, r));
    SmallVector<Value> indices;
    for (AffineExpr e : inMap.getResults())
      indices.push_back(iv[cast<AffineDimExpr>(e).getPosition()]);
    rows.push_back(vector::LoadOp::create(rewriter, loc, rowType, in, indices));
  }
  SmallVector<Value> columns = transpose16x16(rewriter, loc, rows);
  // Column c: the result at loop a = ia + c, loop b = ib .. ib + 15 (the
  // result's contiguous dimension).
  for (int64_t c = 0; c < kBlock; ++c) {
    iv[a] = arith::AddIOp::create(
        rewriter, loc, ia, arith::ConstantIndexOp::create(rewriter, loc, c));
    iv[b] = ib;
    auto store = vector::StoreOp::create(rewriter, loc, columns[c], out, iv);
    if (streaming) {
      store.setNontemporal(true);
      store.setAlignment(64);
    }
  }
  rewriter.eraseOp(tile);
}

struct TileTransposesPass
    : public tide::impl::TileTransposesPassBase<TileTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tileSize < 1) {
      getOperation().emitError() << "tide-tile-transposes: invalid 'tile-size' "
                                 << static_cast<int64_t>(tileSize)
                                 << "; expected a positive number of elements";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() && transposedLoops(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      auto [a, b] = *transposedLoops(op);
      // Blocks: a plain 32-bit transpose whose tiles hold whole blocks.
      bool blocks =
          vectorBlocks && tileSize % kBlock == 0 && isPlainTranspose32(op);
      Value result = op.getDpsInitOperand(0)->get();
      auto resultType = cast<MemRefType>(result.getType());
      bool streaming = blocks && streamingBytes > 0 &&
                       resultType.hasStaticShape() &&
                       resultType.getNumElements() * 4 >= streamingBytes &&
                       rowsAligned(result);
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      sizes[a] = sizes[b] = tileSize;
      // Tile loop b (the input's rows) outside loop a: each tile reads the
      // input's rows next to the previous tile's, the order the hardware
      // prefetches (the 64 MiB transpose: 18 against 9 ms in a C program
      // with the same blocks).
      SmallVector<unsigned> order;
      for (unsigned l = 0; l < op.getNumLoops(); ++l)
        if (l != a)
          order.push_back(l);
      order.insert(llvm::find(order, b) + 1, a);
      linalg::LinalgTilingOptions options;
      options.setTileSizes(sizes).setInterchange(order).setLoopType(
          linalg::LinalgTilingLoopType::ParallelLoops);
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::TiledLinalgOp> tiled =
          linalg::tileLinalgOp(rewriter, op, options);
      if (failed(tiled))
        continue; // left as it is: still correct, only slower
      rewriter.eraseOp(op);
      if (blocks)
        copyByBlocks(rewriter, tiled->op, a, b, streaming);
    }
  }
};

} // namespace
