#!/usr/bin/env python3
"""Checks that Tide's libraries depend on each other only as the layer graph
allows (README, "Layout"): every `#include "tide/..."` / `"tide-c/..."` line
and every Tide library named in a CMake link list must be an edge of ALLOWED,
and ALLOWED itself must have no cycle.

Usage: check-layers.py [REPO_ROOT]    (prints the violations; exit 1 if any)
"""
import os
import re
import sys

# Component -> the folders (or files) that hold it, most specific first.
# Header-only components (Support, the conversion pass declarations, the
# runtime's symbol list) have no library of their own.
COMPONENTS = [
    ("TideIR", ["dialects/tide/IR"]),
    ("TideDialectTransforms", ["dialects/tide/Transforms"]),
    ("TideSupport", ["include/tide/Support"]),
    ("TideModuleABI", ["lib/ABI", "include/tide/ABI"]),
    ("TideRuntimeABI", ["include/tide/Runtime"]),
    ("TideRuntime", ["lib/Runtime"]),
    ("TideRunner", ["lib/Runner", "include/tide/Runner"]),
    ("TideCalibrate", ["lib/Calibrate", "include/tide/Calibrate"]),
    ("TideTarget", ["lib/Target", "include/tide/Target"]),
    ("TidePlacement", ["lib/Placement", "include/tide/Placement"]),
    ("TideGemmMatchers", ["lib/Conversion/GemmMatchers", "include/tide/Conversion/GemmMatchers",
                          "lib/Conversion/GemmMatchers.cpp", "include/tide/Conversion/GemmMatchers.h"]),
    ("TideToLinalg", ["lib/Conversion/TideToLinalg", "include/tide/Conversion/TideToLinalg"]),
    ("TideLinalgToGPU", ["lib/Conversion/LinalgToGPU", "include/tide/Conversion/LinalgToGPU"]),
    ("TideConversionPasses", ["include/tide/Conversion"]),
    ("TideLowering", ["lib/Lowering", "include/tide/Lowering"]),
    ("TidePipelines", ["lib/Pipelines", "include/tide/Pipelines"]),
    ("TideCompiler", ["lib/Compiler", "include/tide/Compiler"]),
    ("TideONNXImport", ["lib/Frontend/ONNX", "include/tide/Frontend/ONNX"]),
    ("TideInitAll", ["lib/InitAll.cpp", "include/tide/InitAll.h"]),
    ("TideCAPI", ["lib/CAPI", "include/tide-c"]),
    ("TideRunnerCAPI", ["lib/CAPI/Runner.cpp", "include/tide-c/Runner.h",
                        "lib/CAPI/Calibrate.cpp", "include/tide-c/Calibrate.h"]),
    ("TideCompilerCAPI", ["lib/CAPI/Compile.cpp", "include/tide-c/Compile.h"]),
    ("TidePython", ["python"]),
    ("TidePlugins", ["lib/Plugins"]),
    ("tide-opt", ["tools/tide-opt"]),
    ("tide-compile", ["tools/tide-compile"]),
    ("tide-run", ["tools/tide-run"]),
    ("tide-calibrate", ["tools/tide-calibrate"]),
    ("tide-import-onnx", ["tools/tide-import-onnx"]),
    ("tide-lsp-server", ["tools/tide-lsp-server"]),
]

# CMake targets that belong to a component under another name.
TARGET_ALIASES = {
    "TideCpuRuntime": "TideRuntime", "TideCudaRuntime": "TideRuntime",
    "TideDialectPlugin": "TidePlugins", "TidePassPlugin": "TidePlugins",
    "TideONNXProto": "TideONNXImport",
}

PASS_LIBS = ["TidePlacement", "TideConversionPasses", "TideToLinalg", "TideLinalgToGPU",
             "TideLowering", "TidePipelines"]

# The allowed direct dependencies. Lower layers never name higher ones.
ALLOWED = {
    "TideSupport": [],
    "TideIR": [],
    "TideDialectTransforms": ["TideIR"],
    "TideModuleABI": [],
    "TideRuntimeABI": [],
    "TideRuntime": ["TideRuntimeABI"],
    "TideRunner": ["TideModuleABI", "TideRuntimeABI"],
    # Measures the machine through Tide's runtimes and compiled kernels; no
    # LLVM or MLIR (like TideRunner).
    "TideCalibrate": ["TideRunner", "TideRuntime", "TideRuntimeABI", "TideModuleABI",
                      "TideSupport"],
    "TideTarget": ["TideIR", "TideSupport"],
    "TidePlacement": ["TideTarget", "TideDialectTransforms", "TideIR", "TideSupport"],
    "TideGemmMatchers": ["TideIR"],
    "TideConversionPasses": ["TideIR", "TideSupport"],
    "TideToLinalg": ["TideConversionPasses", "TideDialectTransforms", "TideIR"],
    "TideLinalgToGPU": ["TideConversionPasses", "TideGemmMatchers", "TideRuntimeABI", "TideIR"],
    "TideLowering": ["TideTarget", "TideGemmMatchers", "TideRuntimeABI", "TideIR"],
    "TidePipelines": PASS_LIBS[:-1] + ["TideTarget", "TideIR", "TideSupport"],
    "TideCompiler": ["TidePipelines", "TidePlacement", "TideTarget", "TideIR", "TideSupport",
                     "TideRuntimeABI", "TideModuleABI"],
    "TideInitAll": PASS_LIBS + ["TideDialectTransforms", "TideGemmMatchers", "TideTarget",
                                "TideIR", "TideSupport"],
    "TideONNXImport": ["TideIR", "TideSupport"],
    "TideCAPI": ["TideONNXImport", "TideInitAll", "TidePipelines", "TidePlacement", "TideTarget", "TideIR",
                 "TideSupport"],
    # Shared libraries with plain C interfaces for run-time loading (Python).
    "TideRunnerCAPI": ["TideRunner", "TideCalibrate", "TideSupport"],
    "TideCompilerCAPI": ["TideCompiler", "TideONNXImport", "TideInitAll", "TidePlacement",
                         "TideTarget", "TideIR", "TideSupport"],
    # The Python package's extensions: Tide's shared C API libraries only.
    "TidePython": ["TideRunnerCAPI", "TideCompilerCAPI"],
    "TidePlugins": ["TideInitAll"],
    "tide-lsp-server": ["TideInitAll"],
    "tide-opt": ["TideInitAll"],
    "tide-import-onnx": ["TideONNXImport", "TideInitAll", "TideIR", "TideSupport"],
    "tide-compile": ["TideONNXImport", "TideCompiler", "TideInitAll", "TidePlacement", "TidePipelines",
                     "TideTarget", "TideIR", "TideSupport", "TideModuleABI"],
    "tide-run": ["TideRunner", "TideCalibrate", "TideModuleABI", "TideRuntimeABI"],
    "tide-calibrate": ["TideCalibrate", "TideSupport"],
}


def component_of(path):
    """The component holding repository-relative `path`, or None."""
    best = None
    for name, places in COMPONENTS:
        for place in places:
            if path == place or path.startswith(place + "/"):
                if best is None or len(place) > len(best[1]):
                    best = (name, place)
    return best[0] if best else None


def header_component(include):
    """The component of an included Tide header ("tide/IR/TideOps.h")."""
    if include.startswith("tide-c/"):
        return component_of("include/" + include)
    if include.startswith("tide/IR/"):
        return "TideIR"
    if include.startswith("tide/Transforms/"):
        return "TideDialectTransforms"
    return component_of("include/" + include)


def find_cycle(graph):
    state = {}

    def visit(node, stack):
        state[node] = 1
        for dep in graph.get(node, []):
            if state.get(dep) == 1:
                return stack + [node, dep]
            if state.get(dep) is None:
                found = visit(dep, stack + [node])
                if found:
                    return found
        state[node] = 2
        return None

    for node in graph:
        if state.get(node) is None:
            found = visit(node, [])
            if found:
                return found
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    cycle = find_cycle(ALLOWED)
    if cycle:
        problems.append("the allowed graph has a cycle: " + " -> ".join(cycle))
    include_re = re.compile(r'^\s*#\s*include\s+"(tide(?:-c)?/[^"]+)"')
    link_re = re.compile(r"\b(Tide[A-Za-z]+)\b")
    seen_edges = 0
    for top in ("dialects", "include", "lib", "tools", "python"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                path = os.path.relpath(os.path.join(dirpath, f), root)
                comp = component_of(path)
                if comp is None:
                    if f.endswith((".cpp", ".h", ".c", ".td")):
                        problems.append("%s: in no component of the layer graph "
                                        "(add it to COMPONENTS in scripts/check-layers.py)" % path)
                    continue
                full = os.path.join(root, path)
                if f.endswith((".cpp", ".h", ".c", ".inc", ".def")):
                    with open(full, errors="replace") as fh:
                        for n, line in enumerate(fh, 1):
                            m = include_re.match(line)
                            if not m or m.group(1).endswith(".inc"):
                                continue
                            dep = header_component(m.group(1))
                            seen_edges += 1
                            if dep is None:
                                problems.append("%s:%d: includes %s, which is in no component"
                                                % (path, n, m.group(1)))
                            elif dep != comp and dep not in ALLOWED.get(comp, []):
                                problems.append("%s:%d: %s includes %s (%s); the layer graph "
                                                "does not allow %s -> %s"
                                                % (path, n, comp, m.group(1), dep, comp, dep))
                elif f == "CMakeLists.txt":
                    text = open(full).read()
                    for m in re.finditer(r"(tide_add_library|add_library|target_link_libraries|"
                                         r"add_executable)\(\s*([\w${}-]+)([^)]*)\)", text):
                        kind, target, body = m.groups()
                        owner = TARGET_ALIASES.get(target, target)
                        if owner.startswith("$"):
                            owner = comp
                        if owner not in ALLOWED:
                            owner = comp
                        if kind in ("tide_add_library", "add_library") and "LINK_LIBS" not in body:
                            continue
                        if kind == "tide_add_library":
                            body = body.split("LINK_LIBS", 1)[1]
                        for lib in link_re.findall(body):
                            dep = TARGET_ALIASES.get(lib, lib)
                            if dep not in ALLOWED or dep == owner:
                                continue
                            seen_edges += 1
                            if dep not in ALLOWED.get(owner, []):
                                problems.append("%s: %s links %s; the layer graph does not "
                                                "allow %s -> %s" % (path, owner, lib, owner, dep))
    for p in problems:
        print(p)
    print("%d dependency lines checked, %d violations" % (seen_edges, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
