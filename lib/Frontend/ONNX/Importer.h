//===- Importer.h - Internals of the ONNX importer --------------*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Shared by ImportONNX.cpp (the model, the graph, tensors), ConvertOps.cpp
// (one converter per ONNX op type) and FoldShapes.cpp (shape subgraphs
// evaluated while importing).
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_LIB_FRONTEND_ONNX_IMPORTER_H
#define TIDE_LIB_FRONTEND_ONNX_IMPORTER_H

#include "tide/IR/TideDialect.h"
#include "tide/IR/TideOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

#include "onnx/onnx.pb.h"

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <limits>

namespace mlir::tide::onnx_import {

/// `value` as an int64, saturated (NaN: 0): converting a double out of
/// int64's range, an infinity or NaN is undefined in C++.
inline int64_t saturatingInt64(double value) {
  if (value >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  if (value != value)
    return 0;
  return static_cast<int64_t>(value);
}

/// A constant's values, widened for host evaluation (shape arithmetic).
struct HostValues {
  RankedTensorType type;
  std::vector<int64_t> ints;  // integer and bool element types
  std::vector<double> floats; // float element types
  bool isFloat() const { return isa<FloatType>(type.getElementType()); }
  int64_t size() const { return type.getNumElements(); }
  double at(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
  int64_t intAt(int64_t i) const {
    return isFloat() ? saturatingInt64(floats[i]) : ints[i];
  }
};

/// Converts an ONNX element type (TensorProto.DataType) to Tide's, or null
/// with `why` set.
Type convertElementType(MLIRContext *ctx, int32_t dataType, std::string &why);
/// ONNX's name of a TensorProto.DataType ("float", "uint8", ...).
std::string dataTypeName(int32_t dataType);

/// The number of bytes a tensor of `type` holds (its dynamic dimensions left
/// out), or none when that is more than 2^63 - 1: no such tensor can exist,
/// and sizes computed from it would overflow.
std::optional<int64_t> checkedByteSize(RankedTensorType type);

/// The most elements a table the importer computes itself may have (DFT and
/// STFT matrices, gathered frames, windows); above it the node is an error.
/// The fuzz target (built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, as
/// OSS-Fuzz builds are) takes a smaller limit: a mutated model that repeats a
/// node of 2^24-element tables needed gigabytes, past the fuzzer's memory
/// limit, and seconds per input.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr int64_t kComputedTableLimit = int64_t(1) << 18;
#else
constexpr int64_t kComputedTableLimit = int64_t(1) << 24;
#endif

/// Whether a table of a x b elements is over kComputedTableLimit (or a size
/// is negative), computed without overflowing.
inline bool overComputedLimit(int64_t a, int64_t b = 1) {
  return a < 0 || b < 0 || (a > 0 && b > kComputedTableLimit / a);
}

/// Reads a constant's values for evaluation; std::nullopt when the attribute
/// is too large (over `limit` elements) or of a kind that cannot be read.
std::optional<HostValues> readHostValues(ElementsAttr attr,
                                         int64_t limit = 1 << 20);
/// Builds a `dense<>` attribute of `type` from host values.
DenseElementsAttr makeDense(RankedTensorType type, ArrayRef<int64_t> ints,
                            ArrayRef<double> floats);

class GraphImporter;

/// One element of an integer value that importing knows up to sizes given
/// only at run time: a constant, the size of a dynamic dimension of a
/// tensor, or an expression computed at run time from those (Shape's
/// output and the arithmetic exporters do on it).
struct SymDim {
  enum class Kind { Const, Dim, Expr };
  Kind kind = Kind::Const;
  /// Const: the value.
  int64_t value = 0;
  /// Dim: the tensor and dimension, canonical (GraphImporter::rootOf), so
  /// equal sizes compare equal.
  Value source;
  int64_t axis = 0;
  /// Expr: a one-element tensor (tensor<1xi64>, tensor<1xi1> for a truth
  /// value) that computes it.
  Value scalar;

  static SymDim constant(int64_t v) { return {Kind::Const, v, {}, 0, {}}; }
  static SymDim dim(Value source, int64_t axis) {
    return {Kind::Dim, 0, source, axis, {}};
  }
  static SymDim expr(Value scalar) { return {Kind::Expr, 0, {}, 0, scalar}; }
  bool isConst() const { return kind == Kind::Const; }
  bool isConst(int64_t v) const { return isConst() && value == v; }
  bool isDim() const { return kind == Kind::Dim; }
  /// Sizes are never negative; constants say so themselves.
  bool isNonNegative() const { return isDim() || (isConst() && value >= 0); }
  bool operator==(const SymDim &other) const {
    if (kind != other.kind)
      return false;
    switch (kind) {
    case Kind::Const:
      return value == other.value;
    case Kind::Dim:
      return source == other.source && axis == other.axis;
    case Kind::Expr:
      return scalar == other.scalar;
    }
    return false;
  }
  bool operator!=(const SymDim &other) const { return !(*this == other); }
};

/// An integer (or bool) value of rank 0 or 1 known element by element as
/// SymDims: a shape being computed.
struct ShapeValue {
  /// The ONNX value's type (tensor<Nxi64>, tensor<i64>, tensor<Nxi1>, ...).
  RankedTensorType type;
  SmallVector<SymDim> elems;
  bool isConstant() const {
    return llvm::all_of(elems, [](const SymDim &d) { return d.isConst(); });
  }
};

/// A value of ONNX's sequence or optional types, known while importing: which
/// elements it holds. Each element is an entry of the graph's maps (values,
/// constants, shapes) under a name of its own (GraphImporter::stash), so a
/// constant stays one through SequenceAt. Models whose inputs or outputs are
/// sequences are refused; inside a graph the ops compose tensors.
struct Aggregate {
  /// An optional (else a sequence).
  bool isOptional = false;
  /// An optional: whether it holds an element.
  bool present = true;
  /// A sequence, or an optional holding one (else an optional of a tensor,
  /// its element in `elements[0]`).
  bool holdsSequence = true;
  SmallVector<std::string> elements;
  /// A sequence whose length is known only at run time (a Loop over a
  /// run-time trip count appended to it): its elements are the slices along
  /// the first axis of this entry, a tensor; `elements` is empty.
  std::string stacked;
  /// The element type (TensorProto.DataType), when known: an empty
  /// sequence's (SequenceEmpty's dtype).
  int32_t elemType = 0;
};

class NodeImporter;
using Converter = LogicalResult (*)(NodeImporter &);

/// One node being converted: its inputs, attributes and the builder.
class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &node, Location loc,
               int64_t opset);

  const onnx::NodeProto &node;
  Location loc;
  int64_t opset;
  OpBuilder &b;
  MLIRContext *ctx;

  llvm::StringRef opType() const { return node.op_type(); }
  /// Number of inputs given (trailing omitted ones not counted).
  unsigned numInputs() const;
  /// True if input `i` is given (not omitted, not "").
  bool has(unsigned i) const;
  Value in(unsigned i) const;
  RankedTensorType inType(unsigned i) const;
  /// The constant value of input `i` (an initializer, a Constant node, a
  /// bound input or a folded shape computation), if known.
  std::optional<ElementsAttr> constIn(unsigned i) const;
  /// Host values of constant input `i`, or an error naming the input (it sets
  /// a shape and must be known while importing).
  FailureOr<HostValues> requireConstIn(unsigned i, llvm::StringRef role);
  FailureOr<SmallVector<int64_t>> requireInts(unsigned i, llvm::StringRef role);

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const;
  double attrFloat(llvm::StringRef name, double dflt) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt) const;
  std::optional<SmallVector<int64_t>> attrInts(llvm::StringRef name) const;
  /// Set when an attribute was read as another type than it holds (an
  /// error at the node is reported, and the node fails).
  mutable bool badAttribute = false;
  /// Errors for attributes this converter does not understand. `known` lists
  /// the ones it handles.
  LogicalResult checkAttrs(ArrayRef<llvm::StringRef> known);

  unsigned numOutputs() const { return node.output_size(); }
  bool wantsOutput(unsigned i) const;

  /// Imports graph attribute `g` (a FlexAttention score_mod, ...) in place
  /// with its inputs bound to `inputs`, as a function call; its outputs in
  /// `outputs`. Set by the graph importer; reports at the node.
  std::function<LogicalResult(const onnx::GraphProto &g, ArrayRef<Value> inputs,
                              SmallVectorImpl<Value> &outputs)>
      callGraph;
  void setOut(unsigned i, Value v);
  /// Converts `other` (a node this converter derived from its own: the op
  /// a fused op stands for, its outputs named as this node's) with `convert`,
  /// in this node's graph and place.
  LogicalResult convertAs(const onnx::NodeProto &other, Converter convert);
  /// The narrow ONNX type of input `i` (narrow::isNarrow), or 0.
  int32_t narrowIn(unsigned i) const;
  /// Records that output `i` has narrow ONNX type `dt` (0: none).
  void setNarrowOut(unsigned i, int32_t dt);
  void setConstOut(unsigned i, DenseElementsAttr value);
  /// The value output `i` was set to (null if constant or unset).
  Value outValue(unsigned i) const;

  // Shapes computed at run time (SymbolicShapes.cpp).
  /// Input `i` element by element, if it is a constant or a value known up
  /// to run-time sizes (rank 0 or 1, at most 64 integer elements).
  std::optional<ShapeValue> shapeIn(unsigned i) const;
  /// Sets output `i` to a shape value (a constant when it is one).
  void setShapeOut(unsigned i, ShapeValue value);
  /// The size of dimension `axis` of `v`: its static size, or its canonical
  /// dynamic dimension.
  SymDim dimOf(Value v, int64_t axis);
  SmallVector<SymDim> dimsOf(Value v);
  /// `d` as a tensor<1xi64> (tensor<1xi1> for a truth value of `type` i1).
  Value scalarOf(const SymDim &d, Type type = {});
  /// The i64 vector of `dims` (the shape operand of a tide op).
  Value shapeOperand(ArrayRef<SymDim> dims);
  /// A tensor computing `value`.
  Value materialize(const ShapeValue &value);
  /// Arithmetic on sizes: folded where both are constants or the result is
  /// known, else computed at run time. `op` is an ONNX op type (Add, Sub,
  /// Mul, Div, Max, Min, Mod, Equal, Less, Greater, LessOrEqual,
  /// GreaterOrEqual).
  SymDim combine(llvm::StringRef op, const SymDim &a, const SymDim &b);
  SymDim select(const SymDim &cond, const SymDim &a, const SymDim &b);
  /// A tensor type with `dims` (dynamic where they are not constants).
  RankedTensorType typeOf(ArrayRef<SymDim> dims, Type element);
  /// `v` reshaped to `dims`, with a shape operand when more than one size is
  /// known only at run time.
  Value reshapeTo(Value v, ArrayRef<SymDim> dims);
  /// `v` broadcast to `dims`, with a shape operand when a size is known only
  /// at run time and not from `v`.
  Value broadcastToDims(Value v, ArrayRef<SymDim> dims);
  /// Elements `start, start + step, ...` below `limit` of `axis`, the other
  /// axes whole (a tide.dynamic_slice when one of them has a run-time size).
  Value sliceAxis(Value x, int64_t axis, int64_t start, int64_t limit,
                  int64_t step = 1);
  /// A readable account of the run-time sizes `value` depends on
  /// ("dimension 0 of graph input 'x'").
  std::string describeDynamic(const ShapeValue &value);
  /// Reads a TensorProto attribute (Constant's value, ...).
  ElementsAttr readTensor(const onnx::TensorProto &t, llvm::StringRef what,
                          std::string &error);

  InFlightDiagnostic error();
  LogicalResult fail(const llvm::Twine &message);

  /// Creates a tide op whose result type Tide infers; reports (at the node)
  /// and returns null if inference fails. `args` follow the op's builder
  /// that takes an explicit result type.
  template <typename OpTy, typename... Args>
  Value create(Args &&...args) {
    OperationState state(loc, OpTy::getOperationName());
    OpTy::build(b, state, Type(), std::forward<Args>(args)...);
    // An operand that failed to build was reported where it failed: stop
    // here, so converters may nest create() calls.
    if (llvm::any_of(state.operands, [](Value v) { return !v; }))
      return {};
    state.types.clear();
    SmallVector<Type, 1> types;
    if (failed(OpTy::inferReturnTypes(
            ctx, loc, state.operands, state.attributes.getDictionary(ctx),
            state.getRawProperties(), state.regions, types)))
      return {};
    state.addTypes(types);
    return finish(b.create(state));
  }
  /// Creates a tide op with a known result type (or one the builder sets).
  /// (A null operand, from a conversion that failed before and reported,
  /// stops it before the builder, which may read the operand's type.)
  template <typename OpTy, typename... Args>
  Value make(Args &&...args) {
    if ((isNullOperand(args) || ...))
      return {};
    OperationState state(loc, OpTy::getOperationName());
    OpTy::build(b, state, std::forward<Args>(args)...);
    if (llvm::any_of(state.operands, [](Value v) { return !v; }))
      return {};
    return finish(b.create(state));
  }
  /// Verifies a new op (its message names this node) and returns its result,
  /// or null.
  Value finish(Operation *op);
  /// Whether a builder argument is a null value or holds one.
  template <typename T>
  static bool isNullOperand(const T &arg) {
    if constexpr (std::is_convertible_v<const T &, Value>)
      return !static_cast<Value>(arg);
    else if constexpr (std::is_convertible_v<const T &, ValueRange>)
      return llvm::any_of(ValueRange(arg), [](Value v) { return !v; });
    else
      return false;
  }

  /// The graph this node is in (sequence ops read and write its maps).
  GraphImporter &graphImporter() const { return graph; }

  // Building blocks shared by converters.
  Value constant(DenseElementsAttr value);
  Value scalar(Type elementType, double value);
  Value cast(Value v, Type elementType);
  Value reshape(Value v, ArrayRef<int64_t> shape);
  Value broadcastTo(Value v, ArrayRef<int64_t> shape);
  /// Normalizes `axis` (negative counts from the end) to [0, rank), or
  /// reports; a scalar has no axis.
  FailureOr<int64_t> normAxis(int64_t axis, int64_t rank);

private:
  GraphImporter &graph;
};

/// Converters of convolution, pooling and resize ops (ConvertNN.cpp), added
/// to the table of ConvertOps.cpp.
void addNNConverters(llvm::StringMap<Converter> &table);
/// RNN, GRU and LSTM, unrolled over the sequence (ConvertRNN.cpp).
void addRNNConverters(llvm::StringMap<Converter> &table);
/// QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearConv, ...
/// (ConvertQuant.cpp).
void addQuantConverters(llvm::StringMap<Converter> &table);
/// LRN, ReverseSequence, MaxUnpool and Det (ConvertMisc.cpp).
void addMiscConverters(llvm::StringMap<Converter> &table);
/// NonZero, Compress, Unique and NonMaxSuppression: outputs sized by the
/// data (ConvertDataDependent.cpp).
void addDataDependentConverters(llvm::StringMap<Converter> &table);
/// Sequence and optional ops on values known while importing
/// (ConvertSequence.cpp).
void addSequenceConverters(llvm::StringMap<Converter> &table);
/// Whether a node of `opType` reads sequence and optional values (the
/// others take tensors only).
bool takesAggregates(llvm::StringRef opType);
/// DFT, STFT and MelWeightMatrix (ConvertSignal.cpp).
void addSignalConverters(llvm::StringMap<Converter> &table);
/// Attention (ConvertAttention.cpp).
void addAttentionConverters(llvm::StringMap<Converter> &table);
/// ai.onnx.ml ops (ConvertML.cpp).
void addMLConverters(llvm::StringMap<Converter> &table);
/// Adagrad, Momentum and Adam of ai.onnx.preview.training
/// (ConvertTraining.cpp).
void addTrainingConverters(llvm::StringMap<Converter> &table);
/// ONNX Runtime's contrib ops (domain com.microsoft) that its transformer
/// optimizer and quantizers write (ConvertContrib.cpp).
void addContribConverters(llvm::StringMap<Converter> &table);

/// The strides, dilations and pads of a Conv-like node (kernel given), with
/// `auto_pad` resolved against the static spatial sizes of `input`
/// (ConvertNN.cpp).
LogicalResult readConvWindow(NodeImporter &n, RankedTensorType input,
                             ArrayRef<int64_t> kernel,
                             SmallVectorImpl<int64_t> &strides,
                             SmallVectorImpl<int64_t> &dilations,
                             SmallVectorImpl<int64_t> &pads);

/// `indices` checked to lie in [-d, d), d the matching size of `bounds` (one
/// for all, or one per entry of the last dimension): constant indices while
/// importing, others by a tide.check when the model runs (ConvertOps.cpp).
/// `what` says what the sizes are, for the message. Without `negative`,
/// the range is [0, d) (lookups that do not count from the end). With
/// `guard`, the check passes that value on (what the indices were computed
/// from) instead of the indices.
Value checkedIndices(NodeImporter &n, Value indices, ArrayRef<SymDim> bounds,
                     const llvm::Twine &what, bool negative = true,
                     Value guard = {});
/// numpy.take(data, indices, axis) (ONNX Gather): `indices` of any shape
/// replace dimension `axis` of `data` (ConvertOps.cpp).
Value takeAlong(NodeImporter &n, Value data, Value indices, int64_t axis);
/// RotaryEmbedding of `x` (rank 3 with num_heads, or (batch, heads,
/// sequence, head size)) by cos/sin caches, looked up by `positions` when
/// given; attributes interleaved, num_heads and rotary_embedding_dim from the
/// node. Sets output 0.
LogicalResult rotaryEmbedding(NodeImporter &n, Value x, Value cosC, Value sinC,
                              Value positions);
/// The rotation itself, with the attributes given: `x` rotated (null,
/// reported, on an error); `rotaryDim` 0 is the whole head, `heads` is
/// needed for a rank-3 `x`.
Value rotaryOf(NodeImporter &n, Value x, Value cosC, Value sinC,
               Value positions, bool interleaved, int64_t rotaryDim,
               int64_t heads);
/// `compute(x)` for an activation made of several ops: in f32 when `x` is
/// f16 or bf16, rounded to its type once at the end (as ONNX Runtime
/// computes them; each op's result rounded to f16 lost up to 1% in
/// Softplus's log(1 + e^-|x|), found by the random graphs), in `x`'s own
/// type otherwise.
Value inWideFloat(NodeImporter &n, Value x,
                  llvm::function_ref<Value(Value)> compute);
/// GELU of `x`: 0.5 x (1 + erf(x / sqrt 2)), or with `tanhForm` the tanh
/// approximation 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))); in f32
/// for f16/bf16 `x`.
Value geluOf(NodeImporter &n, Value x, bool tanhForm);
/// (x - mean) / sqrt(var + eps) over `axes` (kept); the mean and 1/std too
/// where asked.
Value normalizeOver(NodeImporter &n, Value x, ArrayRef<int64_t> axes,
                    double eps, Value *mean = nullptr, Value *invStd = nullptr);
/// The type LayerNormalization-like ops compute in (the node's stash_type:
/// f32 for f16/bf16 by default, f64 for f64).
Type normComputeType(NodeImporter &n, Type t);

/// x[..., start:limit, ...] along `axis` (other dimensions may be dynamic)
/// (ConvertOps.cpp).
Value sliceAlong(NodeImporter &n, Value x, int64_t axis, int64_t start,
                 int64_t limit);

/// The converter for an ONNX op type of the default domain, or null.
Converter lookupConverter(llvm::StringRef opType);
/// Every op type that has a converter (sorted), for docs and messages.
std::vector<std::string> supportedOpTypes();

/// Evaluates `node` on the host when all its inputs are constant and it is a
/// shape-arithmetic op; returns true if it set the outputs.
FailureOr<bool> tryFoldNode(NodeImporter &node);

/// Evaluates a shape-arithmetic node element by element when its inputs are
/// known up to run-time sizes (SymbolicShapes.cpp); returns true if it set
/// the outputs.
FailureOr<bool> trySymbolicNode(NodeImporter &node);

/// After a node whose inputs were all constant was converted: replaces its
/// outputs by constants where the tide ops' folders compute them.
void foldConstantOutputs(NodeImporter &node);

/// ONNX element types Tide carries in a byte-wide Tide type
/// (ConvertNarrow.cpp): float8 and float4 types as their bits in ui8, INT4
/// and INT2 as values in i8, UINT4 and UINT2 as values in ui8. The numbers are
/// ONNX's TensorProto.DataType (newer than Debian's onnx.proto).
namespace narrow {
constexpr int32_t kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19,
                  kFloat8E5M2FNUZ = 20, kUInt4 = 21, kInt4 = 22,
                  kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUInt2 = 25, kInt2 = 26;
bool isNarrow(int32_t dt);
/// The float8/float4 types (carried as bits).
bool isFloat(int32_t dt);
/// The range of INT4, UINT4, INT2 or UINT2.
std::pair<int64_t, int64_t> intRange(int32_t dt);
/// Bits per element as ONNX stores it (8, 4 or 2).
unsigned bitsOf(int32_t dt);
Type carrierType(MLIRContext *ctx, int32_t dt);
/// "float8e4m3fn", "int4", ...
const char *name(int32_t dt);
/// The f32 values of float8/float4 codes (exact).
Value decodeFloat(NodeImporter &n, Value codes, int32_t dt);
/// `x` (a Tide float, integer or bool tensor) converted to type `dt`, in
/// its carrier type, as ONNX's Cast (and ml_dtypes) converts; `saturate`
/// and `roundMode` are Cast's attributes.
Value encode(NodeImporter &n, Value x, int32_t dt, bool saturate,
             llvm::StringRef roundMode = "up");
} // namespace narrow

/// The graph being imported.
struct ImportedNode;

class GraphImporter {
public:
  GraphImporter(MLIRContext *ctx, OpBuilder &b, llvm::StringRef path)
      : ctx(ctx), b(b), path(path.str()) {}

  MLIRContext *ctx;
  OpBuilder &b;
  std::string path;
  std::string baseDir;
  llvm::StringMap<Value> values;
  llvm::StringMap<ElementsAttr> constants;
  /// Values known up to run-time sizes (Shape of a dynamic tensor, ...);
  /// materialized into `values` when an op reads their elements.
  llvm::StringMap<ShapeValue> shapes;
  /// The ONNX type of values of a narrow type (narrow::isNarrow), which
  /// their Tide type (the carrier) does not tell.
  llvm::StringMap<int32_t> narrowTypes;
  /// Dynamic dimensions of graph inputs that share a symbolic name
  /// (dim_param): each maps to the first one.
  llvm::DenseMap<std::pair<Value, int64_t>, std::pair<Value, int64_t>>
      dimAliases;
  /// tide.dim ops made so far, by canonical dimension.
  llvm::DenseMap<std::pair<Value, int64_t>, Value> dimValues;
  /// Sequence and optional values (Aggregate).
  llvm::StringMap<Aggregate> aggregates;
  /// The ranks the model declares for values of the main graph (its
  /// value_info and outputs that have a shape). Only where a rank cannot be
  /// computed (Squeeze without axes over run-time sizes) is it read.
  llvm::StringMap<int64_t> declaredRanks;
  /// Expands a node of a subgraph (an If branch, a Loop or Scan body) that
  /// calls a model-local function into the function's nodes, appended to
  /// the vector; false when the node calls none (set by expandFunctions).
  std::function<FailureOr<bool>(const onnx::NodeProto &, int64_t, Location,
                                std::vector<ImportedNode> &)>
      expandCall;

  /// Whether `name` has an entry (a value, a constant, a shape or an
  /// aggregate).
  bool defines(llvm::StringRef name) const {
    return values.count(name) || constants.count(name) || shapes.count(name) ||
           aggregates.count(name);
  }
  /// A name no ONNX value has.
  std::string freshName() { return "\x01element" + std::to_string(stashed++); }
  /// A copy of `name`'s entries under a new name (an element of a sequence),
  /// returned.
  std::string stash(llvm::StringRef name);
  /// `v` under a new name, returned.
  std::string stash(Value v);

  /// The canonical dimension whose size dimension `axis` of `v` has: the
  /// first one found following ops that keep the size (elementwise ops,
  /// transposes, matmuls, reshapes with a shape operand, ...) back to a
  /// graph input or an op that computes it.
  std::pair<Value, int64_t> rootOf(Value v, int64_t axis);
  /// Names of the function's arguments (graph inputs not bound).
  llvm::StringSet<> graphInputs;
  std::function<ElementsAttr(const onnx::TensorProto &, llvm::StringRef,
                             std::string &)>
      readTensor;

  Location nodeLoc(const onnx::NodeProto &node, int index);
  Location fileLoc();

private:
  unsigned stashed = 0;
};

/// `x` with `axis` reversed (a run-time size too) (ConvertOps.cpp).
Value reverseAlong(NodeImporter &n, Value x, int64_t axis);

/// A tide.scan over the leading axis of `sequences` (last to first with
/// `reverse`) carrying `inits` (BuildScan.cpp): `step` builds one iteration
/// in the scan's block from the position (tensor<i64>), the states and the
/// slices, with `n`'s helpers, and returns the new states (of the inits'
/// types) then the scan outputs. What it reads from outside becomes the
/// scan's invariants. With `conditional`, the first state is the loop's
/// condition (a tensor<i1>; the loop runs while it is true). Null, reported
/// at the node, on an error.
/// A tide.if on `cond` (a tensor<i1>) (BuildScan.cpp): `branch(true)` and
/// `branch(false)` build the then and else regions' ops with `n`'s helpers
/// and return what each yields. What they read from outside becomes the
/// op's invariants; a result is dynamic where the branches' sizes differ.
/// Null, reported at the node, on an error.
IfOp buildIf(NodeImporter &n, Value cond,
             function_ref<FailureOr<SmallVector<Value>>(bool)> branch);
ScanOp buildScan(NodeImporter &n, ValueRange inits, ValueRange sequences,
                 bool reverse, bool conditional,
                 function_ref<FailureOr<SmallVector<Value>>(
                     Value position, ValueRange states, ValueRange slices)>
                     step);

/// A node to convert, with the default-domain opset its semantics follow
/// (a model-local function's nodes follow the function's opset).
struct ImportedNode {
  const onnx::NodeProto *node;
  int64_t opset;
  Location loc;
};

/// The main graph's nodes in order, with every call of a model-local
/// function expanded into the function's nodes (InlineFunctions.cpp); sets
/// `graph.expandCall` for the calls in subgraphs.
/// Expanded nodes are kept in `storage`. `opset` is the model's default-domain
/// opset; a function importing a newer one than `maxOpset` is refused.
LogicalResult expandFunctions(const onnx::ModelProto &model, int64_t opset,
                              int64_t maxOpset, GraphImporter &graph,
                              std::vector<ImportedNode> &out,
                              std::deque<onnx::NodeProto> &storage);

} // namespace mlir::tide::onnx_import

#endif // TIDE_LIB_FRONTEND_ONNX_IMPORTER_H
