//===- tide-calibrate.cpp - Measure this machine for the cost model ------===//
//
// Part of the Tide project.
//
//   tide-calibrate [-o FILE] [--quick] [--save-native | --no-save-native]
//                  [--kernels=auto|native|prebuilt] [--quiet]
//
// Writes a target file with this machine's figures (tide/Calibrate/
// Calibrate.h) and saves it as the `native` target (--target=native).
//
//===----------------------------------------------------------------------===//

#include "tide/Calibrate/Calibrate.h"
#include "tide/Support/NativeTarget.h"

#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>
#include <unistd.h>

using namespace tide::calibrate;

int main(int argc, char **argv) {
  // The kernels timed malloc their results and the calibrator frees them, as
  // tide-run does with a module's: keep freed memory in the heap, as
  // tide-run does, so that each call writes warm pages. Otherwise every call
  // of a 2048^3 GEMM faults in a fresh 32 MB result from all of its threads
  // at once (on a 16-core host that took about as long as the product: the
  // f64 GEMM calibrated at 0.59-0.76 of tide-run's figure for the same
  // kernel), and the figure would be the kernel's plus the page faults'.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  auto fail = [](const std::string &message) {
    std::fprintf(stderr, "tide-calibrate: error: %s\n", message.c_str());
    std::exit(1);
  };
  std::string output;
  bool quick = false, quiet = false;
  int saveNative = -1; // -1: the default (save unless --quick)
  KernelChoice kernels = KernelChoice::Auto;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::printf(
          "usage: tide-calibrate [options]\n"
          "Measures this machine (CPU, and the GPU Tide's runtime drives) and "
          "writes a\ntarget file for Tide's placement cost model.\n"
          "  -o FILE            target file to write (default: "
          "<host>-<gpu>.json here)\n"
          "  --quick            tiny sizes, done in seconds: for tests, the "
          "figures mean\n"
          "                     nothing\n"
          "  --save-native      also save it as this machine's `native` "
          "target (the\n"
          "                     default without --quick)\n"
          "  --no-save-native   do not save it as the `native` target\n"
          "  --kernels=K        the CPU kernels timed: native (compiled here "
          "by the\n"
          "                     tide-compile next to tide-calibrate, as your "
          "code is),\n"
          "                     prebuilt (built with Tide for x86-64-v3), or "
          "auto\n"
          "                     (native where tide-compile is, without "
          "--quick)\n"
          "  --quiet            no progress display\n");
      return 0;
    }
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= argc)
        fail(arg + " needs a file name");
      output = argv[++i];
    } else if (arg.rfind("-o", 0) == 0 && arg.size() > 2 && arg[2] != '-') {
      output = arg.substr(arg[2] == '=' ? 3 : 2);
    } else if (arg.rfind("--output=", 0) == 0) {
      output = arg.substr(9);
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--save-native") {
      saveNative = 1;
    } else if (arg == "--no-save-native") {
      saveNative = 0;
    } else if (arg.rfind("--kernels=", 0) == 0) {
      std::string value = arg.substr(10);
      if (value == "auto")
        kernels = KernelChoice::Auto;
      else if (value == "native")
        kernels = KernelChoice::Native;
      else if (value == "prebuilt")
        kernels = KernelChoice::Prebuilt;
      else
        fail("invalid --kernels '" + value +
             "'; expected auto, native or prebuilt");
    } else {
      fail("unknown argument '" + arg + "' (see --help)");
    }
  }
  if (saveNative < 0)
    saveNative = quick ? 0 : 1;

  // Every path is checked before the measurements, which take a while.
  std::string error, nativePath;
  if (saveNative) {
    nativePath = tide::getNativeTargetPath(error);
    if (nativePath.empty())
      fail(error + " (or give --no-save-native)");
  }
  if (!output.empty() && !checkWritable(output, error))
    fail(error);
  if (output.empty() && !checkWritable("./target.json", error))
    fail("cannot write in the current directory: give -o FILE");

  bool tty = !quiet && isatty(STDERR_FILENO);
  auto clearLine = [&] {
    if (tty)
      std::fprintf(stderr, "\r\033[K");
  };
  Options options;
  options.quick = quick;
  options.kernels = kernels;
  if (!quiet)
    options.progress = [&](const std::string &step, int index, int total) {
      if (!tty) {
        std::fprintf(stderr, "tide-calibrate: [%d/%d] %s\n", index, total,
                     step.c_str());
        return;
      }
      int width = 24, done = width * (index - 1) / total;
      clearLine();
      std::fprintf(stderr, "[%s%s] %d/%d %s", std::string(done, '#').c_str(),
                   std::string(width - done, '.').c_str(), index, total,
                   step.c_str());
      std::fflush(stderr);
    };
  options.note = [&](const std::string &note) {
    clearLine();
    std::fprintf(stderr, "tide-calibrate: note: %s\n", note.c_str());
  };

  Calibration calibration;
  if (!calibrate(options, calibration, error))
    fail(error);
  clearLine();

  std::string json = toTargetJSON(calibration);
  if (output.empty())
    output = getMachineName(calibration) + ".json";
  if (!writeFileAtomically(output, json, /*createDirectory=*/false, error))
    fail(error);
  if (saveNative &&
      !writeFileAtomically(nativePath, json, /*createDirectory=*/true, error))
    fail(error);
  if (!quiet) {
    std::fprintf(stderr, "%s", formatSummary(calibration).c_str());
    std::fprintf(stderr, "tide-calibrate: wrote %s\n", output.c_str());
    if (saveNative)
      std::fprintf(stderr,
                   "tide-calibrate: saved as this machine's native target "
                   "(--target=native): %s\n",
                   nativePath.c_str());
  }
  return 0;
}
