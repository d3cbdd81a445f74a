// Port of LLVM 19's clang/test/Driver/linker-wrapper.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt): the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// REQUIRES: clang19

// An externally visible variable so static libraries extract.
__attribute__((visibility("protected"), used)) int x;

// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.elf.o"
// RUN: %clang19 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -o "%t.nvptx.bc"
// RUN: %clang19 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -o "%t.amdgpu.bc"

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-llvm-bc -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70 -O2 {{.*}}.o {{.*}}.o
// NVPTX-LINK: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{.*}}.cubin {{.*}}.cubin{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --device-debug -O0 \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK-DEBUG

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=nvptx64-nvidia-cuda -march=sm_70 -O2 {{.*}}.o {{.*}}.o -g
// NVPTX-LINK-DEBUG: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{.*}}.cubin {{.*}}.cubin{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMDGPU-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx908 -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMDGPU-LINK: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{.*}}-amdgcn-amd-amdhsa-gfx908-{{.*}}.o {{.*}}-amdgcn-amd-amdhsa-gfx908-{{.*}}.o{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --save-temps -O2 \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMDGPU-LTO-TEMPS

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx1030 -O2 -Wl,--no-undefined {{.*}}.s -save-temps
// AMDGPU-LTO-TEMPS: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o a.out.amdgcn.gfx1030.img a.out.amdgcn-amd-amdhsa.gfx1030.o{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld.lld --whole-archive "%t.a" --no-whole-archive \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CPU-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=x86_64-unknown-linux-gnu -march=native -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o -Wl,-Bsymbolic -shared -Wl,--whole-archive {{.*}}.a -Wl,--no-whole-archive
// CPU-LINK: "/usr/bin/ld.lld" -shared -Bsymbolic --eh-frame-hdr -o {{.*}}.img {{.*}}.o {{.*}}.o --whole-archive {{.*}}.a --no-whole-archive{{$}}

// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu -mllvm -openmp-opt-disable \
// RUN:   --linker-path=/usr/bin/ld.lld -a -b -c "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=HOST-LINK

// HOST-LINK: ld.lld{{.*}}-a -b -c {{.*}}.o -o a.out
// HOST-LINK-NOT: ld.lld{{.*}}-abc

// RUN: %llvm19bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-obj.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.a" "%t-obj.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=STATIC-LIBRARY

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -march=sm_70
// STATIC-LIBRARY: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70
// Differs (docs/compat.md: device links); upstream expects:
//   (not) clang{{.*}} -march=sm_50
// STATIC-LIBRARY-NOT: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_5

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_80" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_75" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" \
// RUN:   "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu --wrapper-jobs=4 \
// RUN: --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CUDA-PAR

// CUDA-PAR: fatbinary{{.*}}-64 --create {{.*}}.fatbin

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" \
// RUN:   "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu \
// RUN:   --linker-path=/usr/bin/ld --device-linker=a --device-linker=nvptx64-nvidia-cuda=b \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=LINKER-ARGS

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}}--target=amdgcn-amd-amdhsa{{.*}}a
// LINKER-ARGS: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{.*}}.o a{{$}}
// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}}--target=nvptx64-nvidia-cuda{{.*}}a b
// LINKER-ARGS: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{.*}}.cubin a b{{$}}

// RUN: not %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu -ldummy \
// RUN:   --linker-path=/usr/bin/ld --device-linker=a --device-linker=nvptx64-nvidia-cuda=b \
// RUN:   -o a.out 2>&1 | FileCheck "%s" --check-prefix=MISSING-LIBRARY

// MISSING-LIBRARY: error: unable to find library -ldummy

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --clang-backend \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CLANG-BACKEND

// Differs (docs/compat.md: --clang-backend); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx908 -O2 -Wl,--no-undefined {{.*}}.bc
// CLANG-BACKEND: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{.*}}/a.out.amdgcn-amd-amdhsa.gfx908-{{.*}}.o{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-windows-msvc -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-windows-msvc --dry-run \
// RUN:   --linker-path=/usr/bin/lld-link "%t.o" -libpath:./ -out:a.exe 2>&1 | FileCheck "%s" --check-prefix=COFF

// COFF: "/usr/bin/lld-link" {{.*}}.o -libpath:./ -out:a.exe {{.*}}openmp.image.wrapper{{.*}}

// RUN: %llvm19bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm19bin/clang-offload-packager -o "%t-on.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-on.o" "-fembed-offload-object=%t-on.out"
// RUN: %llvm19bin/clang-offload-packager -o "%t-off.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack-"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-off.o" "-fembed-offload-object=%t-off.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t-on.o" "%t-off.o" "%t.a" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMD-TARGET-ID

// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx90a:xnack+ -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMD-TARGET-ID: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a:xnack+-{{.*}}.img {{.*}}-on-amdgcn-amd-amdhsa-gfx90a:xnack+-{{[^ ]*}}.o{{$}}
// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx90a:xnack- -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMD-TARGET-ID: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a:xnack--{{.*}}.img {{.*}}-off-amdgcn-amd-amdhsa-gfx90a:xnack--{{[^ ]*}}.o{{$}}

// RUN: %llvm19bin/clang-offload-packager -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=generic"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm19bin/clang-offload-packager -o "%t1.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t1.o" "-fembed-offload-object=%t1.out"
// RUN: %llvm19bin/clang-offload-packager -o "%t2.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t2.o" "-fembed-offload-object=%t2.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t1.o" "%t2.o" "%t.a" -o a.out 2>&1 | FileCheck "%s" --check-prefix=ARCH-ALL

// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx90a -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o
// ARCH-ALL: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a-{{.*}}.img {{[^ ]*}}1-amdgcn-amd-amdhsa-gfx90a-{{[^ ]*}}.o{{$}}
// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img --target=amdgcn-amd-amdhsa -mcpu=gfx908 -O2 -Wl,--no-undefined {{.*}}.o {{.*}}.o
// ARCH-ALL: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx908-{{.*}}.img {{[^ ]*}}2-amdgcn-amd-amdhsa-gfx908-{{[^ ]*}}.o{{$}}

// RUN: %clang19 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "--override=image=openmp=%t.o" "%t.o" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=OVERRIDE
// OVERRIDE-NOT: clang
// OVERRIDE: /usr/bin/ld
