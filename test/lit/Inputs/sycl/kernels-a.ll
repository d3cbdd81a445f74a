; One SYCL kernel of translation unit a.cpp, as clang -fsycl-device-only
; would leave it (no SYCL headers needed).
target triple = "spirv64-unknown-unknown"

define spir_kernel void @_ZTS4kern(ptr addrspace(1) %p) #0 {
  store i32 42, ptr addrspace(1) %p
  ret void
}

attributes #0 = { "sycl-module-id"="a.cpp" }
