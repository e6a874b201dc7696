//===- ConvToLibrary.cpp - f32 host convolutions through oneDNN -----------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/Conversion/GemmMatchers.h"
#include "tide/IR/TideDialect.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tide {
#define GEN_PASS_DEF_CONVTOLIBRARYPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

bool mlir::tide::isConstantBuffer(Value buffer) {
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto global = dyn_cast<memref::GetGlobalOp>(def)) {
      auto module = def->getParentOfType<ModuleOp>();
      auto decl =
          module ? module.lookupSymbol<memref::GlobalOp>(global.getNameAttr())
                 : memref::GlobalOp();
      return decl && decl.getConstant();
    }
    if (isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
            memref::SubViewOp, memref::ReinterpretCastOp, memref::TransposeOp>(
            def)) {
      buffer = def->getOperand(0);
      continue;
    }
    return false;
  }
  return false;
}

namespace {

/// The buffer `v` is a view of (through casts, subviews, reshapes).
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::SubViewOp, memref::ReinterpretCastOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether an op in `block` strictly between `from` and `to` (or nested in
/// one) may write a buffer whose root is one of `roots`: only reads (linalg
/// inputs, copy sources, views, deallocations are not reached here) are
/// allowed.
bool writtenBetween(Operation *from, Operation *to, ArrayRef<Value> roots) {
  if (from->getBlock() != to->getBlock() || !from->isBeforeInBlock(to))
    return true;
  bool written = false;
  for (Operation *op = from->getNextNode(); op && op != to && !written;
       op = op->getNextNode()) {
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands()) {
        if (!isa<BaseMemRefType>(operand.get().getType()) ||
            !llvm::is_contained(roots, rootOf(operand.get())))
          continue;
        if (isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
                memref::SubViewOp, memref::ReinterpretCastOp, memref::DimOp,
                memref::ExtractStridedMetadataOp>(nested))
          continue; // a view: its own uses are visited
        if (auto copy = dyn_cast<memref::CopyOp>(nested))
          if (operand.get() == copy.getSource())
            continue;
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(nested))
          if (linalgOp.isDpsInput(&operand))
            continue;
        written = true;
      }
    });
  }
  return written;
}

/// The zero linalg.fill of `buffer` (an allocation) that makes it hold zeros
/// at `point`: earlier in the same block, with no write between; null when
/// there is none.
linalg::FillOp zeroFillAt(Value buffer, Operation *point) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return {};
  for (Operation *user : buffer.getUsers()) {
    auto fill = dyn_cast<linalg::FillOp>(user);
    if (fill && fill.getDpsInits()[0] == buffer &&
        matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) &&
        fill->getBlock() == point->getBlock() && fill->isBeforeInBlock(point) &&
        !writtenBetween(fill, point, {buffer}))
      return fill;
  }
  return {};
}

/// Whether `buffer` (an allocation) holds zeros at `point`.
bool zeroAt(Value buffer, Operation *point) {
  return static_cast<bool>(zeroFillAt(buffer, point));
}

/// Whether an op strictly between `from` and `to` (same block; or nested in
/// one) uses `root` other than by taking a view of it.
bool usedBetween(Operation *from, Operation *to, Value root) {
  bool used = false;
  for (Operation *op = from->getNextNode(); op && op != to && !used;
       op = op->getNextNode())
    op->walk([&](Operation *nested) {
      if (isa<memref::CastOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
              memref::SubViewOp, memref::ReinterpretCastOp>(nested))
        return;
      for (Value operand : nested->getOperands())
        if (isa<BaseMemRefType>(operand.getType()) && rootOf(operand) == root)
          used = true;
    });
  return used;
}

/// The FCHW buffer `copy` writes into `w` in FHWC order, when it is such a
/// copy: a linalg.transpose with permutation [0, 2, 3, 1], or the
/// linalg.generic elementwise fusion leaves of one (input map
/// (d0, d1, d2, d3) -> (d0, d3, d1, d2), identity output map, a body that
/// yields its input); null otherwise.
Value fhwcCopySource(Operation *copy, Value w) {
  if (auto t = dyn_cast<linalg::TransposeOp>(copy))
    return t.getInit() == w &&
                   t.getPermutation() == ArrayRef<int64_t>{0, 2, 3, 1}
               ? t.getInput()
               : Value();
  auto generic = dyn_cast<linalg::GenericOp>(copy);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInits()[0] != w ||
      generic.getNumReductionLoops() != 0)
    return Value();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != AffineMap::getPermutationMap(ArrayRef<unsigned>{0, 3, 1, 2},
                                              copy->getContext()) ||
      !maps[1].isIdentity())
    return Value();
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return Value();
  return generic.getDpsInputs()[0];
}

/// Erases `buffer`'s allocation when nothing reads it any more: only
/// deallocations, fills of it, copies into it or into subviews of it.
void eraseIfUnread(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return;
  SmallVector<Operation *> dead;
  for (Operation *user : alloc->getUsers()) {
    if (isa<memref::DeallocOp>(user)) {
      dead.push_back(user);
    } else if (auto fill = dyn_cast<linalg::FillOp>(user);
               fill && fill.getDpsInits()[0] == buffer) {
      dead.push_back(user);
    } else if (Value source = fhwcCopySource(user, buffer);
               source && source != buffer) {
      dead.push_back(user);
    } else if (auto copy = dyn_cast<memref::CopyOp>(user);
               copy && copy.getTarget() == buffer &&
               copy.getSource() != buffer) {
      dead.push_back(user);
    } else if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      for (Operation *viewUser : subview->getUsers()) {
        auto copy = dyn_cast<memref::CopyOp>(viewUser);
        if (!copy || copy.getTarget() != subview.getResult())
          return;
        dead.push_back(copy);
      }
      dead.push_back(subview);
    } else {
      return;
    }
  }
  for (Operation *op : dead)
    op->erase();
  alloc->erase();
}

/// The unpadded input of the convolution `conv` reading the padded buffer
/// `padded`: the source of the one copy into the interior subview of
/// `padded` (offsets `before` in the spatial dims, which start at
/// `firstSpatial`: 2 for NC<spatial>, 1 for N<spatial>C), when neither is
/// written between that copy and the convolution. By the tensor-level
/// padding the IR bufferized, the rest of `padded` is zero there.
Value unpaddedSource(Value padded, Operation *conv, ArrayRef<int64_t> before,
                     int64_t firstSpatial) {
  auto type = cast<MemRefType>(padded.getType());
  int64_t k = before.size();
  memref::CopyOp interior;
  for (Operation *user : padded.getUsers()) {
    auto subview = dyn_cast<memref::SubViewOp>(user);
    // (A rank-reducing subview, whose copy's source drops a unit dimension,
    // is not a view the library can read as the input.)
    if (!subview || subview.getSource() != padded ||
        subview.getType().getRank() != type.getRank())
      continue;
    ArrayRef<int64_t> offsets = subview.getStaticOffsets(),
                      sizes = subview.getStaticSizes();
    bool match = llvm::all_of(subview.getStaticStrides(),
                              [](int64_t s) { return s == 1; });
    for (int64_t d = 0; match && d < type.getRank(); ++d) {
      if (d >= firstSpatial && d < firstSpatial + k)
        match = offsets[d] == before[d - firstSpatial];
      else
        match = offsets[d] == 0 && sizes[d] == type.getDimSize(d);
    }
    if (!match)
      continue;
    for (Operation *viewUser : subview->getUsers()) {
      auto copy = dyn_cast<memref::CopyOp>(viewUser);
      if (!copy || copy.getTarget() != subview.getResult())
        continue;
      if (copy->getBlock() != conv->getBlock() || !copy->isBeforeInBlock(conv))
        continue;
      if (interior && interior->isBeforeInBlock(copy))
        interior = copy;
      else if (!interior)
        interior = copy;
    }
  }
  if (!interior ||
      writtenBetween(interior, conv,
                     {rootOf(padded), rootOf(interior.getSource())}))
    return {};
  return interior.getSource();
}

} // namespace

bool mlir::tide::outputIsZero(linalg::LinalgOp op, Operation *&erasable) {
  erasable = nullptr;
  if (op.getNumDpsInits() != 1)
    return false;
  if (linalg::FillOp fill = getZeroFillBefore(op)) {
    erasable = fill;
    return true;
  }
  Value out = op.getDpsInits()[0];
  auto copy = dyn_cast_or_null<memref::CopyOp>(op->getPrevNode());
  if (copy && copy.getTarget() == out && zeroAt(copy.getSource(), copy)) {
    erasable = copy;
    return true;
  }
  // A fill further up: dead once `op` overwrites the buffer, when nothing
  // between reads it.
  if (linalg::FillOp fill = zeroFillAt(out, op)) {
    if (!usedBetween(fill, op, out))
      erasable = fill;
    return true;
  }
  return false;
}

namespace {

/// tide_rt_cpu_conv_f32, or with `epilogue` tide_rt_cpu_conv_epilogue_f32
/// (two more views and the flags).
func::FuncOp getOrDeclareConv(ModuleOp module, bool epilogue) {
  StringRef name =
      epilogue ? TIDE_RT_CPU_CONV_EPILOGUE_F32 : TIDE_RT_CPU_CONV_F32;
  if (auto callee = module.lookupSymbol<func::FuncOp>(name))
    return callee;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  Type view = UnrankedMemRefType::get(mb.getF32Type(), Attribute());
  SmallVector<Type> inputs = {view, view, view};
  inputs.append(16, mb.getI64Type());
  if (epilogue) {
    inputs.append({view, view});
    inputs.push_back(mb.getI64Type());
  }
  auto callee = func::FuncOp::create(mb, module.getLoc(), name,
                                     mb.getFunctionType(inputs, {}));
  callee.setPrivate();
  return callee;
}

/// What a convolution's consumer computes from each output element that
/// oneDNN can compute in the same primitive: out = relu?((y + bias[f]) + r),
/// each part optional (a linalg.generic of the elementwise fusion).
struct Epilogue {
  linalg::GenericOp op;
  Value bias;          // one element per output channel (see channelResult)
  int64_t biasDim = 0; // the bias's dimension of size F
  Value residual; // a buffer of y's shape read at the same element, or null
  bool relu = false;
  Value out; // the generic's output buffer
};

/// The position of the result of `map` that reads the output channel (loop
/// dimension `channel`) of a rank-`rank` loop nest, when every other result
/// is the constant 0: a bias buffer of one element per channel, such as
/// (F, 1, ...) read by (d0, d1, ...) -> (d1, 0, ...), or (1, 1, 1, F) by
/// (d0, d1, d2, d3) -> (0, 0, 0, d3) in NHWC; a loop dimension of extent 1
/// (`sizes`: the loop nest's) reads index 0 as well, as the batch of
/// (d0, d1, d2, d3) -> (d0, 0, 0, d3) at batch 1. -1 otherwise.
int64_t channelResult(AffineMap map, ArrayRef<int64_t> sizes, int64_t channel) {
  int64_t rank = sizes.size();
  if (map.getNumDims() != rank || map.getNumResults() == 0)
    return -1;
  int64_t position = -1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (dim && dim.getPosition() == channel && position < 0)
      position = i;
    else if (dim && sizes[dim.getPosition()] == 1)
      continue;
    else if (auto c = dyn_cast<AffineConstantExpr>(e); !c || c.getValue() != 0)
      return -1;
  }
  return position;
}

/// The elementwise consumer of the convolution output `y` that oneDNN can
/// fuse, when it comes after `conv` with only allocations, views and
/// constants between, and `y` is read by nothing else. `y` is the buffer the
/// convolution writes, or for a grouped one the collapse_shape of it that
/// merges the groups back into channels. `x` and `w` are the convolution's
/// operands (the epilogue must not write them); `channel` is y's channel
/// dimension (1, or the last for NHWC).
std::optional<Epilogue> matchEpilogue(Operation *conv, Value y, Value x,
                                      Value w, int64_t channel) {
  auto yType = cast<MemRefType>(y.getType());
  int64_t rank = yType.getRank();
  Value yBuffer = y;
  if (auto collapse = y.getDefiningOp<memref::CollapseShapeOp>())
    yBuffer = collapse.getSrc();
  if (!yType.hasStaticShape() || !yBuffer.getDefiningOp<memref::AllocOp>())
    return std::nullopt;
  Operation *next = conv->getNextNode();
  SmallVector<Value> freed; // buffers deallocated between
  while (next &&
         (isa<memref::AllocOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
              memref::CastOp, memref::SubViewOp, arith::ConstantOp,
              memref::DeallocOp>(next))) {
    if (auto dealloc = dyn_cast<memref::DeallocOp>(next))
      freed.push_back(rootOf(dealloc.getMemref()));
    next = next->getNextNode();
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != rank ||
      generic.getNumParallelLoops() != rank || generic.hasIndexSemantics())
    return std::nullopt;
  Epilogue e;
  e.op = generic;
  OpOperand *init = generic.getDpsInitOperand(0);
  e.out = init->get();
  auto outType = dyn_cast<MemRefType>(e.out.getType());
  if (!outType || outType.getShape() != yType.getShape() ||
      !outType.getElementType().isF32() || outType.getMemorySpace() ||
      !generic.getMatchingIndexingMap(init).isIdentity())
    return std::nullopt;
  // The operands' block arguments.
  Block &body = generic.getRegion().front();
  BlockArgument yArg, biasArg, residualArg;
  for (OpOperand *in : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(in);
    BlockArgument arg = body.getArgument(in->getOperandNumber());
    auto type = dyn_cast<MemRefType>(in->get().getType());
    if (!type || !type.getElementType().isF32() || type.getMemorySpace())
      return std::nullopt;
    if (in->get() == y && map.isIdentity() && !yArg) {
      yArg = arg;
    } else if (map.isIdentity() && type.getShape() == yType.getShape() &&
               !residualArg && rootOf(in->get()) != y) {
      e.residual = in->get();
      residualArg = arg;
    } else if (int64_t at = channelResult(map, yType.getShape(), channel);
               at >= 0 && !biasArg &&
               type.getDimSize(at) == yType.getDimSize(channel)) {
      e.bias = in->get();
      e.biasDim = at;
      biasArg = arg;
    } else {
      return std::nullopt;
    }
  }
  if (!yArg || !body.getArgument(init->getOperandNumber()).use_empty())
    return std::nullopt;
  // The payload: relu?((y + bias) + residual), adds in either operand order.
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value v = yield.getOperand(0);
  unsigned ops = 0;
  if (auto max = v.getDefiningOp<arith::MaximumFOp>()) {
    Value other;
    if (matchPattern(max.getRhs(), m_PosZeroFloat()))
      other = max.getLhs();
    else if (matchPattern(max.getLhs(), m_PosZeroFloat()))
      other = max.getRhs();
    if (!other)
      return std::nullopt;
    e.relu = true;
    v = other;
    ++ops;
  }
  // Strips `v + arg` (either order) when `arg` is set; false when v is not
  // such an add.
  auto strip = [&](BlockArgument arg) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!arg || !add)
      return false;
    if (add.getRhs() == arg)
      v = add.getLhs();
    else if (add.getLhs() == arg)
      v = add.getRhs();
    else
      return false;
    ++ops;
    return true;
  };
  if (residualArg && !strip(residualArg))
    return std::nullopt;
  if (biasArg && !strip(biasArg))
    return std::nullopt;
  if (v != yArg || ops + 1 != body.getOperations().size() ||
      (!e.relu && !biasArg && !residualArg))
    return std::nullopt;
  for (Operation &op : body.without_terminator())
    if (!op.hasOneUse())
      return std::nullopt;
  // The call moves to the epilogue: past the deallocations between, which
  // must not free what it reads (the padded copy of the input may go).
  for (Value v : {x, w, e.bias, e.residual, e.out})
    if (v && llvm::is_contained(freed, rootOf(v)))
      return std::nullopt;
  // The epilogue writes `out` in place of the convolution's output: it may
  // be the input's buffer (the runtime reads a copy then), not the weights'
  // or the bias's; and `y` must have no other reader.
  Value outRoot = rootOf(e.out);
  if (outRoot == rootOf(w) || (e.bias && outRoot == rootOf(e.bias)))
    return std::nullopt;
  if (outRoot == rootOf(x) && e.out != x)
    return std::nullopt; // a view of the input's buffer, not the same
  if (e.residual && outRoot == rootOf(e.residual) && e.out != e.residual)
    return std::nullopt; // a view of the residual's buffer, not the same
  // (Written in place, `y` then holds the epilogue's result, as before.)
  // (Fills before the convolution are dead: it overwrites `y`.)
  if (e.out != y) {
    for (Operation *user : yBuffer.getUsers()) {
      auto fill = dyn_cast<linalg::FillOp>(user);
      bool deadFill = fill && fill.getDpsInits()[0] == yBuffer &&
                      fill->getBlock() == conv->getBlock() &&
                      fill->isBeforeInBlock(conv);
      if (user != conv && user != generic && !deadFill &&
          user != y.getDefiningOp() && !isa<memref::DeallocOp>(user))
        return std::nullopt;
    }
    // The grouped convolution's merged view: read by the epilogue alone.
    if (y != yBuffer)
      for (Operation *user : y.getUsers())
        if (user != generic && !isa<memref::DeallocOp>(user))
          return std::nullopt;
  }
  return e;
}

/// Replaces the marked named convolution `op` (f32, on host memrefs) by a
/// call of tide_rt_cpu_conv_f32; false when it is not one.
bool lowerConv(linalg::LinalgOp op, int64_t threads) {
  if (!isa<linalg::Conv1DNcwFcwOp, linalg::Conv2DNchwFchwOp,
           linalg::Conv3DNcdhwFcdhwOp, linalg::Conv2DNgchwGfchwOp,
           linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwgcGfhwcOp>(op) ||
      !op->hasAttr(TideDialect::getConvPadsAttrName()) ||
      op->getParentOfType<gpu::LaunchOp>() || !op.hasPureBufferSemantics())
    return false;
  Value x = op.getDpsInputs()[0], w = op.getDpsInputs()[1],
        y = op.getDpsInits()[0];
  for (Value v : {x, w, y}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getElementType().isF32() || type.getMemorySpace())
      return false;
  }
  bool grouped =
      isa<linalg::Conv2DNgchwGfchwOp, linalg::Conv2DNhwgcGfhwcOp>(op);
  // Channels-last (tide-channels-last): NHWC activations, FHWC weights; the
  // runtime gets NCHW / FCHW views of them (memref.transpose: only strides
  // change), which oneDNN reads in place.
  bool nhwc = isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwgcGfhwcOp>(op);
  // Grouped activations split their channels into (groups, per group):
  // dimensions 1-2 (NCHW) or 3-4 (NHWC).
  SmallVector<ReassociationIndices> merge =
      nhwc ? SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}
           : SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}};
  auto yType = cast<MemRefType>(y.getType());
  int64_t rank = yType.getRank() - (grouped ? 1 : 0), k = rank - 2;
  int64_t groups = 1;
  Operation *xView = nullptr;
  if (grouped) {
    // Ungrouped views: the sources of the group-splitting expand_shapes, or
    // (where a constant's expand_shape was folded into a constant of the
    // grouped shape) a collapse_shape of the grouped buffer.
    SmallVector<ReassociationIndices> wMerge = {{0, 1}, {2}, {3}, {4}};
    // (Only an expand_shape that split the channels so: canonicalization
    // composes reshapes, and a depthwise weight's FHWC copy is a reshape of
    // its FCHW one, expanded otherwise.)
    auto xExpand = x.getDefiningOp<memref::ExpandShapeOp>();
    auto wExpand = w.getDefiningOp<memref::ExpandShapeOp>();
    if (xExpand && xExpand.getReassociationIndices() != merge)
      xExpand = nullptr;
    if (wExpand && wExpand.getReassociationIndices() != wMerge)
      wExpand = nullptr;
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(yType, merge) ||
        (!xExpand && !memref::CollapseShapeOp::isGuaranteedCollapsible(
                         cast<MemRefType>(x.getType()), merge)) ||
        (!wExpand && !memref::CollapseShapeOp::isGuaranteedCollapsible(
                         cast<MemRefType>(w.getType()), wMerge)))
      return false;
    groups = cast<MemRefType>(w.getType()).getDimSize(0);
    if (ShapedType::isDynamic(groups))
      return false;
    OpBuilder vb(op);
    if (xExpand) {
      xView = xExpand;
      x = xExpand.getSrc();
    } else {
      x = memref::CollapseShapeOp::create(vb, op.getLoc(), x, merge);
    }
    w = wExpand ? wExpand.getSrc()
                : memref::CollapseShapeOp::create(vb, op.getLoc(), w, wMerge)
                      .getResult();
  }
  ArrayRef<int64_t> pads =
      cast<DenseI64ArrayAttr>(op->getAttr(TideDialect::getConvPadsAttrName()))
          .asArrayRef();
  if (static_cast<int64_t>(pads.size()) != 2 * k)
    return false;
  // oneDNN pads the real input itself (before and after, any amounts): it
  // reads the buffer the IR copied into the padded one's interior.
  SmallVector<int64_t> padBefore(3, 0), padAfter(3, 0);
  Value paddedBuffer;
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    if (Value source =
            unpaddedSource(x, op, pads.take_front(k), nhwc ? 1 : 2)) {
      paddedBuffer = x;
      x = source;
      for (int64_t i = 0; i < k; ++i) {
        padBefore[i] = pads[i];
        padAfter[i] = pads[k + i];
      }
    }
  }
  // FHWC weights that are a transpose of FCHW ones (a constant's, as
  // tide-channels-last writes it): those, read in place, not the copy.
  // (The allocation may be reused by several such copies: the one that
  // reaches `op` is the last before it, with no write between.)
  Value weightSource;
  if (nhwc && w.getDefiningOp<memref::AllocOp>()) {
    for (Operation *user : w.getUsers()) {
      Value source = fhwcCopySource(user, w);
      if (source && user->getBlock() == op->getBlock() &&
          user->isBeforeInBlock(op) && isa<MemRefType>(source.getType()) &&
          !writtenBetween(user, op, {rootOf(source), w}))
        weightSource = source;
    }
  }
  bool constantWeights = isConstantBuffer(weightSource ? weightSource : w);
  Value weightCopy = weightSource ? w : Value();

  OpBuilder b(op);
  Location loc = op.getLoc();
  bool accumulate = true;
  Operation *init = nullptr;
  if (outputIsZero(op, init)) {
    if (init)
      init->erase();
    accumulate = false;
  }
  // A consumer oneDNN computes in the same primitive (not accumulating):
  // the call takes its place and writes its output. A grouped
  // convolution's consumer reads the output with the groups merged back
  // into channels.
  std::optional<Epilogue> epilogue;
  memref::CollapseShapeOp yMerged;
  if (grouped)
    for (Operation *user : y.getUsers())
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(user);
          collapse && collapse.getSrc() == y &&
          collapse.getReassociationIndices() == merge)
        yMerged = collapse;
  if (!accumulate && (!grouped || yMerged))
    epilogue =
        matchEpilogue(op, grouped ? yMerged.getResult() : y, x,
                      weightSource ? weightSource : w, nhwc ? rank - 1 : 1);
  if (epilogue)
    b.setInsertionPoint(epilogue->op);
  Value out = epilogue ? epilogue->out : y;
  if (grouped && !epilogue)
    out = memref::CollapseShapeOp::create(b, loc, y, merge);
  // NHWC buffers as NCHW views, FHWC weights as FCHW.
  Value bias = epilogue ? epilogue->bias : Value(),
        residual = epilogue ? epilogue->residual : Value();
  if (nhwc) {
    auto toFirst = [&](Value v) -> Value {
      return memref::TransposeOp::create(
          b, loc, v,
          AffineMapAttr::get(AffineMap::getPermutationMap(
              ArrayRef<unsigned>{0, 3, 1, 2}, b.getContext())));
    };
    x = toFirst(x);
    out = toFirst(out);
    w = weightSource ? weightSource : toFirst(w);
    if (residual)
      residual = toFirst(residual);
  }
  // A bias whose channels are not its first dimension: a 1-D view of them.
  if (bias && epilogue->biasDim != 0) {
    auto type = cast<MemRefType>(bias.getType());
    int64_t rankB = type.getRank();
    SmallVector<int64_t> offsets(rankB, 0), sizes(rankB, 1), steps(rankB, 1);
    sizes[epilogue->biasDim] = type.getDimSize(epilogue->biasDim);
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        {sizes[epilogue->biasDim]}, type, offsets, sizes, steps);
    bias = memref::SubViewOp::create(b, loc, cast<MemRefType>(viewType), bias,
                                     offsets, sizes, steps);
  }
  auto unranked = [&](Value v) -> Value {
    return memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(b.getF32Type(), Attribute()), v);
  };
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  };
  auto attrValues = [&](StringRef name) {
    SmallVector<int64_t> values(3, 1);
    auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
    for (auto [i, v] : llvm::enumerate(attr.getValues<int64_t>()))
      values[i] = v;
    return values;
  };
  SmallVector<int64_t> strides = attrValues("strides"),
                       dilations = attrValues("dilations");
  SmallVector<Value> operands = {unranked(x), unranked(w), unranked(out)};
  operands.push_back(i64(groups));
  operands.push_back(i64(accumulate));
  operands.push_back(i64(constantWeights));
  operands.push_back(i64(threads));
  for (const SmallVector<int64_t> *values :
       {&padBefore, &padAfter, &strides, &dilations})
    for (int64_t v : *values)
      operands.push_back(i64(v));
  if (epilogue) {
    operands.push_back(unranked(bias ? bias : out));
    operands.push_back(unranked(residual ? residual : out));
    operands.push_back(i64((epilogue->bias ? TIDE_RT_CONV_BIAS : 0) |
                           (epilogue->residual ? TIDE_RT_CONV_RESIDUAL : 0) |
                           (epilogue->relu ? TIDE_RT_CONV_RELU : 0)));
  }
  func::CallOp::create(
      b, loc,
      getOrDeclareConv(op->getParentOfType<ModuleOp>(), epilogue.has_value()),
      operands);
  op->erase();
  if (epilogue) {
    epilogue->op->erase();
    // Only dead fills and deallocations of the convolution's own output are
    // left when the epilogue wrote elsewhere.
    if (yMerged && yMerged.getResult() != out && yMerged->use_empty())
      yMerged->erase();
    if (y != out)
      eraseIfUnread(y);
  }
  if (xView && xView->use_empty())
    xView->erase();
  if (paddedBuffer)
    eraseIfUnread(paddedBuffer);
  if (weightCopy)
    eraseIfUnread(weightCopy);
  return true;
}

struct ConvToLibraryPass
    : public tide::impl::ConvToLibraryPassBase<ConvToLibraryPass> {
  using Base::Base;

  void runOnOperation() override {
    // The marked convolutions only: lowering one may erase the elementwise
    // op after it (a fused epilogue), which must not be visited after.
    SmallVector<linalg::LinalgOp> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(TideDialect::getConvPadsAttrName()))
        convs.push_back(op);
    });
    for (linalg::LinalgOp op : convs)
      lowerConv(op, threads);
  }
};

} // namespace
