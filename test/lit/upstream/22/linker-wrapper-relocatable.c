// Port of LLVM 22's clang/test/Driver/linker-wrapper.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt), rebuilt from the nearest upstream
// revisions (22.1.8's own text was not at hand) and checked line by line
// against the clang-linker-wrapper 22.1.8 binary: the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// The relocatable (-r) parts of upstream's file.  docs/compat.md,
// "Relocatable links": llvm-objcopy writes a temp file beside the output,
// renamed over it when it succeeds, where upstream edits the output in place
// (upstream's lines check "a.out --remove-section .llvm.offloading").
// REQUIRES: clang22

// An externally visible variable so static libraries extract.
__attribute__((visibility("protected"), used)) int x;

// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.elf.o"
// RUN: %clang22 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -o "%t.nvptx.bc"
// RUN: %clang22 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -o "%t.amdgpu.bc"
// RUN: %clang22 -cc1 "%s" -triple spirv64-unknown-unknown -emit-llvm-bc -o "%t.spirv.bc"

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld.lld -r "%t.o" \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=RELOCATABLE-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.x86_64..img. --target=x86_64-unknown-linux-gnu
// RELOCATABLE-LINK: "/usr/bin/ld.lld" -shared -Bsymbolic --eh-frame-hdr -o {{.*}}/a.out.x86_64.-{{.*}}.img
// RELOCATABLE-LINK: /usr/bin/ld.lld{{.*}}-r
// RELOCATABLE-LINK: llvm-objcopy{{.*}}a.out a.out.tmp-{{[^ ]+}} --remove-section .llvm.offloading

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_89" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_89"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld.lld -r "%t.o" \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=RELOCATABLE-LINK-CUDA

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.nvptx64.sm_89.img. --target=nvptx64-nvidia-cuda
// RELOCATABLE-LINK-CUDA: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_89 -o {{.*}}/a.out.nvptx64.sm_89-{{.*}}.img
// RELOCATABLE-LINK-CUDA: fatbinary{{.*}} -64 --create {{.*}}.fatbin --image3=kind=elf,sm=89,file={{.*}}.img
// RELOCATABLE-LINK-CUDA: /usr/bin/ld.lld{{.*}}-r
// RELOCATABLE-LINK-CUDA: llvm-objcopy{{.*}}a.out a.out.tmp-{{[^ ]+}} --remove-section .llvm.offloading
