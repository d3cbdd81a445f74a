// Port of LLVM 22's clang/test/Driver/linker-wrapper.c (Apache-2.0 WITH
// LLVM-exception, https://llvm.org/LICENSE.txt), rebuilt from the nearest upstream
// revisions (22.1.8's own text was not at hand) and checked line by line
// against the clang-linker-wrapper 22.1.8 binary: the same commands, run
// against offload-link under clang-linker-wrapper's name.  CHECK lines differ
// from upstream's only where docs/compat.md lists a deliberate difference;
// each such place quotes upstream's line.
//
// REQUIRES: clang22

// An externally visible variable so static libraries extract.
__attribute__((visibility("protected"), used)) int x;

// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.elf.o"
// RUN: %clang22 -cc1 "%s" -triple nvptx64-nvidia-cuda -emit-llvm-bc -o "%t.nvptx.bc"
// RUN: %clang22 -cc1 "%s" -triple amdgcn-amd-amdhsa -emit-llvm-bc -o "%t.amdgpu.bc"
// RUN: %clang22 -cc1 "%s" -triple spirv64-unknown-unknown -emit-llvm-bc -o "%t.spirv.bc"

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-llvm-bc -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.nvptx64.sm_70.img. --target=nvptx64-nvidia-cuda -march=sm_70 {{.*}}.o {{.*}}.o
// NVPTX-LINK: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}/a.out.nvptx64.sm_70-{{.*}}.img {{.*}}.cubin {{.*}}.cubin{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --device-compiler=-g \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=NVPTX-LINK-DEBUG

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} --target=nvptx64-nvidia-cuda -march=sm_70 {{.*}}-g
// NVPTX-LINK-DEBUG: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70 -o {{.*}}.img {{.*}}.cubin {{.*}}.cubin{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMDGPU-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx908.img. --target=amdgcn-amd-amdhsa -mcpu=gfx908 -flto -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMDGPU-LINK: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}/a.out.amdgcn.gfx908-{{.*}}.img {{.*}}-amdgcn-amd-amdhsa-gfx908-{{.*}}.o {{.*}}-amdgcn-amd-amdhsa-gfx908-{{.*}}.o{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx1030"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --device-compiler=--save-temps \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMDGPU-LTO-TEMPS

// AMDGPU-LTO-TEMPS: clang{{.*}} --target=amdgcn-amd-amdhsa -mcpu=gfx1030 -flto {{.*}}-save-temps

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.spirv.bc,kind=sycl,triple=spirv64-unknown-unknown,arch=generic"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=SPIRV-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.spirv64..img. --target=spirv64-unknown-unknown {{.*}}.o --sycl-link -Xlinker -triple=spirv64-unknown-unknown -Xlinker -arch=
// SPIRV-LINK: clang-sycl-linker{{(-[0-9]+)?}}" {{.*}}.o -triple=spirv64-unknown-unknown -arch= -o {{.*}}/a.out.spirv64.-{{.*}}.img{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=x86_64-unknown-linux-gnu"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld.lld --whole-archive "%t.a" --no-whole-archive \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CPU-LINK

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.x86_64..img. --target=x86_64-unknown-linux-gnu -Wl,--no-undefined {{.*}}.o {{.*}}.o -Wl,-Bsymbolic -shared -Wl,--whole-archive {{.*}}.a -Wl,--no-whole-archive
// CPU-LINK: "/usr/bin/ld.lld" -shared -Bsymbolic --eh-frame-hdr -o {{.*}}/a.out.x86_64.-{{.*}}.img {{.*}}.o {{.*}}.o --whole-archive {{.*}}.a --no-whole-archive{{$}}

// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu -mllvm -openmp-opt-disable \
// RUN:   --linker-path=/usr/bin/ld.lld -a -b -c "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=HOST-LINK

// HOST-LINK: ld.lld{{.*}}-a -b -c {{.*}}.o -o a.out
// HOST-LINK-NOT: ld.lld{{.*}}-abc

// RUN: %llvm22bin/llvm-offload-binary -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-obj.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t.a" "%t-obj.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=STATIC-LIBRARY

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -march=sm_70
// STATIC-LIBRARY: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_70
// Differs (docs/compat.md: device links); upstream expects:
//   (not) clang{{.*}} -march=sm_50
// STATIC-LIBRARY-NOT: nvlink{{(-[0-9]+)?}}" -m64 -arch sm_5

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_80" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_75" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_70" \
// RUN:   "--image=file=%t.elf.o,kind=cuda,triple=nvptx64-nvidia-cuda,arch=sm_52"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" \
// RUN:   "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu --wrapper-jobs=4 \
// RUN: --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CUDA-PAR
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu --wrapper-jobs=jobserver \
// RUN: --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CUDA-PAR

// CUDA-PAR: fatbinary{{.*}}-64 --create {{.*}}.fatbin

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" \
// RUN:   "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu \
// RUN:   --linker-path=/usr/bin/ld --device-linker=foo=bar --device-linker=a \
// RUN:   --device-linker=nvptx64-nvidia-cuda=b --device-compiler=foo\
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=LINKER-ARGS

// LINKER-ARGS: clang{{.*}}--target=amdgcn-amd-amdhsa{{.*}}-Xlinker foo=bar{{.*}}-Xlinker a{{.*}}foo
// LINKER-ARGS: clang{{.*}}--target=nvptx64-nvidia-cuda{{.*}}-Xlinker foo=bar{{.*}}-Xlinker a -Xlinker b{{.*}}foo

// RUN: not %clang-linker-wrapper --dry-run --host-triple=x86_64-unknown-linux-gnu \
// RUN:   -ldummy --linker-path=/usr/bin/ld \
// RUN:   -o a.out 2>&1 | FileCheck "%s" --check-prefix=MISSING-LIBRARY

// MISSING-LIBRARY: error: unable to find library -ldummy

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908" \
// RUN:   "--image=file=%t.amdgpu.bc,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run --clang-backend \
// RUN:   --linker-path=/usr/bin/ld "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=CLANG-BACKEND

// Differs (docs/compat.md: device links); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx908.img. --target=amdgcn-amd-amdhsa -mcpu=gfx908 -flto -Wl,--no-undefined {{.*}}.o
// CLANG-BACKEND: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{.*}}/a.out.amdgcn-amd-amdhsa.gfx908-{{.*}}.o{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=nvptx64-nvidia-cuda,arch=sm_70"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-windows-msvc -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-windows-msvc --dry-run \
// RUN:   --linker-path=/usr/bin/lld-link "%t.o" -libpath:./ -out:a.exe 2>&1 | FileCheck "%s" --check-prefix=COFF

// COFF: "/usr/bin/lld-link" {{.*}}.o -libpath:./ -out:a.exe {{.*}}openmp.image.wrapper{{.*}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm22bin/llvm-offload-binary -o "%t-on.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-on.o" "-fembed-offload-object=%t-on.out"
// RUN: %llvm22bin/llvm-offload-binary -o "%t-off.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack-"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t-off.o" "-fembed-offload-object=%t-off.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t-on.o" "%t-off.o" "%t.a" -o a.out 2>&1 | FileCheck "%s" --check-prefix=AMD-TARGET-ID

// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx90a:xnack+.img. --target=amdgcn-amd-amdhsa -mcpu=gfx90a:xnack+ -flto -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMD-TARGET-ID: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a:xnack+-{{.*}}.img {{.*}}-on-amdgcn-amd-amdhsa-gfx90a:xnack+-{{[^ ]*}}.o{{$}}
// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx90a:xnack-.img. --target=amdgcn-amd-amdhsa -mcpu=gfx90a:xnack- -flto -Wl,--no-undefined {{.*}}.o {{.*}}.o
// AMD-TARGET-ID: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a:xnack--{{.*}}.img {{.*}}-off-amdgcn-amd-amdhsa-gfx90a:xnack--{{[^ ]*}}.o{{$}}

// RUN: %llvm22bin/llvm-offload-binary -o "%t-lib.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=generic"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t-lib.out"
// RUN: llvm-ar rcs "%t.a" "%t.o"
// RUN: %llvm22bin/llvm-offload-binary -o "%t1.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx90a"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t1.o" "-fembed-offload-object=%t1.out"
// RUN: %llvm22bin/llvm-offload-binary -o "%t2.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t2.o" "-fembed-offload-object=%t2.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "%t1.o" "%t2.o" "%t.a" -o a.out 2>&1 | FileCheck "%s" --check-prefix=ARCH-ALL

// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx90a.img. --target=amdgcn-amd-amdhsa -mcpu=gfx90a -flto -Wl,--no-undefined {{.*}}.o {{.*}}.o
// ARCH-ALL: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx90a-{{.*}}.img {{[^ ]*}}1-amdgcn-amd-amdhsa-gfx90a-{{[^ ]*}}.o{{$}}
// Differs (docs/compat.md: device links, archive members); upstream expects:
//   clang{{.*}} -o {{.*}}.img -dumpdir a.out.amdgcn.gfx908.img. --target=amdgcn-amd-amdhsa -mcpu=gfx908 -flto -Wl,--no-undefined {{.*}}.o {{.*}}.o
// ARCH-ALL: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.gfx908-{{.*}}.img {{[^ ]*}}2-amdgcn-amd-amdhsa-gfx908-{{[^ ]*}}.o{{$}}

// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --linker-path=/usr/bin/ld "--override=image=openmp=%t.o" "%t.o" -o a.out 2>&1 \
// RUN: | FileCheck "%s" --check-prefix=OVERRIDE
// OVERRIDE-NOT: clang
// OVERRIDE: /usr/bin/ld

// RUN: %llvm22bin/llvm-offload-binary -o "%t.out" \
// RUN:   "--image=file=%t.elf.o,kind=openmp,triple=amdgcn-amd-amdhsa,arch=gfx908"
// RUN: %clang22 -cc1 "%s" -triple x86_64-unknown-linux-gnu -emit-obj -o "%t.o" "-fembed-offload-object=%t.out"
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   --offload-opt=-pass-remarks=foo,bar --linker-path=/usr/bin/ld \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=OFFLOAD-OPT
// RUN: %clang-linker-wrapper --host-triple=x86_64-unknown-linux-gnu --dry-run \
// RUN:   -mllvm -pass-remarks=foo,bar --linker-path=/usr/bin/ld \
// RUN:   "%t.o" -o a.out 2>&1 | FileCheck "%s" --check-prefix=MLLVM

// Differs (docs/compat.md: device links, LLVM options); upstream expects:
//   clang{{.*}}-Xlinker --plugin-opt=-pass-remarks=foo,bar
//   clang{{.*}}-Xlinker --plugin-opt=-pass-remarks=foo,bar
//   (same) -Xlinker -mllvm=-pass-remarks=foo,bar
//   (not) -Xlinker -mllvm=-pass-remarks=foo,bar
//   (same) {{$}}
//            MLLVM: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}
//      OFFLOAD-OPT: ld.lld{{(-[0-9]+)?}}" -shared --no-undefined -o {{.*}}.img {{[^ ]*}}.o{{$}}

// Error handling when --linker-path is not provided for clang-linker-wrapper
// RUN: not %clang-linker-wrapper 2>&1 | FileCheck --check-prefix=LINKER-PATH-NOT-PROVIDED "%s"
// LINKER-PATH-NOT-PROVIDED: linker path missing, must pass 'linker-path'
