; Two SYCL kernels of translation unit b.cpp and a helper that is no entry
; point.
target triple = "spirv64-unknown-unknown"

define internal spir_func i32 @helper(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}

define spir_kernel void @_ZTS5kern2(ptr addrspace(1) %p) #0 {
  %v = call spir_func i32 @helper(i32 7)
  store i32 %v, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @_ZTS5kern3(ptr addrspace(1) %p) #0 {
  store i32 8, ptr addrspace(1) %p
  ret void
}

attributes #0 = { "sycl-module-id"="b.cpp" }
