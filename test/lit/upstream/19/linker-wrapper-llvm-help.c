// Port of LLVM 19's clang/test/Driver/linker-wrapper-llvm-help.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt): the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// REQUIRES: clang19
// Check that these simple command lines for listing LLVM options are supported,
// as claimed by 'clang-linker-wrapper --help'.

// RUN: %clang-linker-wrapper -mllvm --help 2>&1 | FileCheck "%s"
// RUN: %clang-linker-wrapper --offload-opt=--help 2>&1 | FileCheck "%s"

// Look for a few options supported only after -mllvm and --offload-opt.
//     CHECK: OPTIONS:
// Differs (docs/compat.md: LLVM options); upstream expects:
//   (dag) --passes=<string>
// CHECK-DAG: --lto-pass-remarks-output=<filename>
// Differs (docs/compat.md: LLVM options); upstream expects:
//   (dag) --load-pass-plugin=<string>
// CHECK-DAG: --nvptx-sched4reg
