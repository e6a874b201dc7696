//===- Rows.cpp - Row groups as one kernel --------------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A layer normalization reaches this pass as a run of linalg ops over one
// row space [rows x cols]: elementwise ops over the rows, reductions of the
// trailing (column) dimensions into per-row values, elementwise ops on those
// values, and a last elementwise op that reads them broadcast along the row.
// Lowered one op at a time that is four kernels or more, each reading the
// rows from memory again. A *row group* is such a run, lowered here as one
// kernel with a warp (rows of at most kWarpRowLimit columns, 32-bit
// accumulators) or a block per row:
//
//  - per-row values (reductions, elementwise ops over [rows x 1]) live in
//    registers, every thread of the row holding them;
//  - elementwise results over [rows x cols] are stored only when something
//    after the group reads them; a member that reads one recomputes it from
//    its operands (the row's later passes find them in cache);
//  - independent reductions and stores share a pass over the columns, so a
//    layer norm is two reduction passes and one writing pass;
//  - linalg.softmax joins a group as its two reductions and its write: the
//    scale and mask before an attention softmax are fused into it.
//
// A group never reads from memory a buffer it writes (written values flow
// in registers or are recomputed), and every thread works on the same
// columns of its row in every pass, so no barrier is needed between passes
// but the reductions' own.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallBitVector.h"

#include <functional>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

namespace {

/// Shorter rows (pooling windows) are reduced one thread per output.
constexpr int64_t kMinRowCols = 32;
/// Few long rows are left to the split reductions (Reductions.cpp), which
/// spread a row over many blocks.
constexpr int64_t kFewRows = 264;
constexpr int64_t kLongRow = 8192;

/// What a group member computes.
enum class Kind {
  /// All-parallel over [rows x cols] (outer ++ inner loops).
  Map,
  /// All-parallel over the rows only (outer loops, or outer ++ size-1 loops).
  Scalar,
  /// Reduction of the inner loops into a per-row value.
  Reduce,
  /// linalg.softmax over the last dimension.
  Softmax,
};

bool isScalarKind(Kind k) { return k == Kind::Scalar || k == Kind::Reduce; }

/// The row space of a group: static outer (row) and inner (column) sizes.
struct RowShape {
  SmallVector<int64_t> outer, inner;
  int64_t rows = 1, cols = 1;
};

struct Member {
  Operation *op;
  Kind kind;
  /// Reduce: how the payload folds.
  std::optional<ReductionCombiner> combiner;
  /// Loops of the op (Softmax: the rank).
  unsigned numLoops = 0;
};

/// A value a member reads that an earlier member wrote.
struct Def {
  unsigned member, result;
};

/// The buffer `v` views, through view-like ops.
Value baseOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// `map` with the loops from `k` on (the columns, or size-1 loops) pinned
/// to 0: the element that the row at the first `k` loops reads or writes.
AffineMap rowAccess(AffineMap map, unsigned k) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    dims.push_back(d < k ? getAffineDimExpr(d, ctx)
                         : getAffineConstantExpr(0, ctx));
  return simplifyAffineMap(
      map.replaceDimsAndSymbols(dims, {}, k, map.getNumSymbols()));
}

/// Whether `map` (over `k` row loops) gives each row its own element: each
/// loop once, zeros elsewhere (more results than loops: a [rows x 1] buffer).
bool isRowInjective(AffineMap map, unsigned k) {
  llvm::SmallBitVector used(k);
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      if (used.test(d.getPosition()))
        return false;
      used.set(d.getPosition());
      continue;
    }
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!c || c.getValue() != 0)
      return false;
  }
  return used.all();
}

std::optional<int64_t> staticElements(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getNumElements();
}

/// The operands of a member that it reads (with their indexing maps over
/// its loops) and the buffers it writes.
struct Access {
  OpOperand *operand;
  AffineMap map;
};

SmallVector<Access> readsOf(const Member &m) {
  SmallVector<Access> reads;
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(m.op)) {
    reads.push_back(
        {&softmax.getInputMutable(),
         AffineMap::getMultiDimIdentityMap(m.numLoops, m.op->getContext())});
    return reads;
  }
  auto op = cast<linalg::LinalgOp>(m.op);
  for (OpOperand &operand : m.op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    // A reduction reads its init (the accumulator's start); other ops only
    // when the payload uses it.
    if (op.isDpsInit(&operand) && m.kind != Kind::Reduce &&
        op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    if (!op.isDpsInit(&operand) &&
        op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    reads.push_back({&operand, op.getMatchingIndexingMap(&operand)});
  }
  return reads;
}

SmallVector<Access> writesOf(const Member &m) {
  SmallVector<Access> writes;
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(m.op)) {
    writes.push_back(
        {&softmax.getOutputMutable(),
         AffineMap::getMultiDimIdentityMap(m.numLoops, m.op->getContext())});
    return writes;
  }
  auto op = cast<linalg::LinalgOp>(m.op);
  for (OpOperand &init : op.getDpsInitsMutable())
    writes.push_back({&init, op.getMatchingIndexingMap(&init)});
  return writes;
}

/// Whether all memref operands of `op` are in GPU memory.
bool allOnDevice(const KernelBuilder &kernels, Operation *op) {
  bool any = false;
  for (Value v : op->getOperands()) {
    if (!isa<MemRefType>(v.getType()))
      continue;
    if (!kernels.onDevice(v))
      return false;
    any = true;
  }
  return any;
}

/// The row shape of a group that `op` can anchor: a reduction of its
/// trailing loops with one combiner that reads some operand over all its
/// loops (not a GEMM or a convolution), or a softmax over the last
/// dimension; static sizes, rows long enough.
std::optional<RowShape> anchorShape(const KernelBuilder &kernels,
                                    Operation *op) {
  if (!allOnDevice(kernels, op))
    return std::nullopt;
  RowShape shape;
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    auto type = cast<MemRefType>(softmax.getInput().getType());
    int64_t rank = type.getRank();
    if (!type.hasStaticShape() || rank < 1 ||
        softmax.getDimension() != static_cast<uint64_t>(rank - 1) ||
        softmax.getOutput().getType() != softmax.getInput().getType())
      return std::nullopt;
    shape.outer.assign(type.getShape().begin(), type.getShape().end() - 1);
    shape.inner.push_back(type.getShape().back());
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!matchCombiner(linalgOp))
      return std::nullopt;
    SmallVector<int64_t> sizes = linalgOp.getStaticLoopRanges();
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      return std::nullopt;
    SmallVector<utils::IteratorType> iters = linalgOp.getIteratorTypesArray();
    unsigned k = 0;
    while (k < iters.size() && iters[k] == utils::IteratorType::parallel)
      ++k;
    for (unsigned i = k; i < iters.size(); ++i)
      if (iters[i] != utils::IteratorType::reduction)
        return std::nullopt;
    bool readsAll = llvm::any_of(linalgOp.getDpsInputOperands(), [&](auto *o) {
      return isa<MemRefType>(o->get().getType()) &&
             linalgOp.getMatchingIndexingMap(o).isPermutation();
    });
    AffineMap out =
        linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(0));
    if (!readsAll || !isRowInjective(rowAccess(out, k), k))
      return std::nullopt;
    shape.outer.assign(sizes.begin(), sizes.begin() + k);
    shape.inner.assign(sizes.begin() + k, sizes.end());
  } else {
    return std::nullopt;
  }
  for (int64_t s : shape.outer)
    shape.rows *= s;
  for (int64_t s : shape.inner)
    shape.cols *= s;
  if (shape.cols < kMinRowCols || shape.rows == 0 ||
      (shape.rows < kFewRows && shape.cols >= kLongRow))
    return std::nullopt;
  return shape;
}

/// `op` as a member of a group over `shape`, if it can be one.
std::optional<Member> classify(const KernelBuilder &kernels, Operation *op,
                               const RowShape &shape) {
  if (op->getParentOfType<gpu::LaunchOp>() || !allOnDevice(kernels, op))
    return std::nullopt;
  unsigned k = shape.outer.size();
  if (isa<linalg::SoftmaxOp>(op)) {
    std::optional<RowShape> s = anchorShape(kernels, op);
    if (!s || s->outer != shape.outer || s->inner != shape.inner)
      return std::nullopt;
    return Member{op, Kind::Softmax, std::nullopt, k + 1};
  }
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  SmallVector<int64_t> sizes = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return std::nullopt;
  unsigned n = sizes.size();
  if (linalgOp.getNumReductionLoops() > 0) {
    std::optional<RowShape> s = anchorShape(kernels, op);
    if (!s || s->outer != shape.outer || s->inner != shape.inner)
      return std::nullopt;
    return Member{op, Kind::Reduce, matchCombiner(linalgOp), n};
  }
  ArrayRef<int64_t> all(sizes);
  bool full = n == k + shape.inner.size() &&
              all.take_front(k) == ArrayRef<int64_t>(shape.outer) &&
              all.drop_front(k) == ArrayRef<int64_t>(shape.inner);
  bool scalar =
      n >= k && all.take_front(k) == ArrayRef<int64_t>(shape.outer) &&
      llvm::all_of(all.drop_front(k), [](int64_t s) { return s == 1; });
  if (full) {
    // Each output element written once.
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (!linalgOp.getMatchingIndexingMap(&init).isPermutation() ||
          staticElements(init.get()) != shape.rows * shape.cols)
        return std::nullopt;
    return Member{op, Kind::Map, std::nullopt, n};
  }
  if (scalar) {
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (!isRowInjective(rowAccess(linalgOp.getMatchingIndexingMap(&init), k),
                          k) ||
          staticElements(init.get()) != shape.rows)
        return std::nullopt;
    return Member{op, Kind::Scalar, std::nullopt, n};
  }
  return std::nullopt;
}

/// Ops that may sit between the members of a group: they neither read nor
/// write the group's buffers' contents (deallocations are moved after the
/// group's kernel).
bool isTransparent(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  if (isa<memref::AllocOp, gpu::AllocOp>(op))
    return op->getNumOperands() == 0 ||
           llvm::all_of(op->getOperands(),
                        [](Value v) { return v.getType().isIndex(); });
  if (isa<memref::DeallocOp>(op))
    return true;
  if (auto dealloc = dyn_cast<gpu::DeallocOp>(op))
    return !dealloc.getAsyncToken() && dealloc.getAsyncDependencies().empty();
  return isPure(op);
}

/// Copies from GPU memory to the host between the members (a result the
/// group computes, copied out as soon as it is ready): they wait for the
/// group's kernel, which never touches host memory.
bool isDeferrable(const KernelBuilder &kernels, Operation *op) {
  auto copy = dyn_cast<gpu::MemcpyOp>(op);
  return copy && !copy.getAsyncToken() && copy.getAsyncDependencies().empty() &&
         !kernels.onDevice(copy.getDst()) && kernels.onDevice(copy.getSrc());
}

/// The members' dataflow, checked: where each read comes from.
struct Analysis {
  /// For each member read of an earlier member's output.
  DenseMap<OpOperand *, Def> defs;
  /// The members up to (not including) the first that cannot join.
  unsigned legal = 0;
};

/// Follows the group's dataflow in order and stops at the first member
/// that cannot join: one that reads a group-written buffer other than
/// element by element as it was written (or through another view), or
/// writes a buffer that an earlier member read from memory.
Analysis analyze(ArrayRef<Member> members, unsigned k) {
  Analysis a;
  // The last writer of each written buffer (by value), and their bases.
  DenseMap<Value, Def> lastWriter;
  DenseSet<Value> writtenBases, readBases;
  auto writerMap = [&](Def d) -> AffineMap {
    for (auto [i, w] : llvm::enumerate(writesOf(members[d.member])))
      if (i == d.result)
        return w.map;
    return {};
  };
  for (auto [pos, m] : llvm::enumerate(members)) {
    bool ok = true;
    SmallVector<Value> memoryReads;
    DenseMap<OpOperand *, Def> memberDefs;
    SmallVector<Access> writes = writesOf(m);
    for (Access r : readsOf(m)) {
      Value v = r.operand->get();
      auto it = lastWriter.find(v);
      if (it == lastWriter.end()) {
        if (writtenBases.contains(baseOf(v))) {
          ok = false; // another view of a written buffer
          break;
        }
        // Its own init, read and written in place by the same thread: not
        // a read of another thread's columns.
        bool ownInit = llvm::any_of(
            writes, [&](Access w) { return w.operand == r.operand; });
        if (!ownInit)
          memoryReads.push_back(baseOf(v));
        // Read and written by this member: only element by element.
        if (!ownInit && llvm::any_of(writes, [&](Access w) {
              return baseOf(w.operand->get()) == baseOf(v) &&
                     (w.operand->get() != v || w.map != r.map);
            })) {
          ok = false;
          break;
        }
        continue;
      }
      Def d = it->second;
      Kind writer = members[d.member].kind;
      if (isScalarKind(writer)) {
        // A per-row value, read at the row's element.
        if (rowAccess(r.map, k) != rowAccess(writerMap(d), k)) {
          ok = false;
          break;
        }
      } else if (m.kind == Kind::Scalar || r.map != writerMap(d)) {
        // Elements over the rows, read where they were written.
        ok = false;
        break;
      }
      memberDefs[r.operand] = d;
    }
    for (Access w : writes)
      if (readBases.contains(baseOf(w.operand->get())) ||
          (!lastWriter.contains(w.operand->get()) &&
           writtenBases.contains(baseOf(w.operand->get()))))
        ok = false;
    if (!ok)
      break;
    a.defs.insert(memberDefs.begin(), memberDefs.end());
    for (Value b : memoryReads)
      readBases.insert(b);
    for (auto [i, w] : llvm::enumerate(writes)) {
      lastWriter[w.operand->get()] =
          Def{static_cast<unsigned>(pos), static_cast<unsigned>(i)};
      writtenBases.insert(baseOf(w.operand->get()));
    }
    a.legal = pos + 1;
  }
  return a;
}

/// Whether a member reads something the members before it wrote.
bool readsGroup(const Analysis &a, const Member &m) {
  return llvm::any_of(readsOf(m),
                      [&](Access r) { return a.defs.contains(r.operand); });
}

/// Whether a later member reads what member `i` writes.
bool isRead(const Analysis &a, unsigned i) {
  return llvm::any_of(a.defs,
                      [&](auto &entry) { return entry.second.member == i; });
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

class RowKernel {
public:
  RowKernel(ArrayRef<Member> members, const Analysis &analysis,
            const RowShape &shape,
            DenseSet<std::pair<unsigned, unsigned>> stored)
      : members(members), analysis(analysis), shape(shape),
        stored(std::move(stored)), loc(members.front().op->getLoc()) {}

  void emit(KernelBuilder &kernels, OpBuilder &b);

private:
  using Memo = DenseMap<unsigned, SmallVector<Value>>;
  /// The columns of one vector step: `vec` consecutive columns from the
  /// step's first (`baseIvs`), the one being evaluated (`lane`), and the
  /// vectors loaded so far.
  struct Step {
    SmallVector<Value> baseIvs;
    int64_t lane = 0;
    DenseMap<std::pair<Value, AffineMap>, Value> loads;
  };
  /// A reduction in the current pass.
  struct ReduceItem {
    std::function<Value(OpBuilder &, ArrayRef<Value>, Memo &)> element;
    std::function<Value(OpBuilder &, Value, Value)> combine;
    gpu::AllReduceOperation kind;
    Type accType;
    std::function<void(OpBuilder &, Value)> finish;
    /// The member whose register it produces (for the flush rule).
    unsigned member;
  };
  struct Item {
    std::optional<ReduceItem> reduce;
    /// Otherwise: stores the stored outputs of this member.
    unsigned storeMember = 0;
  };

  /// The value `operand` of member `i` reads at the loop indices `ivs`.
  Value operandValue(OpBuilder &lb, unsigned i, OpOperand *operand,
                     AffineMap map, ArrayRef<Value> ivs, Memo &memo);
  /// Member `i`'s results at column loop indices `ivs` (Map, Softmax).
  SmallVector<Value> evaluate(OpBuilder &lb, unsigned i, ArrayRef<Value> ivs,
                              Memo &memo);
  /// Member `i` (Scalar) at its row.
  void evaluateScalar(unsigned i);
  void addReduce(unsigned i);
  void addSoftmax(unsigned i);
  /// Reductions of the pending pass whose registers member `i` needs.
  bool needsPending(unsigned i);
  void collectNeeds(unsigned i, DenseSet<unsigned> &needs);
  /// Emits the pending pass: one loop over the row's columns.
  void flush();
  /// Whether `map` reads `v` at `vec` consecutive elements when the
  /// innermost loop takes `vec` consecutive values from a multiple of `vec`:
  /// a contiguous buffer whose last index is the innermost loop.
  bool isVectorAccess(Value v, AffineMap map) const {
    return isVectorAccess(v, map, vec);
  }
  bool isVectorAccess(Value v, AffineMap map, int64_t width) const;
  /// The row's indices with the member's column loops at 0.
  SmallVector<Value> rowIvsFor(OpBuilder &b, unsigned i);
  /// A store of a per-row value by the row's first thread.
  void storeScalar(OpBuilder &b, Value v, Value buffer, AffineMap map,
                   unsigned i);
  Value crossThreads(OpBuilder &b, Value partial, gpu::AllReduceOperation kind,
                     const std::function<Value(OpBuilder &, Value, Value)> &f);

  ArrayRef<Member> members;
  const Analysis &analysis;
  const RowShape &shape;
  DenseSet<std::pair<unsigned, unsigned>> stored;

  /// Where the kernel's ops come from (the group's anchor, set by emit).
  Location loc;
  std::optional<OpBuilder> tb;
  SmallVector<Value> rowIvs;
  Value first;
  int64_t stride = 0;
  bool byWarp = false;
  /// Per-row values: (member, result) -> register.
  DenseMap<std::pair<unsigned, unsigned>, Value> regs;
  /// Softmax members' row maximum and sum.
  DenseMap<unsigned, std::pair<Value, Value>> softmaxStats;
  SmallVector<Item> pending;
  DenseSet<unsigned> pendingReduces;
  /// Columns per thread and step (1, or a vector's lanes), and the step
  /// being emitted.
  int64_t vec = 1;
  Step *step = nullptr;
};

bool RowKernel::isVectorAccess(Value v, AffineMap map, int64_t width) const {
  auto type = dyn_cast<MemRefType>(v.getType());
  // Not i1 (a byte per element in memory): LLVM packs a vector of i1 into
  // bits, so a vector<2xi1> load would read the bits of one byte (a random
  // GPU program's select read its condition so, 2026-12-05).
  if (width == 1 || !type || !type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() % 8 ||
      !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getRank() == 0 || type.getShape().back() % width ||
      !map.getNumResults())
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && last.getPosition() + 1 == map.getNumDims() &&
         map.getNumDims() == shape.outer.size() + shape.inner.size();
}

SmallVector<Value> RowKernel::rowIvsFor(OpBuilder &b, unsigned i) {
  SmallVector<Value> ivs(rowIvs);
  for (unsigned d = rowIvs.size(); d < members[i].numLoops; ++d)
    ivs.push_back(index(b, loc, 0));
  return ivs;
}

Value RowKernel::operandValue(OpBuilder &lb, unsigned i, OpOperand *operand,
                              AffineMap map, ArrayRef<Value> ivs, Memo &memo) {
  Value v = operand->get();
  if (!isa<MemRefType>(v.getType()))
    return v;
  auto it = analysis.defs.find(operand);
  if (it == analysis.defs.end()) {
    // In a vector step: one vector load per buffer and map for the step's
    // columns, each column an element of it.
    if (step && isVectorAccess(v, map)) {
      Value &loaded = step->loads[{v, map}];
      if (!loaded) {
        Type element = cast<MemRefType>(v.getType()).getElementType();
        loaded = vector::LoadOp::create(
            lb, loc, VectorType::get({vec}, element), v,
            applyMap(lb, loc, map, step->baseIvs), /*nontemporal=*/false,
            llvm::MaybeAlign(vec * element.getIntOrFloatBitWidth() / 8));
      }
      return vector::ExtractOp::create(lb, loc, loaded, step->lane);
    }
    return memref::LoadOp::create(lb, loc, v, applyMap(lb, loc, map, ivs));
  }
  Def d = it->second;
  if (isScalarKind(members[d.member].kind))
    return regs.lookup({d.member, d.result});
  // Written over the rows, read where written: the same loop indices.
  return evaluate(lb, d.member, ivs, memo)[d.result];
}

SmallVector<Value> RowKernel::evaluate(OpBuilder &lb, unsigned i,
                                       ArrayRef<Value> ivs, Memo &memo) {
  auto it = memo.find(i);
  if (it != memo.end())
    return it->second;
  const Member &m = members[i];
  SmallVector<Value> results;
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(m.op)) {
    Access in = readsOf(m).front();
    Value x = operandValue(lb, i, in.operand, in.map, ivs, memo);
    auto [rowMax, rowSum] = softmaxStats.lookup(i);
    x = convertTo(lb, loc, x, rowMax.getType(), false);
    Value e =
        math::ExpOp::create(lb, loc, arith::SubFOp::create(lb, loc, x, rowMax));
    Type element =
        cast<MemRefType>(softmax.getOutput().getType()).getElementType();
    results.push_back(convertTo(
        lb, loc, arith::DivFOp::create(lb, loc, e, rowSum), element, false));
  } else {
    auto op = cast<linalg::LinalgOp>(m.op);
    IRMapping mapping;
    for (OpOperand &operand : m.op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.use_empty())
        continue;
      mapping.map(arg, operandValue(lb, i, &operand,
                                    isa<MemRefType>(operand.get().getType())
                                        ? op.getMatchingIndexingMap(&operand)
                                        : AffineMap(),
                                    ivs, memo));
    }
    clonePayload(lb, op, ivs, mapping);
    for (Value y : op.getBlock()->getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(y));
  }
  memo[i] = results;
  return results;
}

void RowKernel::storeScalar(OpBuilder &b, Value v, Value buffer, AffineMap map,
                            unsigned i) {
  Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first,
                                        index(b, loc, 0));
  OpBuilder sb = ifThen(b, loc, isFirst);
  memref::StoreOp::create(sb, loc, v, buffer,
                          applyMap(sb, loc, map, rowIvsFor(sb, i)));
}

void RowKernel::evaluateScalar(unsigned i) {
  const Member &m = members[i];
  auto op = cast<linalg::LinalgOp>(m.op);
  OpBuilder &b = *tb;
  SmallVector<Value> ivs = rowIvsFor(b, i);
  Memo memo;
  IRMapping mapping;
  for (OpOperand &operand : m.op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    mapping.map(arg, operandValue(b, i, &operand,
                                  isa<MemRefType>(operand.get().getType())
                                      ? op.getMatchingIndexingMap(&operand)
                                      : AffineMap(),
                                  ivs, memo));
  }
  clonePayload(b, op, ivs, mapping);
  for (auto [r, y] :
       llvm::enumerate(op.getBlock()->getTerminator()->getOperands())) {
    Value v = mapping.lookupOrDefault(y);
    regs[{i, static_cast<unsigned>(r)}] = v;
    if (stored.contains({i, static_cast<unsigned>(r)})) {
      OpOperand *init = op.getDpsInitOperand(r);
      storeScalar(b, v, init->get(), op.getMatchingIndexingMap(init), i);
    }
  }
}

void RowKernel::collectNeeds(unsigned i, DenseSet<unsigned> &needs) {
  for (Access r : readsOf(members[i])) {
    auto it = analysis.defs.find(r.operand);
    if (it == analysis.defs.end())
      continue;
    unsigned j = it->second.member;
    if (members[j].kind == Kind::Reduce)
      needs.insert(j);
    else if (members[j].kind != Kind::Scalar)
      collectNeeds(j, needs);
  }
}

bool RowKernel::needsPending(unsigned i) {
  DenseSet<unsigned> needs;
  collectNeeds(i, needs);
  return llvm::any_of(needs,
                      [&](unsigned j) { return pendingReduces.contains(j); });
}

Value RowKernel::crossThreads(
    OpBuilder &b, Value partial, gpu::AllReduceOperation kind,
    const std::function<Value(OpBuilder &, Value, Value)> &f) {
  if (!byWarp)
    return gpu::AllReduceOp::create(
        b, loc, partial, gpu::AllReduceOperationAttr::get(b.getContext(), kind),
        true);
  // Butterfly shuffles: every lane ends with the row's total.
  Value acc = partial;
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, acc, offset, kWarpSize,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    acc = f(b, acc, other);
  }
  return acc;
}

void RowKernel::flush() {
  if (pending.empty())
    return;
  OpBuilder &b = *tb;
  SmallVector<Value> inits;
  for (Item &item : pending)
    if (item.reduce)
      inits.push_back(
          identityOf(b, loc, item.reduce->kind, item.reduce->accType));
  // Each thread's columns: first, first + stride, ... When the threads
  // share the row evenly, the loop counts steps from 0 to a constant, so
  // LLVM unrolls it and the loads of several steps are in flight at once;
  // with `vec` > 1 each step takes `vec` consecutive columns, read and
  // written as vectors where the buffers allow.
  bool even = shape.cols % (stride * vec) == 0;
  auto loop =
      even ? scf::ForOp::create(b, loc, index(b, loc, 0),
                                index(b, loc, shape.cols / (stride * vec)),
                                index(b, loc, 1), inits)
           : scf::ForOp::create(b, loc, first, index(b, loc, shape.cols),
                                index(b, loc, stride), inits);
  {
    // (Without reductions the loop has its empty yield already.)
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<Value> innerSizes;
    for (int64_t s : shape.inner)
      innerSizes.push_back(index(lb, loc, s));
    Value col = loop.getInductionVar();
    int64_t lanes = even ? vec : 1;
    if (even)
      col = arith::MulIOp::create(
          lb, loc,
          arith::AddIOp::create(
              lb, loc,
              arith::MulIOp::create(lb, loc, col, index(lb, loc, stride)),
              first),
          index(lb, loc, lanes));
    Step current;
    current.baseIvs.assign(rowIvs.begin(), rowIvs.end());
    llvm::append_range(current.baseIvs, delinearize(lb, loc, col, innerSizes));
    if (lanes > 1)
      step = &current;
    SmallVector<Value> accs(loop.getRegionIterArgs());
    // Stored values of vector stores, per (member, result), lane by lane.
    DenseMap<std::pair<unsigned, unsigned>, SmallVector<Value>> toStore;
    for (int64_t lane = 0; lane < lanes; ++lane) {
      current.lane = lane;
      // The innermost index moves by `lane` (the step stays in one row of
      // the innermost dim: its size is a multiple of `vec`).
      SmallVector<Value> ivs(current.baseIvs);
      if (lane)
        ivs.back() =
            arith::AddIOp::create(lb, loc, ivs.back(), index(lb, loc, lane));
      Memo memo;
      unsigned a = 0;
      for (Item &item : pending) {
        if (item.reduce) {
          Value x = convertTo(lb, loc, item.reduce->element(lb, ivs, memo),
                              item.reduce->accType, false);
          accs[a] = item.reduce->combine(lb, accs[a], x);
          ++a;
          continue;
        }
        unsigned i = item.storeMember;
        SmallVector<Value> values = evaluate(lb, i, ivs, memo);
        for (auto [r, w] : llvm::enumerate(writesOf(members[i]))) {
          std::pair<unsigned, unsigned> key{i, static_cast<unsigned>(r)};
          if (!stored.contains(key))
            continue;
          if (step && isVectorAccess(w.operand->get(), w.map))
            toStore[key].push_back(values[r]);
          else
            memref::StoreOp::create(lb, loc, values[r], w.operand->get(),
                                    applyMap(lb, loc, w.map, ivs));
        }
      }
    }
    for (Item &item : pending) {
      if (item.reduce)
        continue;
      unsigned i = item.storeMember;
      for (auto [r, w] : llvm::enumerate(writesOf(members[i]))) {
        auto it = toStore.find({i, static_cast<unsigned>(r)});
        if (it == toStore.end())
          continue;
        Type element =
            cast<MemRefType>(w.operand->get().getType()).getElementType();
        Value v = vector::FromElementsOp::create(
            lb, loc, VectorType::get({vec}, element), it->second);
        vector::StoreOp::create(
            lb, loc, v, w.operand->get(),
            applyMap(lb, loc, w.map, current.baseIvs), /*nontemporal=*/false,
            llvm::MaybeAlign(vec * element.getIntOrFloatBitWidth() / 8));
      }
    }
    step = nullptr;
    if (!inits.empty())
      scf::YieldOp::create(lb, loc, accs);
  }
  unsigned a = 0;
  for (Item &item : pending)
    if (item.reduce)
      item.reduce->finish(b, crossThreads(b, loop.getResult(a++),
                                          item.reduce->kind,
                                          item.reduce->combine));
  pending.clear();
  pendingReduces.clear();
}

void RowKernel::addReduce(unsigned i) {
  const Member &m = members[i];
  auto op = cast<linalg::LinalgOp>(m.op);
  ReductionCombiner comb = *m.combiner;
  OpOperand *init = op.getDpsInitOperand(0);
  Type element = cast<MemRefType>(init->get().getType()).getElementType();
  bool isUnsigned = comb.kind == gpu::AllReduceOperation::MAXUI ||
                    comb.kind == gpu::AllReduceOperation::MINUI;
  ReduceItem item;
  item.member = i;
  item.kind = comb.kind;
  item.accType = accumulatorType(element);
  item.element = [this, i, op, comb](OpBuilder &lb, ArrayRef<Value> ivs,
                                     Memo &memo) mutable -> Value {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (arg.use_empty())
        continue;
      mapping.map(arg, operandValue(lb, i, input,
                                    isa<MemRefType>(input->get().getType())
                                        ? op.getMatchingIndexingMap(input)
                                        : AffineMap(),
                                    ivs, memo));
    }
    clonePayload(lb, op, ivs, mapping, comb.op);
    return mapping.lookupOrDefault(comb.element);
  };
  // Integer kinds keep their signedness through the widening.
  item.combine = [this, comb](OpBuilder &lb, Value x, Value y) {
    return combineWith(lb, loc, comb.op, x, y);
  };
  item.finish = [this, i, op, comb, init, element,
                 isUnsigned](OpBuilder &b, Value total) mutable {
    Memo memo;
    AffineMap map = op.getMatchingIndexingMap(init);
    Value old = operandValue(b, i, init, map, rowIvsFor(b, i), memo);
    Value t = convertTo(b, loc, total, element, isUnsigned);
    Value v = comb.accPos == 0 ? combineWith(b, loc, comb.op, old, t)
                               : combineWith(b, loc, comb.op, t, old);
    regs[{i, 0}] = v;
    if (stored.contains({i, 0}))
      storeScalar(b, v, init->get(), map, i);
  };
  pending.push_back(Item{item, 0});
  pendingReduces.insert(i);
}

void RowKernel::addSoftmax(unsigned i) {
  auto softmax = cast<linalg::SoftmaxOp>(members[i].op);
  Type element =
      cast<MemRefType>(softmax.getInput().getType()).getElementType();
  auto compute = cast<FloatType>(accumulatorType(element));
  Access in = readsOf(members[i]).front();
  auto input = [this, i, in, compute](OpBuilder &lb, ArrayRef<Value> ivs,
                                      Memo &memo) {
    return convertTo(lb, loc,
                     operandValue(lb, i, in.operand, in.map, ivs, memo),
                     compute, false);
  };
  // The row's maximum (NaN-propagating), then its sum of exponentials.
  ReduceItem max;
  max.member = i;
  max.kind = gpu::AllReduceOperation::MAXIMUMF;
  max.accType = compute;
  max.element = input;
  max.combine = [this](OpBuilder &lb, Value x, Value y) -> Value {
    return arith::MaximumFOp::create(lb, loc, x, y);
  };
  max.finish = [this, i](OpBuilder &, Value total) {
    softmaxStats[i].first = total;
  };
  pending.push_back(Item{max, 0});
  flush();
  ReduceItem sum;
  sum.member = i;
  sum.kind = gpu::AllReduceOperation::ADD;
  sum.accType = compute;
  sum.element = [this, i, input](OpBuilder &lb, ArrayRef<Value> ivs,
                                 Memo &memo) -> Value {
    Value rowMax = softmaxStats.lookup(i).first;
    return math::ExpOp::create(
        lb, loc, arith::SubFOp::create(lb, loc, input(lb, ivs, memo), rowMax));
  };
  sum.combine = [this](OpBuilder &lb, Value x, Value y) -> Value {
    return arith::AddFOp::create(lb, loc, x, y);
  };
  sum.finish = [this, i](OpBuilder &, Value total) {
    softmaxStats[i].second = total;
  };
  pending.push_back(Item{sum, 0});
  flush();
}

void RowKernel::emit(KernelBuilder &kernels, OpBuilder &b) {
  Operation *anchor = nullptr;
  for (const Member &m : members)
    if (!anchor && (m.kind == Kind::Reduce || m.kind == Kind::Softmax))
      anchor = m.op;
  loc = anchor->getLoc();
  // A warp per row for short rows whose accumulators shuffle as 32 bits.
  bool narrow = true;
  for (const Member &m : members) {
    Type acc;
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(m.op))
      acc = accumulatorType(
          cast<MemRefType>(softmax.getInput().getType()).getElementType());
    else if (m.kind == Kind::Reduce)
      acc = accumulatorType(
          cast<MemRefType>(
              cast<linalg::LinalgOp>(m.op).getDpsInits()[0].getType())
              .getElementType());
    if (acc && acc.getIntOrFloatBitWidth() != 32)
      narrow = false;
  }
  byWarp = shape.cols <= kWarpRowLimit && narrow;
  int64_t threads = byWarp ? kBlockSize
                           : std::clamp<int64_t>(llvm::PowerOf2Ceil(shape.cols),
                                                 32, kBlockSize);
  int64_t rowsPerBlock = byWarp ? kBlockSize / kWarpSize : 1;
  Value rows = index(b, loc, shape.rows);
  Kernel k = makeKernel(b, loc, blocksFor(b, loc, rows, rowsPerBlock),
                        kernels.nameFor(anchor), threads);
  OpBuilder &kb = k.body;
  Value row = k.blockId;
  first = k.threadId;
  stride = threads;
  if (byWarp) {
    Value warp =
        arith::DivUIOp::create(kb, loc, k.threadId, index(kb, loc, kWarpSize));
    first =
        arith::RemUIOp::create(kb, loc, k.threadId, index(kb, loc, kWarpSize));
    row = arith::AddIOp::create(
        kb, loc,
        arith::MulIOp::create(kb, loc, k.blockId, index(kb, loc, rowsPerBlock)),
        warp);
    stride = kWarpSize;
  }
  // Columns per step: 16 bytes of the widest buffer read or written along
  // the innermost dim, as long as the row splits evenly into such steps.
  unsigned maxBytes = 0;
  auto count = [&](Value v, AffineMap map) {
    if (isVectorAccess(v, map, /*width=*/2))
      maxBytes = std::max<unsigned>(maxBytes, cast<MemRefType>(v.getType())
                                                      .getElementType()
                                                      .getIntOrFloatBitWidth() /
                                                  8);
  };
  for (auto [i, m] : llvm::enumerate(members)) {
    if (m.kind == Kind::Scalar)
      continue;
    for (Access a : readsOf(m))
      if (!analysis.defs.contains(a.operand))
        count(a.operand->get(), a.map);
    for (auto [r, a] : llvm::enumerate(writesOf(m)))
      if (stored.contains({static_cast<unsigned>(i), static_cast<unsigned>(r)}))
        count(a.operand->get(), a.map);
  }
  vec = maxBytes ? std::min<int64_t>(8, 16 / std::max(maxBytes, 1u)) : 1;
  while (vec > 1 && (shape.inner.back() % vec || shape.cols % (stride * vec)))
    vec /= 2;
  Value live =
      arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult, row, rows);
  tb = ifThen(kb, loc, live);
  SmallVector<Value> outerSizes;
  for (int64_t s : shape.outer)
    outerSizes.push_back(index(*tb, loc, s));
  rowIvs = outerSizes.empty() ? SmallVector<Value>()
                              : delinearize(*tb, loc, row, outerSizes);

  for (auto [i, m] : llvm::enumerate(members)) {
    unsigned idx = i;
    if (needsPending(idx))
      flush();
    switch (m.kind) {
    case Kind::Scalar:
      evaluateScalar(idx);
      break;
    case Kind::Reduce:
      addReduce(idx);
      break;
    case Kind::Softmax:
      addSoftmax(idx);
      [[fallthrough]];
    case Kind::Map:
      if (llvm::any_of(llvm::seq<unsigned>(0, writesOf(m).size()),
                       [&](unsigned r) { return stored.contains({idx, r}); }))
        pending.push_back(Item{std::nullopt, idx});
      break;
    }
  }
  flush();
}

//===----------------------------------------------------------------------===//
// Finding groups
//===----------------------------------------------------------------------===//

/// The group anchored at `ops[a]`: the members around it (op indices), or
/// nothing.
struct Candidate {
  SmallVector<unsigned> indices;
  SmallVector<Member> members;
};

Candidate collect(const KernelBuilder &kernels, ArrayRef<Operation *> ops,
                  const DenseSet<Operation *> &erased, unsigned from,
                  unsigned a, const RowShape &shape) {
  Candidate c;
  // Members before the anchor: a run of maps and per-row ops.
  SmallVector<unsigned> before;
  for (int64_t i = static_cast<int64_t>(a) - 1; i >= static_cast<int64_t>(from);
       --i) {
    if (erased.contains(ops[i]) || isTransparent(ops[i]) ||
        isDeferrable(kernels, ops[i]))
      continue;
    std::optional<Member> m = classify(kernels, ops[i], shape);
    if (!m || m->kind == Kind::Reduce || m->kind == Kind::Softmax)
      break;
    before.push_back(i);
  }
  for (unsigned i : llvm::reverse(before)) {
    c.indices.push_back(i);
    c.members.push_back(*classify(kernels, ops[i], shape));
  }
  for (unsigned i = a; i < ops.size(); ++i) {
    if (erased.contains(ops[i]) || isTransparent(ops[i]) ||
        isDeferrable(kernels, ops[i]))
      continue;
    std::optional<Member> m = classify(kernels, ops[i], shape);
    if (!m)
      break;
    c.indices.push_back(i);
    c.members.push_back(*m);
  }
  return c;
}

/// Cuts `c` to its legal, connected part; false if no group is left.
bool settle(Candidate &c, unsigned k, Analysis &analysis) {
  while (true) {
    analysis = analyze(c.members, k);
    c.members.truncate(analysis.legal);
    c.indices.truncate(analysis.legal);
    // Leading members nothing in the group reads, trailing ones that read
    // nothing from the group: they run on their own.
    bool changed = false;
    while (!c.members.empty() && c.members.front().kind != Kind::Reduce &&
           c.members.front().kind != Kind::Softmax && !isRead(analysis, 0)) {
      c.members.erase(c.members.begin());
      c.indices.erase(c.indices.begin());
      changed = true;
      analysis = analyze(c.members, k);
    }
    while (!c.members.empty() && c.members.back().kind != Kind::Reduce &&
           c.members.back().kind != Kind::Softmax &&
           !readsGroup(analysis, c.members.back())) {
      c.members.pop_back();
      c.indices.pop_back();
      changed = true;
    }
    if (!changed)
      break;
  }
  unsigned work = 0, anchors = 0;
  for (const Member &m : c.members) {
    if (!isa<linalg::FillOp>(m.op))
      ++work;
    if (m.kind == Kind::Reduce || m.kind == Kind::Softmax)
      ++anchors;
  }
  return anchors > 0 && work >= 2;
}

} // namespace

void gpu_lowering::lowerRowGroups(KernelBuilder &kernels, Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  // Ops before `from` were lowered as (or moved out of) earlier groups.
  unsigned from = 0, a = 0;
  // Erased ops (deallocations of buffers that groups made unnecessary);
  // every op of `ops` was alive at once, so their addresses are unique.
  DenseSet<Operation *> erased;
  while (a < ops.size()) {
    std::optional<RowShape> shape =
        erased.contains(ops[a]) ? std::nullopt : anchorShape(kernels, ops[a]);
    if (!shape) {
      ++a;
      continue;
    }
    Candidate c = collect(kernels, ops, erased, from, a, *shape);
    unsigned k = shape->outer.size();
    Analysis analysis;
    if (!settle(c, k, analysis)) {
      ++a;
      continue;
    }
    // A copy between the members must read what the group leaves in its
    // source: no later member writes it.
    bool deferrable = true;
    for (unsigned i = c.indices.front(); i < c.indices.back(); ++i) {
      if (erased.contains(ops[i]) || !isDeferrable(kernels, ops[i]))
        continue;
      Value source = baseOf(cast<gpu::MemcpyOp>(ops[i]).getSrc());
      for (auto [index, m] : llvm::zip(c.indices, c.members))
        if (index > i && llvm::any_of(writesOf(m), [&](Access w) {
              return baseOf(w.operand->get()) == source;
            }))
          deferrable = false;
    }
    if (!deferrable) {
      ++a;
      continue;
    }
    DenseSet<Operation *> inGroup;
    for (const Member &m : c.members)
      inGroup.insert(m.op);
    // Stored outputs: each escaping buffer's last writer in the group.
    DenseMap<Value, std::pair<unsigned, unsigned>> lastWriter;
    for (auto [i, m] : llvm::enumerate(c.members))
      for (auto [r, w] : llvm::enumerate(writesOf(m)))
        lastWriter[w.operand->get()] = {static_cast<unsigned>(i),
                                        static_cast<unsigned>(r)};
    DenseSet<std::pair<unsigned, unsigned>> stored;
    SmallVector<Value> dropped;
    for (auto &[buffer, writer] : lastWriter) {
      bool local = isa_and_nonnull<memref::AllocOp, gpu::AllocOp>(
          buffer.getDefiningOp());
      bool usedOutside = llvm::any_of(buffer.getUsers(), [&](Operation *u) {
        return !inGroup.contains(u) &&
               !isa<memref::DeallocOp, gpu::DeallocOp>(u);
      });
      if (!local || usedOutside)
        stored.insert(writer);
      else
        dropped.push_back(buffer);
    }
    Operation *last = c.members.back().op;
    // Deallocations and copies to the host between the members wait for
    // the kernel.
    Operation *after = last;
    for (unsigned i = c.indices.front(); i < c.indices.back(); ++i)
      if (!erased.contains(ops[i]) &&
          (isa<memref::DeallocOp, gpu::DeallocOp>(ops[i]) ||
           isDeferrable(kernels, ops[i]))) {
        ops[i]->moveAfter(after);
        after = ops[i];
      }
    OpBuilder b(last);
    RowKernel(c.members, analysis, *shape, std::move(stored)).emit(kernels, b);
    for (const Member &m : llvm::reverse(c.members)) {
      erased.insert(m.op);
      m.op->erase();
    }
    // Buffers only the group used: gone with their deallocations.
    for (Value buffer : dropped) {
      Operation *alloc = buffer.getDefiningOp();
      for (Operation *u : llvm::make_early_inc_range(buffer.getUsers())) {
        erased.insert(u);
        u->erase();
      }
      erased.insert(alloc);
      alloc->erase();
    }
    a = from = c.indices.back() + 1;
  }
}
