// Port of LLVM 19's clang/test/Driver/linker-wrapper.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt): the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// The CUDA case of upstream's file: registration objects in upstream's order
// (OpenMP's before CUDA's when a CUDA image comes first).
// REQUIRES: clang19

// An externally visible variable so static libraries extract.
__attribute__((visibility("protected"), used)) int x;

// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.elf.o"
// RUN: %clang19 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -o "%t.nvptx.bc"
// RUN: %clang19 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -o "%t.amdgpu.bc"

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" \
// RUN:   "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu \
// RUN: --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CUDA

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o [[IMG_SM70:.+]] --target=nvptx64-nvidia-cuda -march=sm_70
// CUDA: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o [[IMG_SM70:[^ ]+]]
// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o [[IMG_SM52:.+]] --target=nvptx64-nvidia-cuda -march=sm_52
// CUDA: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_52 -o [[IMG_SM52:[^ ]+]]
// Differs (docs/compat.md: CUDA fatbinary); upstream expects:
//   fatbinary{{.*}}-64 --create {{.*}}.fatbin --image=profile=sm_70,file=[[IMG_SM70]] --image=profile=sm_52,file=[[IMG_SM52]]
// CUDA: fatbinary{{.*}}-64 --create {{.*}}.fatbin --image3=kind=elf,sm=70,file=[[IMG_SM70]] --image3=kind=elf,sm=52,file=[[IMG_SM52]]{{$}}
// CUDA: usr/bin/ld{{.*}} {{.*}}.openmp.image.{{.*}}.o {{.*}}.cuda.image.{{.*}}.o
