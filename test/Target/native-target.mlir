// The `native` target: this machine as tide-calibrate measured it, read from
// $XDG_CACHE_HOME/tide/native-<host>.json (else ~/.cache/tide/...). Without
// a calibration every tool says to run tide-calibrate; a calibration is
// checked like any target file, recorded in the IR by its path, and named
// `native` again by later options. tide-calibrate itself is tested in
// test/Tools/tide-calibrate.test (it writes the file).

// RUN: rm -rf %t && mkdir -p %t/empty %t/cache/tide %t/bad/tide %t/home

// No calibration: the compiler's tools and passes say what to do.
// RUN: env XDG_CACHE_HOME=%t/empty not tide-opt %s -o /dev/null --tide-list-kernels=target=native 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: env XDG_CACHE_HOME=%t/empty not tide-opt %s -o /dev/null --tide-place-pipeline=target=native 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: env XDG_CACHE_HOME=%t/empty not tide-compile %s --target=native -o %t/x.so 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE
// NONE: error: invalid 'target' option: target 'native': this machine ({{.+}}) has not been calibrated (no {{.*}}empty/tide/native-{{.+}}.json); run tide-calibrate to measure it (a few minutes), or choose another target

// XDG_CACHE_HOME must be absolute; HOME is used otherwise, and without either
// there is no cache directory.
// RUN: env XDG_CACHE_HOME=relative HOME=%t/home not tide-opt %s -o /dev/null --tide-list-kernels=target=native 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HOME
// HOME: has not been calibrated (no {{.*}}home/.cache/tide/native-{{.+}}.json)
// RUN: env XDG_CACHE_HOME=relative HOME=relative not tide-opt %s -o /dev/null --tide-list-kernels=target=native 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-DIR
// NO-DIR: error: invalid 'target' option: target 'native': no cache directory for the native target: neither XDG_CACHE_HOME nor HOME is an absolute path

// A calibration file is checked like any target file (the file is named
// after this host, as tide-calibrate names it).
// RUN: %python -c "import re, shutil, socket, sys; shutil.copy(sys.argv[1], sys.argv[2] + '/native-' + re.sub('[^A-Za-z0-9._-]', '_', socket.gethostname()) + '.json')" %S/Inputs/negative-bw.json %t/bad/tide
// RUN: env XDG_CACHE_HOME=%t/bad not tide-opt %s -o /dev/null --tide-list-kernels=target=native 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: invalid 'target' option: {{.*}}bad/tide/native-{{.+}}.json: devices[0].bandwidth_gbps: must be a positive number

// A valid one is the target: placed for, recorded by its path, and named
// `native` again by a later option.
// RUN: %python -c "import re, shutil, socket, sys; shutil.copy(sys.argv[1], sys.argv[2] + '/native-' + re.sub('[^A-Za-z0-9._-]', '_', socket.gethostname()) + '.json')" %S/Inputs/custom-ok.json %t/cache/tide
// RUN: env XDG_CACHE_HOME=%t/cache tide-opt %s -o /dev/null --tide-list-kernels=target=native \
// RUN:   | FileCheck %s --check-prefix=LIST
// LIST: target custom-ok ({{.*}}cache/tide/native-{{.+}}.json): A valid target file
// RUN: env XDG_CACHE_HOME=%t/cache tide-opt %s --tide-place-devices=target=native -o %t/placed.mlir
// RUN: FileCheck %s --check-prefix=RECORD < %t/placed.mlir
// RECORD: tide.target = #tide.target<name = "custom-ok", source = "{{.*}}cache/tide/native-{{.+}}.json"
// RUN: env XDG_CACHE_HOME=%t/cache tide-opt %t/placed.mlir --tide-verify-placement=target=native -o /dev/null
// RUN: env XDG_CACHE_HOME=%t/cache tide-compile %s --target=native --no-remarks -o %t/exp.so

func.func @exp(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = tide.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
