//===- InlineFunctions.cpp - Model-local ONNX functions, expanded ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// A ModelProto may define functions (`ModelProto.functions`: exporters write
// a module or a composite op as one, e.g. `torch.onnx.export(...,
// export_modules_as_functions=...)` and onnxscript). A node whose (domain,
// op_type, overload) names one calls it. The importer converts nodes of the
// default domain only, so every call is expanded here, before conversion,
// into the function's nodes: formal inputs and outputs renamed to the call's
// actual names, the body's other values to names of their own, attributes
// that refer to the caller's (`ref_attr_name`) resolved against the call or
// the function's defaults, and each body node tagged with the default-domain
// opset its function imports. Calls nest; recursion is refused.
//
// Debian's onnx.proto (ONNX 1.12) predates NodeProto.overload (field 8),
// FunctionProto.attribute_proto (field 11) and FunctionProto.overload (field
// 13); those are read from the messages' unknown fields.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <memory>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

using google::protobuf::internal::WireFormatLite;

/// Length-delimited fields numbered `field` among `unknown` (the serialized
/// unknown fields of a lite message).
static SmallVector<std::string> unknownBytesFields(const std::string &unknown,
                                                   uint32_t field) {
  SmallVector<std::string> found;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t *>(unknown.data()),
      static_cast<int>(unknown.size()));
  while (uint32_t tag = in.ReadTag()) {
    if (static_cast<uint32_t>(WireFormatLite::GetTagFieldNumber(tag)) ==
            field &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      std::string bytes;
      if (!WireFormatLite::ReadBytes(&in, &bytes))
        break;
      found.push_back(std::move(bytes));
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  return found;
}

static std::string overloadOf(const onnx::NodeProto &node) {
  auto v = unknownBytesFields(node.unknown_fields(), 8);
  return v.empty() ? std::string() : v.back();
}

static std::string overloadOf(const onnx::FunctionProto &fn) {
  auto v = unknownBytesFields(fn.unknown_fields(), 13);
  return v.empty() ? std::string() : v.back();
}

static bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// "domain::name" with the overload when there is one.
static std::string functionKey(llvm::StringRef domain, llvm::StringRef name,
                               llvm::StringRef overload) {
  std::string key =
      (isDefaultDomain(domain) ? "" : domain.str()) + "::" + name.str();
  if (!overload.empty())
    key += "::" + overload.str();
  return key;
}

namespace {
struct Function {
  const onnx::FunctionProto *proto;
  int64_t opset;
  /// Default attribute values (FunctionProto.attribute_proto), by name.
  llvm::StringMap<onnx::AttributeProto> defaults;
};

struct Expander {
  GraphImporter &graph;
  llvm::StringMap<Function> functions;
  std::vector<ImportedNode> *out;
  std::deque<onnx::NodeProto> &storage;
  /// Functions being expanded (to refuse recursion).
  llvm::StringSet<> active;
  unsigned calls = 0;

  std::string describe(const onnx::FunctionProto &fn) {
    return "function '" + fn.name() + "'" +
           (fn.domain().empty() ? "" : " (domain '" + fn.domain() + "')");
  }

  const Function *lookup(const onnx::NodeProto &node) {
    // A function in the default domain only stands for op types Tide has no
    // converter for (it could not override an ONNX op anyway).
    if (isDefaultDomain(node.domain()) && lookupConverter(node.op_type()))
      return nullptr;
    auto it = functions.find(
        functionKey(node.domain(), node.op_type(), overloadOf(node)));
    return it == functions.end() ? nullptr : &it->second;
  }

  /// Appends `node` (at `opset`), expanding it when it calls a function.
  LogicalResult add(const onnx::NodeProto &node, int64_t opset, Location loc) {
    const Function *fn = lookup(node);
    if (!fn) {
      out->push_back({&node, opset, loc});
      return success();
    }
    return expand(node, *fn, loc);
  }

  LogicalResult expand(const onnx::NodeProto &call, const Function &fn,
                       Location loc) {
    const onnx::FunctionProto &proto = *fn.proto;
    std::string key =
        functionKey(proto.domain(), proto.name(), overloadOf(proto));
    if (active.contains(key))
      return emitError(loc) << describe(proto)
                            << " calls itself (directly or through another "
                               "function); ONNX functions cannot recurse";
    if (call.input_size() > proto.input_size())
      return emitError(loc)
             << "calls " << describe(proto) << " with " << call.input_size()
             << " inputs; it has " << proto.input_size();
    if (call.output_size() > proto.output_size())
      return emitError(loc)
             << "calls " << describe(proto) << " for " << call.output_size()
             << " outputs; it has " << proto.output_size();
    for (const auto &a : call.attribute())
      if (a.has_g() || a.graphs_size())
        return emitError(loc) << "attribute '" << a.name()
                              << "' of a function call is a graph, which Tide "
                                 "does not import";

    // Names inside the body: formals map to the call's names, everything
    // else to a name of this call's own.
    std::string prefix =
        "__fn" + std::to_string(calls++) + "_" + proto.name() + "/";
    llvm::StringMap<std::string> names;
    for (int i = 0; i < proto.input_size(); ++i)
      names[proto.input(i)] = i < call.input_size() ? call.input(i) : "";
    llvm::StringSet<> defined;
    for (const std::string &input : proto.input())
      defined.insert(input);
    // An output that is also an input keeps the input's value (copied to
    // the call's output below).
    for (int i = 0; i < proto.output_size(); ++i)
      if (!defined.contains(proto.output(i)))
        names[proto.output(i)] =
            i < call.output_size() && !call.output(i).empty()
                ? call.output(i)
                : prefix + proto.output(i);

    std::string callName =
        call.name().empty() ? std::string("#call") : call.name();
    active.insert(key);
    for (int k = 0; k < proto.node_size(); ++k) {
      const onnx::NodeProto &inner = proto.node(k);
      storage.emplace_back(inner);
      onnx::NodeProto &copy = storage.back();
      copy.set_name(
          callName + "/" +
          (inner.name().empty() ? "#" + std::to_string(k) : inner.name()));
      Location innerLoc = graph.nodeLoc(copy, k);
      for (int i = 0; i < copy.input_size(); ++i) {
        const std::string &name = inner.input(i);
        if (name.empty())
          continue;
        if (!defined.contains(name))
          return emitError(innerLoc)
                 << "reads '" << name << "', which is neither an input of "
                 << describe(proto) << " nor produced earlier in its body";
        copy.set_input(i, names.lookup(name));
      }
      for (int i = 0; i < copy.output_size(); ++i) {
        const std::string &name = inner.output(i);
        if (name.empty())
          continue;
        defined.insert(name);
        auto it = names.find(name);
        if (it == names.end())
          it = names.try_emplace(name, prefix + name).first;
        copy.set_output(i, it->second);
      }
      // Attributes referring to the caller's.
      copy.clear_attribute();
      for (const auto &a : inner.attribute()) {
        if (a.ref_attr_name().empty()) {
          if (a.has_g() || a.graphs_size())
            return emitError(innerLoc)
                   << "attribute '" << a.name()
                   << "' is a graph, which Tide does not import";
          *copy.add_attribute() = a;
          continue;
        }
        const onnx::AttributeProto *given = nullptr;
        for (const auto &c : call.attribute())
          if (c.name() == a.ref_attr_name())
            given = &c;
        if (!given) {
          auto d = fn.defaults.find(a.ref_attr_name());
          if (d != fn.defaults.end())
            given = &d->second;
        }
        if (!given)
          continue; // Neither given nor defaulted: the attribute is absent.
        onnx::AttributeProto *resolved = copy.add_attribute();
        *resolved = *given;
        resolved->set_name(a.name());
      }
      if (failed(add(copy, fn.opset, innerLoc)))
        return failure();
    }
    active.erase(key);
    // Outputs the call asks for that the body never produced.
    for (int i = 0; i < call.output_size(); ++i)
      if (!call.output(i).empty() && !defined.contains(proto.output(i)))
        return emitError(loc)
               << describe(proto) << " never produces its output '"
               << proto.output(i) << "'";
    // Outputs that are inputs of the function: an Identity each.
    for (int i = 0; i < call.output_size(); ++i) {
      if (call.output(i).empty() ||
          !llvm::is_contained(proto.input(), proto.output(i)))
        continue;
      storage.emplace_back();
      onnx::NodeProto &copy = storage.back();
      copy.set_op_type("Identity");
      copy.set_name(callName + "/output " + std::to_string(i));
      copy.add_input(names.lookup(proto.output(i)));
      copy.add_output(call.output(i));
      out->push_back({&copy, fn.opset, graph.nodeLoc(copy, 0)});
    }
    return success();
  }
};
} // namespace

LogicalResult
onnx_import::expandFunctions(const onnx::ModelProto &model, int64_t opset,
                             int64_t maxOpset, GraphImporter &graph,
                             std::vector<ImportedNode> &out,
                             std::deque<onnx::NodeProto> &storage) {
  auto shared =
      std::make_shared<Expander>(Expander{graph, {}, &out, storage, {}, 0});
  Expander &e = *shared;
  for (const onnx::FunctionProto &fn : model.functions()) {
    Location fnLoc = graph.fileLoc();
    int64_t fnOpset = opset;
    for (const auto &imp : fn.opset_import())
      if (isDefaultDomain(imp.domain()))
        fnOpset = imp.version();
    if (fnOpset > maxOpset)
      return emitError(fnLoc)
             << e.describe(fn) << " imports ONNX opset " << fnOpset
             << "; Tide knows opsets up to " << maxOpset;
    std::string key = functionKey(fn.domain(), fn.name(), overloadOf(fn));
    Function f{&fn, fnOpset, {}};
    for (const std::string &bytes :
         unknownBytesFields(fn.unknown_fields(), 11)) {
      onnx::AttributeProto a;
      if (!a.ParseFromString(bytes))
        return emitError(fnLoc) << e.describe(fn)
                                << " has a default attribute that does not "
                                   "parse";
      std::string name = a.name();
      f.defaults[name] = std::move(a);
    }
    if (!e.functions.try_emplace(key, std::move(f)).second)
      return emitError(fnLoc)
             << e.describe(fn) << " is defined twice in the model";
  }
  int index = 0;
  for (const onnx::NodeProto &node : model.graph().node()) {
    if (failed(e.add(node, opset, graph.nodeLoc(node, index++))))
      return failure();
  }
  // Calls inside subgraphs are expanded as the importer meets them.
  graph.expandCall =
      [shared](const onnx::NodeProto &node, int64_t nodeOpset, Location loc,
               std::vector<ImportedNode> &into) -> FailureOr<bool> {
    const Function *fn = shared->lookup(node);
    if (!fn)
      return false;
    std::vector<ImportedNode> *saved = shared->out;
    shared->out = &into;
    LogicalResult done = shared->expand(node, *fn, loc);
    shared->out = saved;
    if (failed(done))
      return failure();
    return true;
  };
  return success();
}
