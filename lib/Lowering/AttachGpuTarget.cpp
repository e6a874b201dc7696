//===- AttachGpuTarget.cpp - NVVM targets from the module's tide.target --===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "tide/Target/Target.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <mutex>

namespace mlir::tide {
#define GEN_PASS_DEF_ATTACHGPUTARGETPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

/// The sm_NN chips `ptxas --help` of `toolkit` lists for --gpu-name, sorted
/// by number; empty when ptxas cannot be run (then nothing is checked).
const std::vector<std::string> &supportedChips(StringRef toolkit) {
  static std::mutex mutex;
  static llvm::StringMap<std::vector<std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(toolkit);
  if (it != cache.end())
    return it->second;
  std::vector<std::string> &chips = cache[toolkit];
  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  SmallString<128> output;
  if (!llvm::sys::fs::exists(ptxas) ||
      llvm::sys::fs::createTemporaryFile("tide-ptxas-help", "txt", output))
    return chips;
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(output),
                                          StringRef(output)};
  StringRef args[] = {ptxas, "--help"};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  auto buffer = llvm::MemoryBuffer::getFile(output);
  llvm::sys::fs::remove(output);
  if (rc != 0 || !buffer)
    return chips;
  // "Allowed values for this option: 'compute_100', ..., 'sm_90a'" after
  // --gpu-name.
  StringRef text = (*buffer)->getBuffer();
  size_t at = text.find("--gpu-name");
  if (at == StringRef::npos)
    return chips;
  text = text.drop_front(at);
  text = text.take_front(text.find("\n--", 1));
  llvm::Regex sm("'(sm_[0-9]+)'");
  SmallVector<StringRef> match;
  while (sm.match(text, &match)) {
    if (!llvm::is_contained(chips, match[1].str()))
      chips.push_back(match[1].str());
    text = text.drop_front(text.find(match[0]) + match[0].size());
  }
  llvm::sort(chips, [](const std::string &a, const std::string &b) {
    unsigned x = 0, y = 0;
    StringRef(a).drop_front(3).getAsInteger(10, x);
    StringRef(b).drop_front(3).getAsInteger(10, y);
    return x < y;
  });
  return chips;
}

struct AttachGpuTargetPass
    : public tide::impl::AttachGpuTargetPassBase<AttachGpuTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    FailureOr<const Target *> target = resolveTarget(module, "");
    if (failed(target))
      return signalPassFailure();
    const DeviceSpec *gpu = (*target)->getFirstGPU();
    std::string chosen = chip;
    bool recorded = module->hasAttr(TideDialect::getTargetAttrName()) && gpu;
    if (chosen.empty()) {
      if (!gpu) {
        emitError(loc) << "target '" << (*target)->name
                       << "' has no GPU, so there is no chip to build GPU "
                          "code for; name one with chip=";
        return signalPassFailure();
      }
      chosen = gpu->chip;
    } else if (recorded && chosen != gpu->chip) {
      emitError(loc) << "option chip='" << chosen << "' disagrees with the "
                     << gpu->chip << " of target '" << (*target)->name
                     << "' the module was placed for (its tide.target)";
      return signalPassFailure();
    }
    if (!toolkit.empty()) {
      const std::vector<std::string> &chips = supportedChips(toolkit);
      if (!chips.empty() && !llvm::is_contained(chips, chosen)) {
        emitError(loc) << "GPU chip " << chosen << " (target '"
                       << (*target)->name
                       << "') cannot be built by the CUDA toolkit at '"
                       << toolkit << "': its ptxas builds for " << chips.front()
                       << " to " << chips.back()
                       << " only. A target for older chips still serves for "
                          "placement and reports (tide-opt "
                          "--tide-place-pipeline=\"target="
                       << (*target)->name
                       << " report=text\"); to build code, use a toolkit "
                          "that supports "
                       << chosen << " or a target for a newer GPU";
        return signalPassFailure();
      }
    }
    OpPassManager pm(ModuleOp::getOperationName());
    GpuNVVMAttachTargetOptions options;
    options.chip = chosen;
    options.features = features;
    options.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(options));
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

} // namespace
