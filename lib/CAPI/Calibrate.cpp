//===- Calibrate.cpp - C API for measuring this machine ------------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide-c/Calibrate.h"

#include "tide/Calibrate/Calibrate.h"
#include "tide/Support/NativeTarget.h"

#include <cstring>

using namespace tide::calibrate;

int tideCalibrate(const TideCalibrateOptions *options, char **targetJson,
                  char **nativePath, char **error) {
  for (char **out : {targetJson, nativePath, error})
    if (out)
      *out = nullptr;
  auto failed = [&](const std::string &message) {
    if (error)
      *error = strdup(message.c_str());
    return 0;
  };
  TideCalibrateOptions none{};
  const TideCalibrateOptions &o = options ? *options : none;
  std::string problem, native;
  if (o.saveNative) {
    native = tide::getNativeTargetPath(problem);
    if (native.empty())
      return failed(problem);
  }
  std::string output = o.output ? o.output : "";
  if (!output.empty() && !checkWritable(output, problem))
    return failed(problem);

  Options calibrateOptions;
  calibrateOptions.quick = o.quick != 0;
  if (o.progress)
    calibrateOptions.progress = [&o](const std::string &step, int index,
                                     int total) {
      o.progress(step.c_str(), index, total, o.userData);
    };
  if (o.note)
    calibrateOptions.note = [&o](const std::string &note) {
      o.note(note.c_str(), o.userData);
    };
  Calibration calibration;
  if (!calibrate(calibrateOptions, calibration, problem))
    return failed(problem);
  std::string json = toTargetJSON(calibration);
  if (!output.empty() && !writeFileAtomically(output, json, false, problem))
    return failed(problem);
  if (!native.empty() && !writeFileAtomically(native, json, true, problem))
    return failed(problem);
  if (targetJson)
    *targetJson = strdup(json.c_str());
  if (nativePath && !native.empty())
    *nativePath = strdup(native.c_str());
  return 1;
}
