//===- ConvertSequence.cpp - Sequence and optional ops --------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// ONNX's sequence and optional types inside a graph. Tide has no run-time
// list: a sequence is the list of its elements known while importing (an
// Aggregate of the graph), each element an ordinary tensor entry. That covers
// what exporters write around tensors (a list built, indexed and concatenated
// at fixed positions, a tensor split into a list and joined again, a map over
// a list): every position, split and length must be known while importing,
// and a message names the one that is not. Models whose inputs or outputs are
// sequences or optionals are refused (ImportONNX.cpp): a compiled function
// takes and returns tensors.
//
// - SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
//   SequenceAt, SequenceLength: list operations at constant positions;
// - SplitToSequence: slices along the axis (squeezed without keepdims);
// - ConcatFromSequence: Concat of the elements, each unsqueezed first with
//   new_axis;
// - SequenceMap: the body imported once per position, on the elements at
//   that position (and the tensors passed whole);
// - Optional, OptionalHasElement, OptionalGetElement: an optional is present
//   or not while importing.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

/// Input `i` as a sequence, or an error naming it. One of run-time length
/// (`Aggregate::stacked`) only where the caller takes it (`stackedOk`).
FailureOr<Aggregate> sequenceIn(NodeImporter &n, unsigned i,
                                bool stackedOk = false) {
  GraphImporter &graph = n.graphImporter();
  if (!n.has(i)) {
    (void)n.fail("needs a sequence as input " + llvm::Twine(i));
    return failure();
  }
  auto it = graph.aggregates.find(n.node.input(i));
  if (it == graph.aggregates.end() || it->second.isOptional) {
    (void)n.fail("input " + llvm::Twine(i) + " ('" + n.node.input(i) +
                 "') must be a sequence");
    return failure();
  }
  if (!it->second.stacked.empty() && !stackedOk) {
    (void)n.fail("input " + llvm::Twine(i) + " ('" + n.node.input(i) +
                 "') is a sequence whose length is known only at run time "
                 "(a Loop of run-time length appended to it): " +
                 n.opType() +
                 " needs one whose elements are known while importing "
                 "(ConcatFromSequence, SequenceAt and SequenceLength take "
                 "it)");
    return failure();
  }
  return it->second;
}

/// The tensor holding a sequence of run-time length's elements (along its
/// first axis).
Value stackedIn(NodeImporter &n, const Aggregate &seq) {
  onnx::NodeProto reader;
  reader.add_input(seq.stacked);
  NodeImporter r(n.graphImporter(), reader, n.loc, n.opset);
  return r.in(0);
}

/// Input `i` as a tensor entry (not a sequence or optional), or an error.
LogicalResult requireTensorIn(NodeImporter &n, unsigned i,
                              llvm::StringRef role) {
  if (!n.has(i))
    return n.fail("needs " + role + " (input " + llvm::Twine(i) + ")");
  if (n.graphImporter().aggregates.count(n.node.input(i)))
    return n.fail(role + " (input " + llvm::Twine(i) + ") must be a tensor");
  return success();
}

void setAggregateOut(NodeImporter &n, unsigned i, Aggregate a) {
  if (!n.wantsOutput(i))
    return;
  GraphImporter &graph = n.graphImporter();
  const std::string &name = n.node.output(i);
  graph.values.erase(name);
  graph.constants.erase(name);
  graph.shapes.erase(name);
  graph.narrowTypes.erase(name);
  graph.aggregates[name] = std::move(a);
}

/// Output `i` set to the entries of `from` (an element).
void setElementOut(NodeImporter &n, unsigned i, llvm::StringRef from) {
  if (!n.wantsOutput(i))
    return;
  GraphImporter &graph = n.graphImporter();
  const std::string &name = n.node.output(i);
  graph.values.erase(name);
  graph.constants.erase(name);
  graph.shapes.erase(name);
  graph.aggregates.erase(name);
  graph.narrowTypes.erase(name);
  if (Value v = graph.values.lookup(from))
    graph.values[name] = v;
  if (auto c = graph.constants.find(from); c != graph.constants.end())
    graph.constants[name] = c->second;
  if (auto sv = graph.shapes.find(from); sv != graph.shapes.end())
    graph.shapes[name] = sv->second;
  if (auto a = graph.aggregates.find(from); a != graph.aggregates.end())
    graph.aggregates[name] = a->second;
  if (int32_t dt = graph.narrowTypes.lookup(from))
    graph.narrowTypes[name] = dt;
}

/// A node of `opType` reading `inputs` and writing `outputs` (names), with
/// `ints` attributes, converted in `n`'s place by the default-domain
/// converter (opset 13 semantics).
LogicalResult convertInner(NodeImporter &n, llvm::StringRef opType,
                           ArrayRef<std::string> inputs,
                           ArrayRef<std::string> outputs,
                           ArrayRef<std::pair<const char *, int64_t>> ints) {
  onnx::NodeProto inner;
  inner.set_op_type(opType.str());
  for (const std::string &name : inputs)
    inner.add_input(name);
  for (const std::string &name : outputs)
    inner.add_output(name);
  for (auto [name, value] : ints) {
    onnx::AttributeProto *a = inner.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  Converter convert = lookupConverter(opType);
  NodeImporter node(n.graphImporter(), inner, n.loc, 13);
  node.callGraph = n.callGraph;
  return convert(node);
}

/// A constant i64 vector under a new name.
std::string stashInts(NodeImporter &n, ArrayRef<int64_t> values) {
  GraphImporter &graph = n.graphImporter();
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    IntegerType::get(n.ctx, 64));
  std::string name = graph.freshName();
  graph.constants[name] = DenseElementsAttr::get(type, values);
  return name;
}

/// A position in a sequence of `size` elements (input `i`, a constant
/// scalar; `defaultPos` when omitted), normalized; insert positions may be
/// `size`.
FailureOr<int64_t> positionIn(NodeImporter &n, unsigned i, int64_t size,
                              int64_t defaultPos, bool insert) {
  if (!n.has(i))
    return defaultPos;
  FailureOr<SmallVector<int64_t>> pos =
      n.requireInts(i, "position in a sequence, which Tide keeps as a list "
                       "known while importing");
  if (failed(pos))
    return failure();
  if (pos->size() != 1) {
    (void)n.fail("the position must be one integer");
    return failure();
  }
  int64_t p = pos->front(), limit = insert ? size : size - 1;
  if (p < -size || p > limit) {
    (void)n.fail("position " + llvm::Twine(p) + " is out of range for a " +
                 "sequence of " + llvm::Twine(size) + " elements");
    return failure();
  }
  return p < 0 ? p + size : p;
}

LogicalResult convertSequenceEmpty(NodeImporter &n) {
  if (failed(n.checkAttrs({"dtype"})))
    return failure();
  Aggregate a;
  a.elemType = n.attrInt("dtype", onnx::TensorProto::FLOAT);
  setAggregateOut(n, 0, a);
  return success();
}

LogicalResult convertSequenceConstruct(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  if (n.numInputs() == 0)
    return n.fail("needs at least one tensor");
  Aggregate a;
  Type element;
  for (unsigned i = 0; i < n.numInputs(); ++i) {
    if (failed(requireTensorIn(n, i, "an element")))
      return failure();
    RankedTensorType type = n.inType(i);
    if (!type)
      return n.fail("input " + llvm::Twine(i) + " has no type");
    if (element && type.getElementType() != element) {
      n.error() << "the elements of a sequence have one type; input " << i
                << " is of " << type.getElementType() << " and input 0 of "
                << element;
      return failure();
    }
    element = type.getElementType();
    a.elements.push_back(n.graphImporter().stash(n.node.input(i)));
  }
  setAggregateOut(n, 0, a);
  return success();
}

LogicalResult convertSequenceInsert(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  FailureOr<Aggregate> seq = sequenceIn(n, 0);
  if (failed(seq) || failed(requireTensorIn(n, 1, "the tensor to insert")))
    return failure();
  int64_t size = seq->elements.size();
  FailureOr<int64_t> pos = positionIn(n, 2, size, size, /*insert=*/true);
  if (failed(pos))
    return failure();
  Aggregate a = *seq;
  a.elements.insert(a.elements.begin() + *pos,
                    n.graphImporter().stash(n.node.input(1)));
  setAggregateOut(n, 0, a);
  return success();
}

LogicalResult convertSequenceErase(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  FailureOr<Aggregate> seq = sequenceIn(n, 0);
  if (failed(seq))
    return failure();
  int64_t size = seq->elements.size();
  if (size == 0)
    return n.fail("erases from an empty sequence");
  FailureOr<int64_t> pos = positionIn(n, 1, size, size - 1, false);
  if (failed(pos))
    return failure();
  Aggregate a = *seq;
  a.elements.erase(a.elements.begin() + *pos);
  setAggregateOut(n, 0, a);
  return success();
}

LogicalResult convertSequenceAt(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  FailureOr<Aggregate> seq = sequenceIn(n, 0, /*stackedOk=*/true);
  if (failed(seq))
    return failure();
  if (!n.has(1))
    return n.fail("needs a position (input 1)");
  if (!seq->stacked.empty()) {
    // An element at a position checked when the model runs: Gather of the
    // stacked elements (a negative position counts from the end).
    if (failed(requireTensorIn(n, 1, "the position")))
      return failure();
    RankedTensorType posType = n.inType(1);
    if (!posType || posType.getRank() != 0 ||
        !isa<IntegerType>(posType.getElementType()))
      return n.fail("the position must be a scalar integer");
    if (!n.wantsOutput(0))
      return success();
    return convertInner(n, "Gather", {seq->stacked, n.node.input(1)},
                        {n.node.output(0)}, {{"axis", 0}});
  }
  int64_t size = seq->elements.size();
  if (size == 0)
    return n.fail("reads an element of an empty sequence");
  FailureOr<int64_t> pos = positionIn(n, 1, size, 0, false);
  if (failed(pos))
    return failure();
  setElementOut(n, 0, seq->elements[*pos]);
  return success();
}

LogicalResult convertSequenceLength(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  FailureOr<Aggregate> seq = sequenceIn(n, 0, /*stackedOk=*/true);
  if (failed(seq))
    return failure();
  auto type = RankedTensorType::get({}, IntegerType::get(n.ctx, 64));
  if (!seq->stacked.empty()) {
    Value stacked = stackedIn(n, *seq);
    Value length =
        stacked ? n.reshape(n.scalarOf(n.dimOf(stacked, 0)), {}) : Value();
    if (!length)
      return failure();
    n.setOut(0, length);
    return success();
  }
  n.setConstOut(0, DenseElementsAttr::get(
                       type, static_cast<int64_t>(seq->elements.size())));
  return success();
}

LogicalResult convertSplitToSequence(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "keepdims"})) ||
      failed(requireTensorIn(n, 0, "the tensor to split")))
    return failure();
  Value x = n.in(0);
  if (!x)
    return n.fail("needs input 0");
  auto type = cast<RankedTensorType>(x.getType());
  FailureOr<int64_t> axis = n.normAxis(n.attrInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  // Sizes given at run time, as many as a 1-D split of static length has:
  // slices at run-time offsets.
  if (n.has(1) && !n.constIn(1) && n.inType(1) && n.inType(1).getRank() == 1 &&
      !n.inType(1).isDynamicDim(0)) {
    Value split = n.cast(n.in(1), IntegerType::get(n.ctx, 64));
    if (!split)
      return failure();
    Aggregate a;
    SymDim start = SymDim::constant(0);
    int64_t rank = type.getRank();
    // The sizes must not be negative and must add up to the axis's size,
    // checked when the model runs (ONNX Runtime fails the call too).
    SmallVector<SymDim> sizes;
    SymDim total = SymDim::constant(0), least;
    for (int64_t i = 0; i < n.inType(1).getDimSize(0); ++i) {
      Value sizeV = sliceAlong(n, split, 0, i, i + 1);
      if (!sizeV)
        return failure();
      sizes.push_back(SymDim::expr(sizeV));
      total = n.combine("Add", total, sizes.back());
      least = i ? n.combine("Min", least, sizes.back()) : sizes.back();
    }
    std::string what = "SplitToSequence: the split sizes are negative or do "
                       "not add up to the size of axis " +
                       std::to_string(*axis);
    SmallVector<SymDim> conditions = {
        n.combine("Equal", total, n.dimsOf(x)[*axis])};
    if (!sizes.empty())
      conditions.push_back(
          n.combine("GreaterOrEqual", least, SymDim::constant(0)));
    for (const SymDim &c : conditions) {
      Value holds = n.scalarOf(c, IntegerType::get(n.ctx, 1));
      if (!holds)
        return failure();
      x = n.make<CheckOp>(x.getType(), x, holds, n.b.getStringAttr(what));
      if (!x)
        return failure();
    }
    for (const SymDim &size : sizes) {
      SymDim end = n.combine("Add", start, size);
      SmallVector<SymDim> starts(rank, SymDim::constant(0)),
          limits = n.dimsOf(x), dims = n.dimsOf(x);
      starts[*axis] = start;
      limits[*axis] = end;
      dims[*axis] = size;
      Value startV = n.shapeOperand(starts), limitV = n.shapeOperand(limits);
      if (!startV || !limitV)
        return failure();
      Value piece =
          n.make<DynamicSliceOp>(n.typeOf(dims, type.getElementType()), x,
                                 startV, limitV, SmallVector<int64_t>(rank, 1));
      if (!piece)
        return failure();
      a.elements.push_back(n.graphImporter().stash(piece));
      start = end;
    }
    setAggregateOut(n, 0, a);
    return success();
  }
  int64_t length = type.getDimSize(*axis);
  if (ShapedType::isDynamic(length))
    return n.fail("splits along axis " + llvm::Twine(*axis) +
                  ", whose size is known only at run time (a sequence's "
                  "length must be known while importing)");
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  if (!n.has(1)) {
    sizes.assign(length, 1);
    squeeze = n.attrInt("keepdims", 1) == 0;
  } else {
    FailureOr<HostValues> split = n.requireConstIn(1, "split");
    if (failed(split))
      return failure();
    if (split->type.getRank() == 0) {
      int64_t chunk = split->intAt(0);
      if (chunk <= 0)
        return n.fail("split " + llvm::Twine(chunk) + " must be positive");
      for (int64_t start = 0; start < length; start += chunk)
        sizes.push_back(std::min(chunk, length - start));
    } else {
      int64_t total = 0;
      for (int64_t i = 0; i < split->size(); ++i) {
        int64_t s = split->intAt(i);
        if (s < 0)
          return n.fail("split sizes must not be negative");
        sizes.push_back(s);
        total += s;
      }
      if (total != length)
        return n.fail("split sizes add up to " + llvm::Twine(total) +
                      "; axis " + llvm::Twine(*axis) + " has " +
                      llvm::Twine(length));
    }
  }
  GraphImporter &graph = n.graphImporter();
  Aggregate a;
  int64_t start = 0;
  for (int64_t size : sizes) {
    Value piece = sliceAlong(n, x, *axis, start, start + size);
    if (!piece)
      return failure();
    start += size;
    std::string name = graph.stash(piece);
    if (squeeze) {
      std::string squeezed = graph.freshName();
      if (failed(convertInner(n, "Squeeze", {name, stashInts(n, {*axis})},
                              {squeezed}, {})))
        return failure();
      name = squeezed;
    }
    a.elements.push_back(name);
  }
  setAggregateOut(n, 0, a);
  return success();
}

/// ConcatFromSequence of a sequence of run-time length: its stacked
/// elements (L, e0, e1, ...) with L moved to `axis` (new_axis), or there and
/// merged with the elements' axis (L * e_axis: element after element).
LogicalResult concatStacked(NodeImporter &n, const Aggregate &seq, int64_t axis,
                            bool newAxis) {
  Value stacked = stackedIn(n, seq);
  if (!stacked)
    return failure();
  int64_t rank = cast<RankedTensorType>(stacked.getType()).getRank() - 1;
  FailureOr<int64_t> a = n.normAxis(axis, newAxis ? rank + 1 : rank);
  if (failed(a))
    return failure();
  SmallVector<int64_t> perm;
  for (int64_t d = 1; d <= *a; ++d)
    perm.push_back(d);
  perm.push_back(0);
  for (int64_t d = *a + 1; d <= rank; ++d)
    perm.push_back(d);
  Value y = n.create<TransposeOp>(stacked, perm);
  if (y && !newAxis) {
    SmallVector<SymDim> dims = n.dimsOf(y);
    dims[*a] = n.combine("Mul", dims[*a], dims[*a + 1]);
    dims.erase(dims.begin() + *a + 1);
    y = n.reshapeTo(y, dims);
  }
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

LogicalResult convertConcatFromSequence(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "new_axis"})))
    return failure();
  FailureOr<Aggregate> seq = sequenceIn(n, 0, /*stackedOk=*/true);
  if (failed(seq))
    return failure();
  const onnx::AttributeProto *axisAttr = n.attr("axis");
  if (!axisAttr)
    return n.fail("needs an 'axis' attribute");
  int64_t axis = axisAttr->i();
  bool newAxis = n.attrInt("new_axis", 0) != 0;
  if (!seq->stacked.empty())
    return concatStacked(n, *seq, axis, newAxis);
  if (seq->elements.empty())
    return n.fail("concatenates an empty sequence (its result's shape is "
                  "not known)");
  SmallVector<std::string> parts(seq->elements.begin(), seq->elements.end());
  if (newAxis) {
    // The axis counts in the result, one dimension more than the elements.
    GraphImporter &graph = n.graphImporter();
    std::string axes = stashInts(n, {axis});
    for (std::string &part : parts) {
      std::string unsqueezed = graph.freshName();
      if (failed(convertInner(n, "Unsqueeze", {part, axes}, {unsqueezed}, {})))
        return failure();
      part = unsqueezed;
    }
  }
  if (!n.wantsOutput(0))
    return success();
  SmallVector<std::string> inputs(parts.begin(), parts.end());
  return convertInner(n, "Concat", inputs, {n.node.output(0)},
                      {{"axis", axis}});
}

LogicalResult convertSequenceMap(NodeImporter &n) {
  if (failed(n.checkAttrs({"body"})))
    return failure();
  const onnx::AttributeProto *body = n.attr("body");
  if (!body || !body->has_g())
    return n.fail("needs a 'body' graph");
  GraphImporter &graph = n.graphImporter();
  FailureOr<Aggregate> first = sequenceIn(n, 0);
  if (failed(first))
    return failure();
  size_t length = first->elements.size();
  // The other inputs: sequences of the same length, or tensors passed whole.
  SmallVector<std::optional<Aggregate>> extra;
  for (unsigned i = 1; i < n.numInputs(); ++i) {
    if (!n.has(i))
      return n.fail("input " + llvm::Twine(i) + " is omitted");
    auto it = graph.aggregates.find(n.node.input(i));
    if (it == graph.aggregates.end()) {
      extra.push_back(std::nullopt);
      continue;
    }
    if (it->second.isOptional)
      return n.fail("input " + llvm::Twine(i) + " is an optional");
    if (!it->second.stacked.empty())
      return n.fail("input " + llvm::Twine(i) +
                    " is a sequence whose length is known only at run time; "
                    "SequenceMap needs its elements while importing");
    if (it->second.elements.size() != length)
      return n.fail("input " + llvm::Twine(i) + " is a sequence of " +
                    llvm::Twine(it->second.elements.size()) +
                    " elements; input 0 has " + llvm::Twine(length));
    extra.push_back(it->second);
  }
  const onnx::GraphProto &g = body->g();
  if (g.output_size() != n.node.output_size())
    return n.fail("the body has " + llvm::Twine(g.output_size()) +
                  " outputs for the node's " +
                  llvm::Twine(n.node.output_size()));
  // A value by name (an element or an input).
  auto valueNamed = [&](const std::string &name) -> Value {
    onnx::NodeProto reader;
    reader.add_input(name);
    NodeImporter r(graph, reader, n.loc, n.opset);
    return r.in(0);
  };
  SmallVector<Aggregate> results(g.output_size());
  for (size_t k = 0; k < length; ++k) {
    SmallVector<Value> inputs;
    inputs.push_back(valueNamed(first->elements[k]));
    for (unsigned i = 1; i < n.numInputs(); ++i)
      inputs.push_back(extra[i - 1] ? valueNamed(extra[i - 1]->elements[k])
                                    : valueNamed(n.node.input(i)));
    if (llvm::any_of(inputs, [](Value v) { return !v; }))
      return n.fail("an input of the body is not a tensor");
    SmallVector<Value> outputs;
    if (failed(n.callGraph(g, inputs, outputs)))
      return failure();
    for (auto [j, v] : llvm::enumerate(outputs))
      results[j].elements.push_back(graph.stash(v));
  }
  for (int j = 0; j < g.output_size(); ++j) {
    if (length == 0)
      results[j].elemType = g.output(j).type().tensor_type().elem_type();
    setAggregateOut(n, j, results[j]);
  }
  return success();
}

LogicalResult convertOptional(NodeImporter &n) {
  if (failed(n.checkAttrs({"type"})))
    return failure();
  Aggregate a;
  a.isOptional = true;
  if (!n.has(0)) {
    const onnx::AttributeProto *type = n.attr("type");
    if (!type || !type->has_tp())
      return n.fail("an empty optional needs a 'type' attribute");
    a.present = false;
    a.holdsSequence = type->tp().has_sequence_type();
  } else if (auto it = n.graphImporter().aggregates.find(n.node.input(0));
             it != n.graphImporter().aggregates.end()) {
    if (it->second.isOptional)
      return n.fail("an optional of an optional is not an ONNX type");
    if (!it->second.stacked.empty())
      return n.fail("an optional of a sequence whose length is known only at "
                    "run time is not supported");
    a.elements = it->second.elements;
    a.elemType = it->second.elemType;
  } else {
    a.holdsSequence = false;
    a.elements.push_back(n.graphImporter().stash(n.node.input(0)));
  }
  setAggregateOut(n, 0, a);
  return success();
}

LogicalResult convertOptionalHasElement(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  bool present = false;
  if (n.has(0)) {
    auto it = n.graphImporter().aggregates.find(n.node.input(0));
    // A tensor or a sequence (opset 18) is present.
    present = it == n.graphImporter().aggregates.end() ||
              !it->second.isOptional || it->second.present;
  }
  auto type = RankedTensorType::get({}, IntegerType::get(n.ctx, 1));
  n.setConstOut(0, DenseElementsAttr::get(type, present));
  return success();
}

LogicalResult convertOptionalGetElement(NodeImporter &n) {
  if (failed(n.checkAttrs({})))
    return failure();
  if (!n.has(0))
    return n.fail("needs an optional (input 0)");
  auto it = n.graphImporter().aggregates.find(n.node.input(0));
  if (it == n.graphImporter().aggregates.end() || !it->second.isOptional) {
    // A tensor or a sequence (opset 18): itself.
    setElementOut(n, 0, n.node.input(0));
    return success();
  }
  const Aggregate &opt = it->second;
  if (!opt.present)
    return n.fail("input '" + n.node.input(0) +
                  "' is an empty optional (OptionalGetElement needs one "
                  "that holds a value)");
  if (opt.holdsSequence) {
    Aggregate seq;
    seq.elements = opt.elements;
    seq.elemType = opt.elemType;
    setAggregateOut(n, 0, seq);
  } else {
    setElementOut(n, 0, opt.elements.front());
  }
  return success();
}

const llvm::StringMap<Converter> &sequenceConverters() {
  static const llvm::StringMap<Converter> table = {
      {"SequenceEmpty", convertSequenceEmpty},
      {"SequenceConstruct", convertSequenceConstruct},
      {"SequenceInsert", convertSequenceInsert},
      {"SequenceErase", convertSequenceErase},
      {"SequenceAt", convertSequenceAt},
      {"SequenceLength", convertSequenceLength},
      {"SplitToSequence", convertSplitToSequence},
      {"ConcatFromSequence", convertConcatFromSequence},
      {"SequenceMap", convertSequenceMap},
      {"Optional", convertOptional},
      {"OptionalHasElement", convertOptionalHasElement},
      {"OptionalGetElement", convertOptionalGetElement},
  };
  return table;
}

} // namespace

bool onnx_import::takesAggregates(llvm::StringRef opType) {
  // (A Loop carries them through its unrolled iterations.)
  return opType == "Identity" || opType == "Loop" ||
         sequenceConverters().count(opType);
}

void onnx_import::addSequenceConverters(llvm::StringMap<Converter> &table) {
  for (const auto &entry : sequenceConverters())
    table[entry.getKey()] = entry.getValue();
}
