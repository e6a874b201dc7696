//===- compiler.cpp - tide._compiler: tide-compile as a function ---------===//
//
// Part of the Tide project.
//
// Over Tide's compiler C API (include/tide-c/Compile.h).
//
//===----------------------------------------------------------------------===//

#include "tide-c/Compile.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

namespace nb = nanobind;

namespace {
struct Diagnostic {
  std::string severity, file, location, message;
  unsigned line, column;
};

struct Collected {
  std::vector<Diagnostic> diagnostics;
  std::vector<std::pair<std::string, std::string>> reports;
};

/// Compiles `source` (text, or a path with is_path) into `output`. Returns
/// (ok, [diagnostic dicts], {format: report}).
nb::tuple compile(const std::string &source, bool isPath,
                  const std::string &sourceName,
                  const std::vector<std::pair<std::string, std::string>> &opts,
                  const std::string &output) {
  std::vector<const char *> names, values;
  for (const auto &[name, value] : opts) {
    names.push_back(name.c_str());
    values.push_back(value.c_str());
  }
  Collected collected;
  int ok;
  {
    nb::gil_scoped_release release;
    ok = tideCompileToLibrary(
        source.data(), source.size(), isPath, sourceName.c_str(), names.data(),
        values.data(), names.size(), output.c_str(),
        [](const TideDiagnostic *d, void *user) {
          static_cast<Collected *>(user)->diagnostics.push_back(
              {d->severity, d->file, d->location, d->message, d->line,
               d->column});
        },
        [](const char *format, const char *text, size_t length, void *user) {
          static_cast<Collected *>(user)->reports.emplace_back(
              format, std::string(text, length));
        },
        &collected);
  }
  nb::list diagnostics;
  for (const Diagnostic &d : collected.diagnostics) {
    nb::dict entry;
    entry["severity"] = d.severity;
    entry["message"] = d.message;
    entry["location"] = d.location;
    entry["file"] =
        d.file.empty() ? nb::object(nb::none()) : nb::str(d.file.c_str());
    entry["line"] = d.line ? nb::object(nb::int_(d.line)) : nb::none();
    entry["column"] = d.column ? nb::object(nb::int_(d.column)) : nb::none();
    diagnostics.append(entry);
  }
  nb::dict reports;
  for (const auto &[format, text] : collected.reports)
    reports[format.c_str()] = text;
  return nb::make_tuple(ok != 0, diagnostics, reports);
}
} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "Tide's compiler: MLIR text, .mlir or .onnx to a shared library";
  m.def("compile", &compile, nb::arg("source"), nb::arg("is_path"),
        nb::arg("source_name"), nb::arg("options"), nb::arg("output"));
}
