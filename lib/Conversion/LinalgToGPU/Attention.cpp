//===- Attention.cpp - Attention as one kernel ----------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Attention as exporters write it, after bufferization:
//
//   S = Q K^T          a batched matmul (zero fill, linalg.generic)
//   T = f(S, mask)     optional: an elementwise generic of steps, each a
//                      multiply or divide by a constant or an added mask,
//                      rounded to the element type after each
//   P = softmax(T)     linalg.softmax over the keys
//   O = P V            a batched matmul (zero fill, linalg.generic)
//
// on f16/bf16 GPU buffers, where S, T and P are allocations nothing else
// reads, becomes one call of the runtime's fused attention
// (tide_rt_gpu_attention_*, lib/Runtime/CudaAttention.cpp): the scores stay
// in registers and S, T and P are never allocated. The kernel rounds where
// these ops round, so the result is theirs up to the order of f32 sums.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPU.h"

#include "tide/Conversion/GemmMatchers.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::gpu_lowering;

namespace {

/// The most keys the fused kernel is used for.
constexpr int64_t kMaxKeys = 128;

/// Step codes shared with the kernel (Attention.cu).
enum Step : int64_t { kNone = 0, kMul = 1, kDiv = 2, kAddMask = 3 };

struct Match {
  linalg::LinalgOp scores, output;
  linalg::FillOp scoresFill, outputFill;
  linalg::GenericOp steps; // may be null
  linalg::SoftmaxOp softmax;
  Value q, kt, v, o, mask;
  /// The generic writing K^T, which can write K instead (or null).
  linalg::GenericOp keysWriter;
  /// The generic copying O, transposed, into another buffer, which the call
  /// then writes through a view (or null).
  linalg::GenericOp outputCopy;
  /// For each of (batch0, batch1, query, key): the mask dim, or -1.
  SmallVector<int64_t, 4> maskDims{-1, -1, -1, -1};
  SmallVector<int64_t, 3> stepCodes{kNone, kNone, kNone};
  SmallVector<double, 3> constants{0, 0, 0};
};

/// Whether every use of `buffer` is one of `users` or a deallocation.
bool onlyUsedBy(Value buffer, ArrayRef<Operation *> users) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    return isa<memref::DeallocOp>(user) || llvm::is_contained(users, user);
  });
}

/// The batched matmul writing `result` with a zero fill before it, whose
/// operands all have every batch dim (no broadcasting), or null.
linalg::LinalgOp matchGemm(Operation *op, Value result,
                           SmallVectorImpl<Value> &operands) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp)
    return {};
  SmallVector<BatchedGemmOperand> gemm =
      matchBatchedGemm(linalgOp, GemmLibrary::CuBlas);
  if (gemm.size() != 3 || gemm[2].value != result ||
      !getZeroFillBefore(linalgOp))
    return {};
  for (const BatchedGemmOperand &operand : gemm) {
    auto type = cast<MemRefType>(operand.value.getType());
    if (type.getRank() != cast<MemRefType>(result.getType()).getRank())
      return {};
    for (auto [i, dim] : llvm::enumerate(operand.dimOf))
      if (!dim || *dim != static_cast<int64_t>(i))
        return {};
    operands.push_back(operand.value);
  }
  return linalgOp;
}

/// The buffer `v` is a view of (through subviews, reshapes, casts), or `v`.
Value baseBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// Whether `op` or an op nested in it may write or free a buffer whose base
/// is in `bases` (an op that does not say what it does to memory: when any
/// of its operands is such a buffer).
bool mayWrite(Operation *op, ArrayRef<Value> bases) {
  auto inBases = [&](Value v) {
    return v && isa<BaseMemRefType>(v.getType()) &&
           llvm::is_contained(bases, baseBuffer(v));
  };
  WalkResult result = op->walk([&](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      return llvm::any_of(nested->getOperands(), inBases)
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &e : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
        continue;
      if (e.getValue() ? inBases(e.getValue())
                       : llvm::any_of(nested->getOperands(), inBases))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` or an op nested in it uses a buffer whose base is `base`.
bool usesBuffer(Operation *op, Value base) {
  WalkResult result = op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      if (isa<BaseMemRefType>(v.getType()) && baseBuffer(v) == base)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Reads the steps of `generic`'s payload: from the scores' argument, each
/// step widens (extf), multiplies or divides by a constant or adds the
/// widened mask, and rounds (truncf) to the element type.
LogicalResult matchSteps(linalg::GenericOp generic, Value scores, Match &m) {
  Block &body = generic.getRegion().front();
  BlockArgument s, mask;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    BlockArgument arg = generic.getMatchingBlockArgument(input);
    if (input->get() == scores && !s)
      s = arg;
    else if (!mask)
      mask = arg, m.mask = input->get();
    else
      return failure();
  }
  if (!s || generic.getNumDpsInits() != 1)
    return failure();
  Type element = s.getType();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto single = [](Value v) -> Operation * {
    return v.hasOneUse() ? *v.getUsers().begin() : nullptr;
  };
  Value current = s;
  int count = 0;
  while (true) {
    auto ext = dyn_cast_or_null<arith::ExtFOp>(single(current));
    if (!ext)
      return failure();
    Operation *op = single(ext.getResult());
    if (!op || op->getNumOperands() != 2 || count == 3)
      return failure();
    Value other = op->getOperand(0) == ext.getResult() ? op->getOperand(1)
                                                       : op->getOperand(0);
    FloatAttr constant;
    bool isConstant = matchPattern(other, m_Constant(&constant));
    if (isa<arith::MulFOp>(op) && isConstant) {
      m.stepCodes[count] = kMul;
    } else if (isa<arith::DivFOp>(op) && isConstant &&
               op->getOperand(0) == ext.getResult()) {
      m.stepCodes[count] = kDiv;
    } else if (isa<arith::AddFOp>(op) && mask) {
      auto maskExt = other.getDefiningOp<arith::ExtFOp>();
      if (!maskExt || maskExt.getIn() != mask || !maskExt->hasOneUse())
        return failure();
      m.stepCodes[count] = kAddMask;
    } else {
      return failure();
    }
    if (isConstant) {
      if (!constant.getType().isF32())
        return failure();
      m.constants[count] = constant.getValueAsDouble();
    }
    ++count;
    auto trunc = dyn_cast_or_null<arith::TruncFOp>(single(op->getResult(0)));
    if (!trunc || trunc.getType() != element)
      return failure();
    current = trunc.getResult();
    if (single(current) == yield.getOperation())
      break;
  }
  // Every op of the payload is on the chain (the mask read at most once).
  int64_t expected = 3 * count + (mask ? 1 : 0) + 1;
  if (static_cast<int64_t>(body.getOperations().size()) != expected)
    return failure();
  if (!mask)
    return success();
  auto maskType = dyn_cast<MemRefType>(m.mask.getType());
  if (!maskType || maskType.getElementType() != element)
    return failure();
  // Which logical dim each of the mask's dims reads.
  AffineMap map = generic.getMatchingIndexingMap(
      generic.getDpsInputOperand(mask.getArgNumber()));
  int64_t rank = generic.getNumLoops();
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(result)) {
      // Loops (batch..., query, key); rank 3 has no second batch dim.
      int64_t logical =
          dim.getPosition() + (rank == 3 && dim.getPosition() > 0);
      if (m.maskDims[logical] != -1)
        return failure();
      m.maskDims[logical] = i;
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(result);
    if (!constant || constant.getValue() != 0)
      return failure();
  }
  return success();
}

/// The all-parallel linalg.generic that alone writes `buffer`, a static
/// allocation read otherwise only by `reader`, with an identity output map
/// and no linalg.index; or null.
linalg::GenericOp soleWriter(Value buffer, Operation *reader) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity())
    return {};
  if (llvm::count(reader->getOperands(), buffer) != 1)
    return {};
  linalg::GenericOp writer;
  for (Operation *user : buffer.getUsers()) {
    if (user == reader || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (writer || !generic || generic.getNumDpsInits() != 1 ||
        generic.getDpsInits()[0] != buffer ||
        generic.getNumReductionLoops() != 0 ||
        !generic.getIndexingMapsArray().back().isIdentity() ||
        !generic.getBody()->getOps<linalg::IndexOp>().empty() ||
        llvm::is_contained(generic.getDpsInputs(), buffer))
      return {};
    writer = generic;
  }
  return writer;
}

/// A generic that only copies `o`, read through a permutation, into its
/// output: the transpose back from heads ([b, h, s, d] -> [b, s, h, d]).
linalg::GenericOp transposedCopy(Value o, ArrayRef<Operation *> others) {
  linalg::GenericOp copy;
  for (Operation *user : o.getUsers()) {
    if (llvm::is_contained(others, user) || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (copy || !generic || generic.getNumDpsInputs() != 1 ||
        generic.getNumDpsInits() != 1 || generic.getDpsInputs()[0] != o ||
        generic.getNumReductionLoops() != 0)
      return {};
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    if (!maps[0].isPermutation() || !maps[1].isIdentity() ||
        generic.getBody()->getOperations().size() != 1 ||
        yield.getValues()[0] != generic.getBody()->getArgument(0))
      return {};
    copy = generic;
  }
  return copy;
}

FailureOr<Match> matchAttention(KernelBuilder &kernels,
                                linalg::SoftmaxOp softmax) {
  Match m;
  m.softmax = softmax;
  auto type = cast<MemRefType>(softmax.getInput().getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if ((rank != 3 && rank != 4) || !(element.isF16() || element.isBF16()) ||
      static_cast<int64_t>(softmax.getDimension()) != rank - 1 ||
      !kernels.onDevice(softmax.getOutput()))
    return failure();

  // O = P V.
  Value p = softmax.getOutput();
  Operation *pv = nullptr;
  for (Operation *user : p.getUsers())
    if (user != softmax && !isa<memref::DeallocOp>(user))
      pv = pv ? nullptr : user;
  SmallVector<Value> outputOperands;
  auto pvOp = dyn_cast_or_null<linalg::LinalgOp>(pv);
  if (!pvOp || pvOp.getNumDpsInits() != 1)
    return failure();
  m.output = matchGemm(pvOp, pvOp.getDpsInits()[0], outputOperands);
  if (!m.output || outputOperands[0] != p)
    return failure();
  m.v = outputOperands[1];
  m.o = outputOperands[2];
  m.outputFill = getZeroFillBefore(m.output);
  if (!onlyUsedBy(p, {softmax, m.output}))
    return failure();

  // T = f(S, mask), or S itself.
  Value t = softmax.getInput(), s = t;
  for (Operation *user : t.getUsers())
    if (auto generic = dyn_cast<linalg::GenericOp>(user);
        generic && generic.getNumReductionLoops() == 0 &&
        generic.getNumDpsInits() == 1 && generic.getDpsInits()[0] == t &&
        generic.getIndexingMapsArray().back().isIdentity())
      m.steps = generic;
  if (m.steps) {
    if (!onlyUsedBy(t, {softmax, m.steps}))
      return failure();
    // S: the input a batched matmul writes (a mask of the scores' own
    // shape may come first).
    s = Value();
    for (OpOperand *input : m.steps.getDpsInputOperands()) {
      Value candidate = input->get();
      if (s || candidate.getType() != t.getType() ||
          !m.steps.getMatchingIndexingMap(input).isIdentity())
        continue;
      for (Operation *user : candidate.getUsers()) {
        SmallVector<Value> operands;
        if (matchGemm(user, candidate, operands))
          s = candidate;
      }
    }
    if (!s || failed(matchSteps(m.steps, s, m)))
      return failure();
  }

  // S = Q K^T.
  Operation *qk = nullptr;
  for (Operation *user : s.getUsers())
    if (user != softmax && user != m.steps.getOperation() &&
        !isa<memref::DeallocOp, linalg::FillOp>(user))
      qk = qk ? nullptr : user;
  SmallVector<Value> scoreOperands;
  m.scores = matchGemm(qk, s, scoreOperands);
  if (!m.scores)
    return failure();
  m.scoresFill = getZeroFillBefore(m.scores);
  m.q = scoreOperands[0];
  m.kt = scoreOperands[1];
  SmallVector<Operation *> sUsers = {m.scores, m.scoresFill};
  if (m.steps)
    sUsers.push_back(m.steps);
  else
    sUsers.push_back(softmax);
  if (!onlyUsedBy(s, sUsers))
    return failure();

  // One block, in program order; nothing in between writes what the call,
  // which takes the place of P V, reads.
  SmallVector<Operation *> chain = {m.scores, softmax, m.output};
  if (m.steps)
    chain.insert(chain.begin() + 1, m.steps);
  for (Operation *op : chain)
    if (op->getBlock() != softmax->getBlock())
      return failure();
  for (size_t i = 1; i < chain.size(); ++i)
    if (!chain[i - 1]->isBeforeInBlock(chain[i]))
      return failure();
  // The scores, scaled scores and probabilities are none of the buffers the
  // call reads or writes, and the output aliases none of its inputs.
  Value internal[] = {s, t, p};
  for (Value buffer : {m.q, m.kt, m.v, m.o, m.mask})
    if (buffer && llvm::is_contained(internal, buffer))
      return failure();
  SmallVector<Value> inputBases = {baseBuffer(m.q), baseBuffer(m.kt),
                                   baseBuffer(m.v)};
  if (m.mask)
    inputBases.push_back(baseBuffer(m.mask));
  if (llvm::is_contained(inputBases, baseBuffer(m.o)))
    return failure();
  // The call reads Q, K^T and the mask where P V was: nothing in between
  // (nested ops and views included) may write or free them.
  SmallVector<Value> movedReads = {baseBuffer(m.q), baseBuffer(m.kt)};
  if (m.mask)
    movedReads.push_back(baseBuffer(m.mask));
  for (Operation *op = m.scores->getNextNode(); op != m.output.getOperation();
       op = op->getNextNode()) {
    if (llvm::is_contained(chain, op) || op == m.outputFill.getOperation())
      continue;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
        dealloc && llvm::is_contained(internal, dealloc.getMemref()))
      continue;
    if (mayWrite(op, movedReads))
      return failure();
  }

  // Where the kernel is faster than the separate ops: a head dim of 32 or
  // 64 (static, equal for Q, K and V) and at most 128 keys (static), which
  // the kernel holds in shared memory and registers at once. Its streaming
  // form (more keys, or a head dim of 128) took 84 us where the separate ops
  // took 57 for BERT-base at batch 32 (docs/benchmarks.md): not used.
  auto qType = cast<MemRefType>(m.q.getType());
  auto ktType = cast<MemRefType>(m.kt.getType());
  auto vType = cast<MemRefType>(m.v.getType());
  int64_t d = qType.getShape().back(), keys = type.getShape().back();
  if ((d != 32 && d != 64) || ktType.getShape()[rank - 2] != d ||
      vType.getShape().back() != d || ShapedType::isDynamic(keys) ||
      keys > kMaxKeys)
    return failure();
  // The kernel reads rows of d (or of keys) with a unit last stride.
  auto unitLastStride = [](Value buffer) {
    SmallVector<int64_t> strides;
    int64_t offset;
    auto type = cast<MemRefType>(buffer.getType());
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           strides.back() == 1;
  };
  for (Value buffer : {m.q, m.kt, m.v, m.o})
    if (!kernels.onDevice(buffer) ||
        cast<MemRefType>(buffer.getType()).getElementType() != element ||
        !unitLastStride(buffer))
      return failure();
  if (m.mask && !kernels.onDevice(m.mask))
    return failure();

  // K^T written for this product alone: written as K instead.
  if (m.kt != m.q && m.kt != m.v && m.kt != m.mask)
    m.keysWriter = soleWriter(m.kt, m.scores);
  // O copied, transposed, into a buffer F after P V in the same block: the
  // call writes F through a view instead, when F exists at the call (or is
  // an allocation that can move there), aliases none of the call's inputs,
  // and nothing between P V and the copy touches it.
  if (linalg::GenericOp copy = transposedCopy(m.o, {m.output, m.outputFill});
      copy && copy->getBlock() == softmax->getBlock() &&
      m.output->isBeforeInBlock(copy) && m.o.getDefiningOp<memref::AllocOp>()) {
    Value f = copy.getDpsInits()[0];
    AffineMap read = copy.getIndexingMapsArray().front();
    Operation *def = f.getDefiningOp();
    auto alloc = dyn_cast_or_null<memref::AllocOp>(def);
    bool exists =
        def ? def->getBlock() == softmax->getBlock() &&
                  def->isBeforeInBlock(m.output)
            : cast<BlockArgument>(f).getOwner() == softmax->getBlock();
    bool movable = alloc && alloc->getNumOperands() == 0 &&
                   alloc->getBlock() == softmax->getBlock();
    Value base = baseBuffer(f);
    bool untouched = !llvm::is_contained(inputBases, base);
    for (Operation *op = m.output->getNextNode(); untouched && op != copy;
         op = op->getNextNode())
      if (op != def && usesBuffer(op, base))
        untouched = false;
    if ((exists || movable) && untouched && kernels.onDevice(f) &&
        read.getResults().back() ==
            getAffineDimExpr(read.getNumDims() - 1, read.getContext()) &&
        cast<MemRefType>(f.getType()).getLayout().isIdentity())
      m.outputCopy = copy;
  }
  return m;
}

func::FuncOp getOrDeclareAttention(ModuleOp module, Type element,
                                   Attribute space) {
  std::string name = std::string(TIDE_RT_GPU_ATTENTION_PREFIX) +
                     (element.isF16() ? "f16" : "bf16");
  if (auto callee = module.lookupSymbol<func::FuncOp>(name))
    return callee;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  Type view = UnrankedMemRefType::get(element, space);
  SmallVector<Type> inputs = {view, view, view, view, view};
  inputs.append(1 + 4 + 3, mb.getI64Type());
  inputs.append(3, mb.getF64Type());
  auto callee = func::FuncOp::create(mb, module.getLoc(), name,
                                     mb.getFunctionType(inputs, {}));
  callee.setPrivate();
  return callee;
}

void eraseBuffer(Value buffer) {
  auto alloc = buffer.getDefiningOp<memref::AllocOp>();
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    user->erase();
  alloc->erase();
}

void lower(KernelBuilder &kernels, Match &m) {
  ModuleOp module = kernels.getFunction()->getParentOfType<ModuleOp>();
  OpBuilder b(m.output);
  Location loc = m.softmax.getLoc();
  Type element = cast<MemRefType>(m.q.getType()).getElementType();
  Attribute space = getMemorySpace(kernels.getOpDevice(m.softmax));
  auto unranked = [&](Value v) -> Value {
    auto type = cast<MemRefType>(v.getType());
    if (type.getMemorySpace() != space)
      v = memref::MemorySpaceCastOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          type.getLayout(), space),
          v);
    return memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(type.getElementType(), space), v);
  };
  // K instead of K^T: the writer's last two loops swapped.
  Value keys = m.kt;
  bool keysTransposed = true;
  if (m.keysWriter) {
    auto alloc = m.kt.getDefiningOp<memref::AllocOp>();
    auto type = alloc.getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[rank - 1], shape[rank - 2]);
    OpBuilder ab(alloc);
    keys = memref::AllocOp::create(ab, alloc.getLoc(),
                                   MemRefType::get(shape, type.getElementType(),
                                                   MemRefLayoutAttrInterface{},
                                                   type.getMemorySpace()),
                                   alloc.getAlignmentAttr());
    SmallVector<unsigned> swap =
        llvm::to_vector(llvm::seq<unsigned>(0, static_cast<unsigned>(rank)));
    std::swap(swap[rank - 1], swap[rank - 2]);
    AffineMap swapMap = AffineMap::getPermutationMap(swap, b.getContext());
    SmallVector<AffineMap> maps;
    for (OpOperand *input : m.keysWriter.getDpsInputOperands())
      maps.push_back(
          m.keysWriter.getMatchingIndexingMap(input).compose(swapMap));
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
    OpBuilder gb(m.keysWriter);
    auto writer = linalg::GenericOp::create(
        gb, m.keysWriter.getLoc(), TypeRange{}, m.keysWriter.getDpsInputs(),
        ValueRange{keys}, maps, m.keysWriter.getIteratorTypesArray());
    writer.getRegion().takeBody(m.keysWriter.getRegion());
    writer->setDiscardableAttrs(m.keysWriter->getDiscardableAttrDictionary());
    m.keysWriter->erase();
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers())) {
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        OpBuilder db(dealloc);
        memref::DeallocOp::create(db, dealloc.getLoc(), keys);
        dealloc->erase();
      }
    }
    keysTransposed = false;
  }
  // O through a view of the buffer its transposed copy wrote.
  Value out = m.o;
  if (m.outputCopy) {
    Value f = m.outputCopy.getDpsInits()[0];
    if (Operation *def = f.getDefiningOp();
        def && (def->getBlock() != m.output->getBlock() ||
                !def->isBeforeInBlock(m.output)))
      def->moveBefore(m.output);
    out = memref::TransposeOp::create(
        b, loc, f,
        AffineMapAttr::get(m.outputCopy.getIndexingMapsArray().front()));
  }
  SmallVector<Value> operands = {unranked(m.q), unranked(keys), unranked(m.v),
                                 unranked(out),
                                 unranked(m.mask ? m.mask : m.q)};
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, keysTransposed ? 1 : 0, 64));
  for (int64_t dim : m.maskDims)
    operands.push_back(arith::ConstantIntOp::create(b, loc, dim, 64));
  for (int64_t code : m.stepCodes)
    operands.push_back(arith::ConstantIntOp::create(b, loc, code, 64));
  for (double c : m.constants)
    operands.push_back(
        arith::ConstantFloatOp::create(b, loc, b.getF64Type(), APFloat(c)));
  func::CallOp::create(b, loc, getOrDeclareAttention(module, element, space),
                       operands);

  Value s = m.scores.getDpsInits()[0], p = m.softmax.getOutput();
  Value t = m.softmax.getInput();
  m.output->erase();
  m.outputFill->erase();
  m.softmax->erase();
  if (m.steps)
    m.steps->erase();
  m.scores->erase();
  m.scoresFill->erase();
  eraseBuffer(p);
  if (t != s)
    eraseBuffer(t);
  eraseBuffer(s);
  if (m.keysWriter)
    m.kt.getDefiningOp()->erase();
  if (m.outputCopy) {
    m.outputCopy->erase();
    eraseBuffer(m.o);
  }
}

} // namespace

void gpu_lowering::lowerAttention(KernelBuilder &kernels, Block &block) {
  SmallVector<linalg::SoftmaxOp> softmaxes;
  for (Operation &op : block)
    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op))
      softmaxes.push_back(softmax);
  for (linalg::SoftmaxOp softmax : softmaxes) {
    FailureOr<Match> m = matchAttention(kernels, softmax);
    if (succeeded(m))
      lower(kernels, *m);
  }
}
