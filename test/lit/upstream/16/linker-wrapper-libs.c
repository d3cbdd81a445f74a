// Port of LLVM 16's clang/test/Driver/linker-wrapper-libs.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt): the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// REQUIRES: clang16

// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.elf.o"

#if defined(RESOLVES)
int __attribute__((visibility("hidden"))) sym;
#elif defined(GLOBAL)
int __attribute__((visibility("protected"))) global;
#elif defined(WEAK)
int __attribute__((visibility("hidden"))) weak;
#elif defined(HIDDEN)
int __attribute__((visibility("hidden"))) hidden;
#else
extern int sym;

extern int __attribute__((weak)) weak;

int foo() { return sym; }
int bar() { return weak; }
#endif

//
// Check that we extract a static library defining an undefined symbol.
//
// RUN: %clang16 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -DRESOLVES -o "%t.nvptx.resolves.bc"
// RUN: %clang16 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -DRESOLVES -o "%t.amdgpu.resolves.bc"
// RUN: %llvm16bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.nvptx.resolves.bc,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.amdgpu.resolves.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm16bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld -- "%t.o" "%t.a" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=LIBRARY-RESOLVES

// Differs (docs/compat.md: device links, order of device links (16)); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030 {{.*}}.o {{.*}}.o
// LIBRARY-RESOLVES-DAG: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{.*}}/a.out.amdgcn-amd-amdhsa.gfx1030-{{.*}}.o {{.*}}.o{{$}}
// Differs (docs/compat.md: device links, order of device links (16)); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70 {{.*}}.s {{.*}}.o
// LIBRARY-RESOLVES-DAG: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{.*}}/a.out.nvptx64-nvidia-cuda.sm_70-{{.*}}.cubin {{.*}}.cubin{{$}}

//
// Check that we extract a static library that defines a global visibile to the
// host.
//
// RUN: %clang16 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -DGLOBAL -o "%t.nvptx.global.bc"
// RUN: %clang16 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -DGLOBAL -o "%t.amdgpu.global.bc"
// RUN: %llvm16bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.nvptx.global.bc,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.amdgpu.global.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm16bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld -- "%t.o" "%t.a" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=LIBRARY-GLOBAL

// Differs (docs/compat.md: device links, order of device links (16), archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030 {{.*}}.o {{.*}}.o
// LIBRARY-GLOBAL-DAG: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}
// Differs (docs/compat.md: device links, order of device links (16), archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70 {{.*}}.s {{.*}}.o
// LIBRARY-GLOBAL-DAG: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{[^ ]*}}.cubin{{$}}

//
// Check that we do not extract an external weak symbol.
//
// RUN: %clang16 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -DWEAK -o "%t.nvptx.weak.bc"
// RUN: %clang16 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -DWEAK -o "%t.amdgpu.weak.bc"
// RUN: %llvm16bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.nvptx.weak.bc,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.amdgpu.weak.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm16bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld -- "%t.o" "%t.a" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=LIBRARY-WEAK

// Differs (docs/compat.md: device links, order of device links (16)); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030
//   (not) {{.*}}.o {{.*}}.o
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70
// LIBRARY-WEAK: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{[^ ]*}}.cubin{{$}}
// LIBRARY-WEAK: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}

//
// Check that we do not extract an unneeded hidden symbol.
//
// RUN: %clang16 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -DHIDDEN -o "%t.nvptx.hidden.bc"
// RUN: %clang16 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -DHIDDEN -o "%t.amdgpu.hidden.bc"
// RUN: %llvm16bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.nvptx.hidden.bc,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.amdgpu.hidden.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm16bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld -- "%t.o" "%t.a" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=LIBRARY-HIDDEN

// Differs (docs/compat.md: device links, order of device links (16)); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030
//   (not) {{.*}}.o {{.*}}.o
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70
// LIBRARY-HIDDEN: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{[^ ]*}}.cubin{{$}}
// LIBRARY-HIDDEN: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}

//
// Check that we do not extract a static library that defines a global visibile
// to the host that is already defined.
//
// RUN: %clang16 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -DGLOBAL -o "%t.nvptx.global.bc"
// RUN: %clang16 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -DGLOBAL -o "%t.amdgpu.global.bc"
// RUN: %llvm16bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.nvptx.global.bc,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.amdgpu.global.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm16bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang16 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld -- "%t.o" "%t.a" "%t.a" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=LIBRARY-GLOBAL-DEFINED

// Differs (docs/compat.md: device links, order of device links (16), archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030 {{.*}}.o {{.*}}.o
//   (not) {{.*}}gfx1030{{.*}}.o
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70 {{.*}}.s {{.*}}.o
// LIBRARY-GLOBAL-DEFINED-DAG: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{[^ ]*}}.cubin{{$}}
// LIBRARY-GLOBAL-DEFINED-DAG: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}
