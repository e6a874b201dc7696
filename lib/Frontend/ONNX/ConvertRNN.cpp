//===- ConvertRNN.cpp - ONNX RNN, GRU and LSTM ----------------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The recurrent ops of ONNX, unrolled over a static sequence length while
// importing, or, over a sequence length known only at run time, one tide.scan
// per direction whose body is one step (the batch may be known only at run
// time either way). The input projection of
// every step is one tide.matmul over the whole sequence; each step then adds
// its recurrent product (tide.matmul), slices the gates and applies the
// activations. `sequence_lens` other than "every sequence is full" becomes a
// mask per step (tide.select) that holds the state past a sequence's end and
// writes zeros into Y there, as ONNX Runtime does.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

#define TRY(x)                                                                 \
  do {                                                                         \
    if (!(x))                                                                  \
      return failure();                                                        \
  } while (false)

Shape shapeOf(Value v) {
  return Shape(cast<RankedTensorType>(v.getType()).getShape());
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

enum class Cell { RNN, GRU, LSTM };

/// An activation function of the recurrent ops (lower-case name) with its
/// alpha and beta.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// The activations ONNX lists for the recurrent ops: whether each takes
/// alpha and beta, and their defaults where activation_alpha/beta do not
/// give them. ONNX leaves the defaults open; these are ONNX Runtime's
/// (LeakyRelu's, HardSigmoid's and Elu's are those of the ONNX ops of that
/// name; the others' are 0).
struct ActivationInfo {
  const char *name;
  bool usesAlpha, usesBeta;
  double alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", false, false, 0, 0},        {"tanh", false, false, 0, 0},
    {"sigmoid", false, false, 0, 0},     {"affine", true, true, 0, 0},
    {"leakyrelu", true, false, 0.01, 0}, {"thresholdedrelu", true, false, 0, 0},
    {"scaledtanh", true, true, 0, 0},    {"hardsigmoid", true, true, 0.2, 0.5},
    {"elu", true, false, 1.0, 0},        {"softsign", false, false, 0, 0},
    {"softplus", false, false, 0, 0}};

Value activate(NodeImporter &n, const Activation &f, Value x) {
  // The gate it applies to could not be built (its error is reported).
  if (!x)
    return {};
  Type t = elemOf(x);
  auto s = [&](double v) { return n.scalar(t, v); };
  StringRef name = f.name;
  if (name == "sigmoid")
    return n.make<SigmoidOp>(x);
  if (name == "tanh")
    return n.make<TanhOp>(x);
  if (name == "relu")
    return n.make<ReluOp>(x);
  if (name == "elu")
    return n.make<EluOp>(x, llvm::APFloat(f.alpha));
  if (name == "affine") {
    Value y = n.create<MulOp>(x, s(f.alpha));
    return y ? n.create<AddOp>(y, s(f.beta)) : Value();
  }
  if (name == "leakyrelu") {
    Value neg = n.create<CmpOp>(CmpPredicate::lt, x, s(0));
    Value scaled = n.create<MulOp>(x, s(f.alpha));
    return neg && scaled ? n.create<SelectOp>(neg, scaled, x) : Value();
  }
  if (name == "thresholdedrelu") {
    Value gt = n.create<CmpOp>(CmpPredicate::gt, x, s(f.alpha));
    return gt ? n.create<SelectOp>(gt, x, s(0)) : Value();
  }
  if (name == "scaledtanh") {
    Value y = n.create<MulOp>(x, s(f.beta));
    y = y ? n.make<TanhOp>(y) : Value();
    return y ? n.create<MulOp>(y, s(f.alpha)) : Value();
  }
  if (name == "hardsigmoid") {
    Value y = n.create<MulOp>(x, s(f.alpha));
    y = y ? n.create<AddOp>(y, s(f.beta)) : Value();
    y = y ? n.create<MaximumOp>(y, s(0)) : Value();
    return y ? n.create<MinimumOp>(y, s(1)) : Value();
  }
  if (name == "softsign") {
    Value d = n.create<AddOp>(n.make<AbsOp>(x), s(1));
    return d ? n.create<DivOp>(x, d) : Value();
  }
  // softplus: max(x, 0) + log(1 + e^-|x|), without overflow.
  Value pos = n.create<MaximumOp>(x, s(0));
  Value e = n.make<ExpOp>(n.make<NegOp>(n.make<AbsOp>(x)));
  Value l = n.make<LogOp>(n.create<AddOp>(e, s(1)));
  return pos && l ? n.create<AddOp>(pos, l) : Value();
}

/// Reads `activations`, `activation_alpha` and `activation_beta`: `count`
/// functions per direction (the defaults when absent).
FailureOr<SmallVector<Activation>>
readActivations(NodeImporter &n, ArrayRef<const char *> defaults,
                int64_t directions) {
  int64_t count = defaults.size();
  SmallVector<std::string> names;
  if (const auto *a = n.attr("activations")) {
    for (const std::string &s : a->strings())
      names.push_back(llvm::StringRef(s).lower());
    // A bidirectional node that lists one direction's functions uses them
    // for both (as ONNX Runtime does).
    if (directions == 2 && static_cast<int64_t>(names.size()) == count)
      names.append(SmallVector<std::string>(names));
    if (static_cast<int64_t>(names.size()) != count * directions)
      return n.fail("'activations' lists " + Twine(a->strings_size()) +
                    " functions; " + Twine(count * directions) +
                    " are needed (" + Twine(count) + " per direction)");
  } else {
    for (int64_t d = 0; d < directions; ++d)
      for (const char *name : defaults)
        names.push_back(llvm::StringRef(name).lower());
  }
  SmallVector<double> alphas, betas;
  if (const auto *a = n.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const auto *a = n.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  // Alphas and betas are consumed in order by the functions that take them.
  size_t nextAlpha = 0, nextBeta = 0;
  SmallVector<Activation> acts;
  for (const std::string &name : names) {
    const ActivationInfo *info = nullptr;
    for (const ActivationInfo &i : kActivations)
      if (name == i.name)
        info = &i;
    if (!info)
      return n.fail("activation '" + name +
                    "' is not supported (Relu, Tanh, Sigmoid, Affine, "
                    "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, "
                    "Elu, Softsign, Softplus)");
    Activation act{name, info->alpha, info->beta};
    if (info->usesAlpha && nextAlpha < alphas.size())
      act.alpha = alphas[nextAlpha++];
    if (info->usesBeta && nextBeta < betas.size())
      act.beta = betas[nextBeta++];
    acts.push_back(act);
  }
  return acts;
}

/// The shape of `v` must be `want`, where a dynamic size in `want` (the
/// batch, when known only at run time) matches any size; else reports naming
/// `what`. A size of `v` known only at run time where `want` has one is
/// checked when the model runs (`v` is reshaped to it).
LogicalResult expectShape(NodeImporter &n, Value &v, ArrayRef<int64_t> want,
                          StringRef what) {
  Shape s = shapeOf(v);
  if (s.size() == want.size() &&
      llvm::all_of(llvm::seq<size_t>(0, s.size()), [&](size_t i) {
        return s[i] == want[i] || ShapedType::isDynamic(want[i]) ||
               ShapedType::isDynamic(s[i]);
      })) {
    SmallVector<SymDim> dims;
    bool reshape = false;
    for (auto [i, size] : llvm::enumerate(want)) {
      reshape |= ShapedType::isDynamic(s[i]) && !ShapedType::isDynamic(size);
      dims.push_back(ShapedType::isDynamic(size) ? n.dimOf(v, i)
                                                 : SymDim::constant(size));
    }
    if (reshape)
      v = n.reshapeTo(v, dims);
    return success(v != nullptr);
  }
  auto str = [](ArrayRef<int64_t> dims) {
    std::string out;
    for (auto [i, d] : llvm::enumerate(dims))
      out += (i ? "x" : "") +
             (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
    return out;
  };
  return n.fail(what + " has shape " + str(s) + "; expected " + str(want));
}

LogicalResult convertRecurrent(NodeImporter &n, Cell cell) {
  SmallVector<StringRef> known = {
      "activation_alpha", "activation_beta", "activations", "clip",
      "direction",        "hidden_size",     "layout"};
  if (cell == Cell::LSTM)
    known.push_back("input_forget");
  if (cell == Cell::GRU)
    known.push_back("linear_before_reset");
  if (failed(n.checkAttrs(known)))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (!n.has(i) || !n.in(i))
      return n.fail("needs input " + Twine(i) + " (X, W and R)");
  Value x = n.in(0), w = n.in(1), r = n.in(2);
  Type t = elemOf(x);
  if (!isa<FloatType>(t))
    return n.fail(n.opType() + " needs floating-point inputs");
  const int64_t numGates = cell == Cell::RNN ? 1 : cell == Cell::GRU ? 3 : 4;

  std::string direction = n.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.fail("direction '" + direction +
                  "' is not one of forward, reverse, bidirectional");
  const int64_t numDirs = direction == "bidirectional" ? 2 : 1;
  int64_t layout = n.attrInt("layout", 0);
  if (layout != 0 && layout != 1)
    return n.fail("layout " + Twine(layout) + " is not 0 or 1");
  bool inputForget = n.attrInt("input_forget", 0) != 0;
  bool linearBeforeReset = n.attrInt("linear_before_reset", 0) != 0;
  std::optional<double> clip;
  if (n.attr("clip")) {
    clip = n.attrFloat("clip", 0);
    if (!(*clip > 0))
      return n.fail("clip must be positive");
  }

  // X: [T, B, I] (layout 0) or [B, T, I] (layout 1).
  if (shapeOf(x).size() != 3)
    return n.fail("X must have rank 3");
  if (layout == 1)
    TRY(x = n.create<TransposeOp>(x, ArrayRef<int64_t>{1, 0, 2}));
  // An input size known only at run time is W's (a reshape, checked at run
  // time).
  if (auto wt = dyn_cast<RankedTensorType>(w.getType());
      shapeOf(x)[2] == ShapedType::kDynamic && wt && wt.getRank() == 3 &&
      !wt.isDynamicDim(2)) {
    SmallVector<SymDim> dims = n.dimsOf(x);
    dims[2] = SymDim::constant(wt.getDimSize(2));
    TRY(x = n.reshapeTo(x, dims));
  }
  Shape xs = shapeOf(x);
  const int64_t seq = xs[0], batch = xs[1], inSize = xs[2];
  // A sequence length known only at run time, or a long one, is a loop
  // (tide.scan); a short static one is unrolled. (Unrolled, the steps' ops
  // grow with the length, and so does bufferization's conflict analysis
  // over them, faster than linearly: a 256-step bidirectional LSTM took
  // minutes to compile.)
  constexpr int64_t kMaxUnrolledSteps = 32;
  const bool loop = ShapedType::isDynamic(seq) || seq > kMaxUnrolledSteps;
  if (ShapedType::isDynamic(inSize))
    return n.fail("X has a dynamic input size; " + n.opType() +
                  " needs it static: bind it with --bind-shape");
  // The batch may be known only at run time: every shape below is built
  // from `batchDim`.
  const SymDim batchDim = n.dimOf(x, 1);
  auto dimsWithBatch = [&](std::initializer_list<int64_t> dims) {
    SmallVector<SymDim> out;
    for (int64_t d : dims)
      out.push_back(ShapedType::isDynamic(d) ? batchDim : SymDim::constant(d));
    return out;
  };
  // `v` reshaped to `dims`, where `batch` stands for the run-time batch.
  auto reshapeB = [&](Value v, std::initializer_list<int64_t> dims) -> Value {
    return v ? n.reshapeTo(v, dimsWithBatch(dims)) : Value();
  };
  if (!loop && seq < 1)
    return n.fail("the sequence length must be at least 1");

  // W: [D, G*H, I], R: [D, G*H, H].
  Shape ws = shapeOf(w);
  if (ws.size() != 3 || ShapedType::isDynamic(ws[1]))
    return n.fail("W must have rank 3 and a static shape");
  int64_t hidden = n.attrInt("hidden_size", ws[1] / numGates);
  if (hidden < 1)
    return n.fail("hidden_size must be positive");
  const int64_t gh = numGates * hidden;
  if (failed(expectShape(n, w, {numDirs, gh, inSize}, "W")) ||
      failed(expectShape(n, r, {numDirs, gh, hidden}, "R")))
    return failure();
  auto acts = readActivations(
      n,
      cell == Cell::RNN   ? ArrayRef<const char *>{"Tanh"}
      : cell == Cell::GRU ? ArrayRef<const char *>{"Sigmoid", "Tanh"}
                          : ArrayRef<const char *>{"Sigmoid", "Tanh", "Tanh"},
      numDirs);
  if (failed(acts))
    return failure();
  const int64_t actsPerDir = acts->size() / numDirs;

  // Optional inputs.
  Value bias = n.has(3) ? n.in(3) : Value();
  if (bias && failed(expectShape(n, bias, {numDirs, 2 * gh}, "B")))
    return failure();
  Value lens;
  if (n.has(4)) {
    bool full = false;
    if (auto c = n.constIn(4))
      if (auto v = readHostValues(*c);
          v && (v->size() == batch || ShapedType::isDynamic(batch))) {
        full = true;
        for (int64_t i = 0; i < v->size(); ++i)
          full &= v->intAt(i) == seq;
      }
    if (!full) {
      lens = n.in(4);
      TRY(lens);
      if (!isa<IntegerType>(elemOf(lens)) || shapeOf(lens).size() != 1 ||
          (shapeOf(lens)[0] != batch && !ShapedType::isDynamic(batch) &&
           !ShapedType::isDynamic(shapeOf(lens)[0])))
        return n.fail("sequence_lens must be an integer tensor of shape [" +
                      (ShapedType::isDynamic(batch) ? "batch" : Twine(batch)) +
                      "]");
      // Each length in [0, the sequence length] (checked when the model
      // runs for values known only then; ONNX Runtime fails the call too).
      TRY(lens = checkedIndices(
              n, lens, {n.combine("Add", n.dimOf(x, 0), SymDim::constant(1))},
              "one more than the sequence length (sequence_lens)",
              /*negative=*/false));
    }
  }
  auto initialState = [&](unsigned i, StringRef what) -> FailureOr<Value> {
    if (!n.has(i))
      return Value();
    Value v = n.in(i);
    if (!v)
      return failure();
    Shape want = layout == 0 ? Shape{numDirs, batch, hidden}
                             : Shape{batch, numDirs, hidden};
    if (failed(expectShape(n, v, want, what)))
      return failure();
    if (layout == 1)
      v = n.create<TransposeOp>(v, ArrayRef<int64_t>{1, 0, 2});
    if (!v)
      return failure();
    return v;
  };
  auto initialH = initialState(5, "initial_h");
  if (failed(initialH))
    return failure();
  FailureOr<Value> initialC = Value();
  Value peep;
  if (cell == Cell::LSTM) {
    initialC = initialState(6, "initial_c");
    if (failed(initialC))
      return failure();
    if (n.has(7)) {
      TRY(peep = n.in(7));
      if (failed(expectShape(n, peep, {numDirs, 3 * hidden}, "P")))
        return failure();
    }
  }

  // Element `d` of a [D, ...] tensor, as [...].
  auto ofDir = [&](Value v, int64_t d) -> Value {
    Value sl = n.sliceAxis(v, 0, d, d + 1);
    return sl ? n.reshapeTo(sl, ArrayRef<SymDim>(n.dimsOf(sl)).drop_front())
              : Value();
  };
  auto clipped = [&](Value v) -> Value {
    if (!v || !clip)
      return v;
    v = n.create<MaximumOp>(v, n.scalar(t, -*clip));
    return v ? n.create<MinimumOp>(v, n.scalar(t, *clip)) : Value();
  };
  auto gate = [&](Value v, int64_t k) {
    return n.sliceAxis(v, 1, k * hidden, (k + 1) * hidden);
  };
  Value zeros =
      n.broadcastToDims(n.scalar(t, 0), dimsWithBatch({batch, hidden}));
  TRY(zeros);

  // A sequence of length 0 ends in zero states (ONNX Runtime's rule), not
  // the initial ones it held.
  auto zeroUnrun = [&](Value &hLast, Value &cLast) -> LogicalResult {
    if (!lens)
      return success();
    Value ran =
        n.create<CmpOp>(CmpPredicate::gt, lens, n.scalar(elemOf(lens), 0));
    TRY(ran = reshapeB(ran, {batch, 1}));
    TRY(hLast =
            n.create<SelectOp>(ran, reshapeB(hLast, {batch, hidden}), zeros));
    if (cLast && cell == Cell::LSTM)
      TRY(cLast =
              n.create<SelectOp>(ran, reshapeB(cLast, {batch, hidden}), zeros));
    return success();
  };

  SmallVector<Value> ys(numDirs), yh(numDirs), yc(numDirs);
  for (int64_t d = 0; d < numDirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    ArrayRef<Activation> f(acts->data() + d * actsPerDir, actsPerDir);
    Value wd = ofDir(w, d), rd = ofDir(r, d);
    TRY(wd && rd);
    Value wT = n.create<TransposeOp>(wd, ArrayRef<int64_t>{1, 0}); // [I, GH]
    Value rT = n.create<TransposeOp>(rd, ArrayRef<int64_t>{1, 0}); // [H, GH]
    TRY(wT && rT);
    // The input projection of every step at once: [T, B, GH].
    const SymDim seqDim = n.dimOf(x, 0);
    Value xw =
        n.create<MatmulOp>(n.reshapeTo(x, {n.combine("Mul", seqDim, batchDim),
                                           SymDim::constant(inSize)}),
                           wT);
    TRY(xw);
    Value recBias; // GRU with linear_before_reset: Rb of the h gate.
    if (bias) {
      Value bd = ofDir(bias, d);
      TRY(bd);
      Value wb = n.sliceAxis(bd, 0, 0, gh), rb = n.sliceAxis(bd, 0, gh, 2 * gh);
      TRY(wb && rb);
      Value xb = n.create<AddOp>(wb, rb);
      TRY(xb);
      if (cell == Cell::GRU && linearBeforeReset) {
        SmallVector<Value> parts = {n.sliceAxis(xb, 0, 0, 2 * hidden),
                                    n.sliceAxis(wb, 0, 2 * hidden, gh)};
        TRY(parts[0] && parts[1]);
        TRY(xb = n.create<ConcatOp>(parts, 0));
        TRY(recBias = n.sliceAxis(rb, 0, 2 * hidden, gh));
      }
      TRY(xw = n.create<AddOp>(xw, xb));
    }
    TRY(xw = n.reshapeTo(xw, {seqDim, batchDim, SymDim::constant(gh)}));
    // GRU without linear_before_reset multiplies r * h by R's h rows.
    Value rzrT, rhT;
    if (cell == Cell::GRU && !linearBeforeReset) {
      TRY(rzrT = n.sliceAxis(rT, 1, 0, 2 * hidden));
      TRY(rhT = n.sliceAxis(rT, 1, 2 * hidden, gh));
    }
    Value pi, po, pf;
    if (peep) {
      Value pd = ofDir(peep, d);
      TRY(pd);
      TRY(pi = n.sliceAxis(pd, 0, 0, hidden));
      TRY(po = n.sliceAxis(pd, 0, hidden, 2 * hidden));
      TRY(pf = n.sliceAxis(pd, 0, 2 * hidden, 3 * hidden));
    }
    Value h = *initialH ? ofDir(*initialH, d) : zeros;
    Value c = *initialC ? ofDir(*initialC, d) : zeros;
    TRY(h && c);

    // One step of the cell: the new h and c (c only for LSTM) from the
    // step's input projection `xt` and the state.
    auto cellStep = [&](Value xt, Value h, Value c, Value &hNew,
                        Value &cNew) -> LogicalResult {
      if (cell == Cell::RNN) {
        Value g = n.create<AddOp>(xt, n.create<MatmulOp>(h, rT));
        TRY(hNew = activate(n, f[0], clipped(g)));
      } else if (cell == Cell::LSTM) {
        // Gates in ONNX's order: input, output, forget, cell.
        Value g = n.create<AddOp>(xt, n.create<MatmulOp>(h, rT));
        TRY(g);
        Value gi = gate(g, 0), go = gate(g, 1), gf = gate(g, 2),
              gc = gate(g, 3);
        TRY(gi && go && gf && gc);
        if (peep)
          TRY(gi = n.create<AddOp>(gi, n.create<MulOp>(pi, c)));
        Value i = activate(n, f[0], clipped(gi));
        TRY(i);
        Value fg;
        if (inputForget) {
          fg = n.create<SubOp>(n.scalar(t, 1), i);
        } else {
          if (peep)
            TRY(gf = n.create<AddOp>(gf, n.create<MulOp>(pf, c)));
          fg = activate(n, f[0], clipped(gf));
        }
        Value cand = activate(n, f[1], clipped(gc));
        TRY(fg && cand);
        cNew =
            n.create<AddOp>(n.create<MulOp>(fg, c), n.create<MulOp>(i, cand));
        TRY(cNew);
        if (peep)
          TRY(go = n.create<AddOp>(go, n.create<MulOp>(po, cNew)));
        Value o = activate(n, f[0], clipped(go));
        Value hc = activate(n, f[2], cNew);
        TRY(o && hc);
        hNew = n.create<MulOp>(o, hc);
      } else {
        // Gates in ONNX's order: update (z), reset (r), hidden (h).
        Value rec = n.create<MatmulOp>(h, linearBeforeReset ? rT : rzrT);
        TRY(rec);
        Value z = n.create<AddOp>(gate(xt, 0), gate(rec, 0));
        Value rg = n.create<AddOp>(gate(xt, 1), gate(rec, 1));
        TRY(z && rg);
        TRY(z = activate(n, f[0], clipped(z)));
        TRY(rg = activate(n, f[0], clipped(rg)));
        Value hh;
        if (linearBeforeReset) {
          Value rh = gate(rec, 2);
          if (recBias)
            rh = n.create<AddOp>(rh, recBias);
          hh = n.create<AddOp>(gate(xt, 2), n.create<MulOp>(rg, rh));
        } else {
          hh = n.create<AddOp>(gate(xt, 2),
                               n.create<MatmulOp>(n.create<MulOp>(rg, h), rhT));
        }
        TRY(hh = activate(n, f[1], clipped(hh)));
        // (1 - z) * hh + z * h.
        hNew = n.create<AddOp>(
            n.create<MulOp>(n.create<SubOp>(n.scalar(t, 1), z), hh),
            n.create<MulOp>(z, h));
      }
      TRY(hNew);
      return success();
    };

    if (loop) {
      // A run-time sequence length: the step is the body of a tide.scan
      // over the input projection, built in a block of its own; what it
      // reads from outside becomes the scan's invariants (constants are
      // copied in).
      const bool lstm = cell == Cell::LSTM;
      TRY(h = reshapeB(h, {batch, hidden}));
      TRY(c = reshapeB(c, {batch, hidden}));
      SmallVector<Value> inits = {h};
      if (lstm)
        inits.push_back(c);
      ScanOp scan =
          buildScan(n, inits, ValueRange{xw}, reverse, /*conditional=*/false,
                    [&](Value tArg, ValueRange states,
                        ValueRange slices) -> FailureOr<SmallVector<Value>> {
                      Value hArg = states[0], cArg = lstm ? states[1] : Value();
                      Value hNew, cNew;
                      if (failed(cellStep(slices[0], hArg, cArg, hNew, cNew)))
                        return failure();
                      Value yt = hNew;
                      if (lens) {
                        // Past a sequence's end: hold the state, write zeros.
                        Value valid = n.create<CmpOp>(
                            CmpPredicate::lt, n.cast(tArg, elemOf(lens)), lens);
                        TRY(valid = reshapeB(valid, {batch, 1}));
                        TRY(yt = n.create<SelectOp>(valid, hNew, zeros));
                        TRY(hNew = n.create<SelectOp>(valid, hNew, hArg));
                        if (lstm)
                          TRY(cNew = n.create<SelectOp>(valid, cNew, cArg));
                      }
                      SmallVector<Value> yields = {hNew};
                      if (lstm)
                        yields.push_back(cNew);
                      yields.push_back(yt);
                      return yields;
                    });
      TRY(scan);
      Value hLast = scan.getResult(0);
      Value cLast = lstm ? scan.getResult(1) : c;
      if (failed(zeroUnrun(hLast, cLast)))
        return failure();
      // [T, B, H] -> [T, 1, B, H]
      TRY(ys[d] = n.reshapeTo(scan.getResults().back(),
                              {seqDim, SymDim::constant(1), batchDim,
                               SymDim::constant(hidden)}));
      TRY(yh[d] = reshapeB(hLast, {1, batch, hidden}));
      TRY(yc[d] = reshapeB(cLast, {1, batch, hidden}));
      continue;
    }
    SmallVector<Value> steps(seq);
    for (int64_t step = 0; step < seq; ++step) {
      int64_t ti = reverse ? seq - 1 - step : step;
      Value xt = n.sliceAxis(xw, 0, ti, ti + 1);
      TRY(xt = reshapeB(xt, {batch, gh}));
      Value hNew, cNew;
      if (failed(cellStep(xt, h, c, hNew, cNew)))
        return failure();
      TRY(hNew);
      Value yt = hNew;
      if (lens) {
        // Past a sequence's end: hold the state, write zeros.
        Value valid =
            n.create<CmpOp>(CmpPredicate::lt, n.scalar(elemOf(lens), ti), lens);
        TRY(valid = reshapeB(valid, {batch, 1}));
        TRY(yt = n.create<SelectOp>(valid, hNew, zeros));
        TRY(hNew = n.create<SelectOp>(valid, hNew, h));
        if (cNew)
          TRY(cNew = n.create<SelectOp>(valid, cNew, c));
      }
      h = hNew;
      if (cNew)
        c = cNew;
      TRY(steps[ti] = reshapeB(yt, {1, 1, batch, hidden}));
    }
    TRY(ys[d] = steps.size() == 1 ? steps[0] : n.create<ConcatOp>(steps, 0));
    if (failed(zeroUnrun(h, c)))
      return failure();
    TRY(yh[d] = reshapeB(h, {1, batch, hidden}));
    TRY(yc[d] = reshapeB(c, {1, batch, hidden}));
  }

  auto join = [&](SmallVector<Value> &parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : n.create<ConcatOp>(parts, axis);
  };
  if (n.wantsOutput(0)) {
    Value y = join(ys, 1); // [T, D, B, H]
    if (y && layout == 1)
      y = n.create<TransposeOp>(y, ArrayRef<int64_t>{2, 0, 1, 3});
    TRY(y);
    n.setOut(0, y);
  }
  for (auto [k, parts] :
       llvm::enumerate(SmallVector<SmallVector<Value> *>{&yh, &yc})) {
    unsigned index = k + 1;
    if (!n.wantsOutput(index))
      continue;
    if (cell != Cell::LSTM && index == 2)
      return n.fail(n.opType() + " has no output " + Twine(index));
    Value v = join(*parts, 0); // [D, B, H]
    if (v && layout == 1)
      v = n.create<TransposeOp>(v, ArrayRef<int64_t>{1, 0, 2});
    TRY(v);
    n.setOut(index, v);
  }
  return success();
}

LogicalResult convertRNN(NodeImporter &n) {
  return convertRecurrent(n, Cell::RNN);
}
LogicalResult convertGRU(NodeImporter &n) {
  return convertRecurrent(n, Cell::GRU);
}
LogicalResult convertLSTM(NodeImporter &n) {
  return convertRecurrent(n, Cell::LSTM);
}

} // namespace

void onnx_import::addRNNConverters(llvm::StringMap<Converter> &table) {
  table["RNN"] = convertRNN;
  table["GRU"] = convertGRU;
  table["LSTM"] = convertLSTM;
}
