// The target enters the IR: placement records it on the module (tide.target),
// later passes read it from there, and a target= option only overrides it and
// must agree. Bad options and unknown targets are one error line, never a
// module printed in generic form.

// RUN: tide-opt %s --tide-place-devices=target=tensorflow-0.7 | FileCheck %s --check-prefix=RECORD
// RECORD: module attributes {tide.target = #tide.target<name = "tensorflow-0.7", source = "built-in", chips = {cpu = "", "cuda:0" = "sm_50"}>}

// The report reads the module's target: no option needed.
// RUN: tide-opt %s --tide-place-devices=target=tensorflow-0.7 --tide-placement-report -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=READ
// READ: placement of @mean on target tensorflow-0.7

// An override naming the same target is fine; another target is an error.
// RUN: tide-opt %s --tide-place-devices=target=tensorflow-0.7 \
// RUN:   --tide-verify-placement=target=tensorflow-0.7 -o /dev/null
// RUN: not tide-opt %s --tide-place-devices=target=tensorflow-0.7 --tide-verify-placement=target=cpu \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=DISAGREE --implicit-check-not=func.func
// DISAGREE: error: option target='cpu' disagrees with the target 'tensorflow-0.7' the module was placed for (its tide.target); drop the option, or remove tide.target to place again

// A file target is recorded by its absolute path: later tools find it from any
// directory, and an override naming the same file another way agrees.
// RUN: cd %S && tide-opt %s --tide-place-devices=target=Inputs/custom-ok.json -o %t.placed.mlir
// RUN: FileCheck %s --check-prefix=FILE < %t.placed.mlir
// FILE: tide.target = #tide.target<name = "custom-ok", source = "/{{.*}}/Inputs/custom-ok.json"
// RUN: cd / && tide-opt %t.placed.mlir --tide-verify-placement=target=%S/Inputs/custom-ok.json -o /dev/null
// RUN: cd / && tide-opt %t.placed.mlir --tide-placement-report -o /dev/null | FileCheck %s --check-prefix=FILE-READ
// FILE-READ: placement of @mean on target custom-ok

// Without tide.target and without an option: the default target (h200).
// RUN: tide-opt %s --tide-placement-report -o /dev/null | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: placement of @mean on target h200

// negative: a bad enum option is one line naming the option and the choices,
// before the IR is read; nothing of the module is printed.
// RUN: not tide-opt %s --tide-place-devices=copy-mode=fast 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-OPTION --implicit-check-not=tide.reduce_mean --implicit-check-not=func.func
// BAD-OPTION: error: invalid 'copy-mode' option 'fast'; expected pinned or pageable
// RUN: not tide-opt %s --tide-list-kernels=format=dot 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD-FORMAT --implicit-check-not=func.func
// BAD-FORMAT: error: invalid 'format' option 'dot'; expected text or json

// negative: an unknown target names the option and the built-in targets, at
// the module's location, without printing the module.
// RUN: not tide-opt %s --tide-place-devices=target=a100 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not=tide.reduce_mean --implicit-check-not=func.func
// UNKNOWN: error: invalid 'target' option: unknown target 'a100'; built-in targets are cpu, h100, h200, rtx3090, tensorflow-0.7, theano-0.7; 'native' is this machine as tide-calibrate measured it; or give the path of a .json target file

func.func @mean(%x: tensor<256xf32>) -> tensor<f32> {
  %m = tide.reduce_mean %x axes = [0] : tensor<256xf32>
  return %m : tensor<f32>
}
