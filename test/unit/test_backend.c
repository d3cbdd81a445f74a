/*
 * test_backend: the LLVM backend module (offload-link-llvm.so), loaded with
 * dlopen exactly as the executable loads it.
 *
 *   wrap     OpenMP 16/19/22, CUDA/HIP 19/22 and SYCL 22 registration modules must
 *            print exactly as upstream's --print-wrapped-module did for the
 *            same images (upstream-artifacts/ir_*.ll, copied below); the
 *            objects must carry the images in an SHT_LLVM_OFFLOADING section
 *            flagged SHF_ALLOC and constructors in .init_array.N.
 *   bitcode  symbols, embedded offloading sections, producer version and
 *            entries ABI of clang-built -flto objects.
 *   lto      two modules where one calls a hidden function of the other:
 *            the hidden one is internalized, the exported one stays global;
 *            also preserved names, C-identifier sections, errors, threads.
 *
 * Usage: test_backend [path/to/offload-link-llvm.so]  (else $OFFLOAD_LINK_BACKEND)
 * The bitcode and LTO parts need clang-22 ($OL_TEST_CLANG, else clang-22 on
 * PATH) and say so when it is missing; the wrap part needs nothing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "offload/backend.h"

#ifndef SHT_LLVM_OFFLOADING
#define SHT_LLVM_OFFLOADING 0x6fff4c0b
#endif

extern char **environ;

static int failures;

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

/* The 144-byte OffloadBinary of a --dry-run nvptx image (omp_dry.txt). */
static const uint8_t dry_image_nvptx[144] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x75, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x89, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63,
	0x68, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65, 0x00, 0x6e, 0x76, 0x70,
	0x74, 0x78, 0x36, 0x34, 0x2d, 0x6e, 0x76, 0x69, 0x64, 0x69, 0x61, 0x2d,
	0x63, 0x75, 0x64, 0x61, 0x00, 0x73, 0x6d, 0x5f, 0x38, 0x30, 0x00, 0x00,
};

/* The 144-byte OffloadBinary of a --dry-run amdgcn image (omp_dry.txt). */
static const uint8_t dry_image_amdgcn[144] = {
	0x10, 0xff, 0x10, 0xad, 0x01, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x75, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x69, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x87, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0x72, 0x63,
	0x68, 0x00, 0x74, 0x72, 0x69, 0x70, 0x6c, 0x65, 0x00, 0x61, 0x6d, 0x64,
	0x67, 0x63, 0x6e, 0x2d, 0x61, 0x6d, 0x64, 0x2d, 0x61, 0x6d, 0x64, 0x68,
	0x73, 0x61, 0x00, 0x67, 0x66, 0x78, 0x39, 0x30, 0x61, 0x00, 0x00, 0x00,
};

static const char expected_omp_16[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }\n"
	"%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n"
	"%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n"
	"\n"
	"@__start_omp_offloading_entries = external hidden constant %__tgt_offload_entry\n"
	"@__stop_omp_offloading_entries = external hidden constant %__tgt_offload_entry\n"
	"@__dummy.omp_offloading.entry = hidden constant [0 x %__tgt_offload_entry] zeroinitializer, section \"omp_offloading_entries\"\n"
	"@.omp_offloading.device_image = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\89\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00nvptx64-nvidia-cuda\\00sm_80\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_image.1 = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\87\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00amdgcn-amd-amdhsa\\00gfx90a\\00\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_images = internal unnamed_addr constant [2 x %__tgt_device_image] [%__tgt_device_image { ptr @.omp_offloading.device_image, ptr getelementptr inbounds ([144 x i8], ptr @.omp_offloading.device_image, i64 1, i64 0), ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }, %__tgt_device_image { ptr @.omp_offloading.device_image.1, ptr getelementptr inbounds ([144 x i8], ptr @.omp_offloading.device_image.1, i64 1, i64 0), ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }]\n"
	"@.omp_offloading.descriptor = internal constant %__tgt_bin_desc { i32 2, ptr @.omp_offloading.device_images, ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @.omp_offloading.descriptor_reg, ptr null }]\n"
	"@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @.omp_offloading.descriptor_unreg, ptr null }]\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_register_lib(ptr)\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_unregister_lib(ptr @.omp_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_unregister_lib(ptr)\n";

static const char expected_omp_19[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }\n"
	"%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n"
	"%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n"
	"\n"
	"@__start_omp_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_omp_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.omp_offloading_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"omp_offloading_entries\"\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.omp_offloading_entries], section \"llvm.metadata\"\n"
	"@.omp_offloading.device_image = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\89\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00nvptx64-nvidia-cuda\\00sm_80\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_image.1 = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\87\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00amdgcn-amd-amdhsa\\00gfx90a\\00\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_images = internal unnamed_addr constant [2 x %__tgt_device_image] [%__tgt_device_image { ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image, i64 0, i64 144), ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image, i64 0, i64 144), ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }, %__tgt_device_image { ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image.1, i64 0, i64 144), ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image.1, i64 0, i64 144), ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }]\n"
	"@.omp_offloading.descriptor = internal constant %__tgt_bin_desc { i32 2, ptr @.omp_offloading.device_images, ptr @__start_omp_offloading_entries, ptr @__stop_omp_offloading_entries }\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.omp_offloading.descriptor_reg, ptr null }]\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)\n"
	"  %0 = call i32 @atexit(ptr @.omp_offloading.descriptor_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_register_lib(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_unregister_lib(ptr @.omp_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_unregister_lib(ptr)\n";

static const char expected_omp_22[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }\n"
	"%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n"
	"%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n"
	"\n"
	"@__start_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.llvm_offload_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"llvm_offload_entries\", align 8\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.llvm_offload_entries], section \"llvm.metadata\"\n"
	"@.omp_offloading.device_image = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\89\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00nvptx64-nvidia-cuda\\00sm_80\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_image.1 = internal unnamed_addr constant [144 x i8] c\"\\10\\FF\\10\\AD\\01\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00 \\00\\00\\00\\00\\00\\00\\00(\\00\\00\\00\\00\\00\\00\\00\\01\\00\\01\\00\\00\\00\\00\\00H\\00\\00\\00\\00\\00\\00\\00\\02\\00\\00\\00\\00\\00\\00\\00\\90\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00n\\00\\00\\00\\00\\00\\00\\00u\\00\\00\\00\\00\\00\\00\\00i\\00\\00\\00\\00\\00\\00\\00\\87\\00\\00\\00\\00\\00\\00\\00\\00arch\\00triple\\00amdgcn-amd-amdhsa\\00gfx90a\\00\\00\\00\", section \".llvm.offloading\", align 8\n"
	"@.omp_offloading.device_images = internal unnamed_addr constant [2 x %__tgt_device_image] [%__tgt_device_image { ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image, i64 0, i64 144), ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image, i64 0, i64 144), ptr @__start_llvm_offload_entries, ptr @__stop_llvm_offload_entries }, %__tgt_device_image { ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image.1, i64 0, i64 144), ptr getelementptr ([144 x i8], ptr @.omp_offloading.device_image.1, i64 0, i64 144), ptr @__start_llvm_offload_entries, ptr @__stop_llvm_offload_entries }]\n"
	"@.omp_offloading.descriptor = internal constant %__tgt_bin_desc { i32 2, ptr @.omp_offloading.device_images, ptr @__start_llvm_offload_entries, ptr @__stop_llvm_offload_entries }\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.omp_offloading.descriptor_reg, ptr null }]\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)\n"
	"  %0 = call i32 @atexit(ptr @.omp_offloading.descriptor_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_register_lib(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"define internal void @.omp_offloading.descriptor_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__tgt_unregister_lib(ptr @.omp_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__tgt_unregister_lib(ptr)\n";

static const char expected_cu_19[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }\n"
	"%fatbin_wrapper = type { i32, i32, ptr, ptr }\n"
	"\n"
	"@__start_cuda_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_cuda_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.cuda_offloading_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"cuda_offloading_entries\"\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.cuda_offloading_entries], section \"llvm.metadata\"\n"
	"@.fatbin_image = internal constant [0 x i8] zeroinitializer, section \".nv_fatbin\"\n"
	"@.fatbin_wrapper = internal constant %fatbin_wrapper { i32 1180844977, i32 1, ptr @.fatbin_image, ptr null }, section \".nvFatBinSegment\", align 8\n"
	"@.cuda.binary_handle = internal global ptr null\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.cuda.fatbin_reg, ptr null }]\n"
	"\n"
	"define internal void @.cuda.fatbin_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = call ptr @__cudaRegisterFatBinary(ptr @.fatbin_wrapper)\n"
	"  store ptr %0, ptr @.cuda.binary_handle, align 8\n"
	"  call void @.cuda.globals_reg(ptr %0)\n"
	"  call void @__cudaRegisterFatBinaryEnd(ptr %0)\n"
	"  %1 = call i32 @atexit(ptr @.cuda.fatbin_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"define internal void @.cuda.fatbin_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = load ptr, ptr @.cuda.binary_handle, align 8\n"
	"  call void @__cudaUnregisterFatBinary(ptr %0)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare ptr @__cudaRegisterFatBinary(ptr)\n"
	"\n"
	"declare void @__cudaRegisterFatBinaryEnd(ptr)\n"
	"\n"
	"declare void @__cudaUnregisterFatBinary(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"declare i32 @__cudaRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)\n"
	"\n"
	"declare void @__cudaRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n"
	"\n"
	"declare void @__cudaRegisterSurface(ptr, ptr, ptr, ptr, i32, i32)\n"
	"\n"
	"declare void @__cudaRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)\n"
	"\n"
	"define internal void @.cuda.globals_reg(ptr %0) section \".text.startup\" {\n"
	"entry:\n"
	"  %1 = icmp ne ptr @__start_cuda_offloading_entries, @__stop_cuda_offloading_entries\n"
	"  br i1 %1, label %while.entry, label %while.end\n"
	"\n"
	"while.entry:                                      ; preds = %if.end, %entry\n"
	"  %entry1 = phi ptr [ @__start_cuda_offloading_entries, %entry ], [ %12, %if.end ]\n"
	"  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 0\n"
	"  %addr = load ptr, ptr %2, align 8\n"
	"  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 1\n"
	"  %name = load ptr, ptr %3, align 8\n"
	"  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 2\n"
	"  %size = load i64, ptr %4, align 4\n"
	"  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 3\n"
	"  %flags = load i32, ptr %5, align 4\n"
	"  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 4\n"
	"  %textype = load i32, ptr %6, align 4\n"
	"  %type = and i32 %flags, 7\n"
	"  %7 = and i32 %flags, 8\n"
	"  %extern = lshr i32 %7, 3\n"
	"  %8 = and i32 %flags, 16\n"
	"  %constant = lshr i32 %8, 4\n"
	"  %9 = and i32 %flags, 32\n"
	"  %normalized = lshr i32 %9, 5\n"
	"  %10 = icmp eq i64 %size, 0\n"
	"  br i1 %10, label %if.then, label %if.else\n"
	"\n"
	"if.then:                                          ; preds = %while.entry\n"
	"  %11 = call i32 @__cudaRegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n"
	"  br label %if.end\n"
	"\n"
	"if.else:                                          ; preds = %while.entry\n"
	"  switch i32 %type, label %if.end [\n"
	"    i32 0, label %sw.global\n"
	"    i32 1, label %sw.managed\n"
	"    i32 2, label %sw.surface\n"
	"    i32 3, label %sw.texture\n"
	"  ]\n"
	"\n"
	"sw.global:                                        ; preds = %if.else\n"
	"  call void @__cudaRegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)\n"
	"  br label %if.end\n"
	"\n"
	"sw.managed:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"sw.surface:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"sw.texture:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then\n"
	"  %12 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1\n"
	"  %13 = icmp eq ptr %12, @__stop_cuda_offloading_entries\n"
	"  br i1 %13, label %while.end, label %while.entry\n"
	"\n"
	"while.end:                                        ; preds = %if.end, %entry\n"
	"  ret void\n"
	"}\n";

static const char expected_cu_22[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }\n"
	"%fatbin_wrapper = type { i32, i32, ptr, ptr }\n"
	"\n"
	"@__start_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.llvm_offload_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"llvm_offload_entries\", align 8\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.llvm_offload_entries], section \"llvm.metadata\"\n"
	"@.fatbin_image = internal constant [0 x i8] zeroinitializer, section \".nv_fatbin\"\n"
	"@.fatbin_wrapper = internal constant %fatbin_wrapper { i32 1180844977, i32 1, ptr @.fatbin_image, ptr null }, section \".nvFatBinSegment\", align 8\n"
	"@.cuda.binary_handle = internal global ptr null\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.cuda.fatbin_reg, ptr null }]\n"
	"\n"
	"define internal void @.cuda.fatbin_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = call ptr @__cudaRegisterFatBinary(ptr @.fatbin_wrapper)\n"
	"  store ptr %0, ptr @.cuda.binary_handle, align 8\n"
	"  call void @.cuda.globals_reg(ptr %0)\n"
	"  call void @__cudaRegisterFatBinaryEnd(ptr %0)\n"
	"  %1 = call i32 @atexit(ptr @.cuda.fatbin_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"define internal void @.cuda.fatbin_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = load ptr, ptr @.cuda.binary_handle, align 8\n"
	"  call void @__cudaUnregisterFatBinary(ptr %0)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare ptr @__cudaRegisterFatBinary(ptr)\n"
	"\n"
	"declare void @__cudaRegisterFatBinaryEnd(ptr)\n"
	"\n"
	"declare void @__cudaUnregisterFatBinary(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"declare i32 @__cudaRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)\n"
	"\n"
	"declare void @__cudaRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n"
	"\n"
	"declare void @__cudaRegisterManagedVar(ptr, ptr, ptr, ptr, i64, i32)\n"
	"\n"
	"declare void @__cudaRegisterSurface(ptr, ptr, ptr, ptr, i32, i32)\n"
	"\n"
	"declare void @__cudaRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)\n"
	"\n"
	"define internal void @.cuda.globals_reg(ptr %0) section \".text.startup\" {\n"
	"entry:\n"
	"  %1 = icmp ne ptr @__start_llvm_offload_entries, @__stop_llvm_offload_entries\n"
	"  br i1 %1, label %while.entry, label %while.end\n"
	"\n"
	"while.entry:                                      ; preds = %if.end, %entry\n"
	"  %entry1 = phi ptr [ @__start_llvm_offload_entries, %entry ], [ %16, %if.end ]\n"
	"  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 4\n"
	"  %addr = load ptr, ptr %2, align 8\n"
	"  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 8\n"
	"  %aux_addr = load ptr, ptr %3, align 8\n"
	"  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 2\n"
	"  %kind = load i16, ptr %4, align 2\n"
	"  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 5\n"
	"  %name = load ptr, ptr %5, align 8\n"
	"  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 6\n"
	"  %size = load i64, ptr %6, align 4\n"
	"  %7 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 3\n"
	"  %flags = load i32, ptr %7, align 4\n"
	"  %8 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 7\n"
	"  %data = load i64, ptr %8, align 4\n"
	"  %9 = trunc i64 %data to i32\n"
	"  %type = and i32 %flags, 7\n"
	"  %10 = and i32 %flags, 8\n"
	"  %extern = lshr i32 %10, 3\n"
	"  %11 = and i32 %flags, 16\n"
	"  %constant = lshr i32 %11, 4\n"
	"  %12 = and i32 %flags, 32\n"
	"  %normalized = lshr i32 %12, 5\n"
	"  %13 = icmp eq i16 %kind, 2\n"
	"  br i1 %13, label %if.kind, label %if.end\n"
	"\n"
	"if.kind:                                          ; preds = %while.entry\n"
	"  %14 = icmp eq i64 %size, 0\n"
	"  br i1 %14, label %if.then, label %if.else\n"
	"\n"
	"if.then:                                          ; preds = %if.kind\n"
	"  %15 = call i32 @__cudaRegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n"
	"  br label %if.end\n"
	"\n"
	"if.else:                                          ; preds = %if.kind\n"
	"  switch i32 %type, label %if.end [\n"
	"    i32 0, label %sw.global\n"
	"    i32 1, label %sw.managed\n"
	"    i32 2, label %sw.surface\n"
	"    i32 3, label %sw.texture\n"
	"  ]\n"
	"\n"
	"sw.global:                                        ; preds = %if.else\n"
	"  call void @__cudaRegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)\n"
	"  br label %if.end\n"
	"\n"
	"sw.managed:                                       ; preds = %if.else\n"
	"  call void @__cudaRegisterManagedVar(ptr %0, ptr %aux_addr, ptr %addr, ptr %name, i64 %size, i32 %9)\n"
	"  br label %if.end\n"
	"\n"
	"sw.surface:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"sw.texture:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then, %while.entry\n"
	"  %16 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1\n"
	"  %17 = icmp eq ptr %16, @__stop_llvm_offload_entries\n"
	"  br i1 %17, label %while.end, label %while.entry\n"
	"\n"
	"while.end:                                        ; preds = %if.end, %entry\n"
	"  ret void\n"
	"}\n";

static const char expected_hip_19[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }\n"
	"%fatbin_wrapper = type { i32, i32, ptr, ptr }\n"
	"\n"
	"@__start_hip_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_hip_offloading_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.hip_offloading_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"hip_offloading_entries\"\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.hip_offloading_entries], section \"llvm.metadata\"\n"
	"@.fatbin_image = internal constant [0 x i8] zeroinitializer, section \".hip_fatbin\"\n"
	"@.fatbin_wrapper = internal constant %fatbin_wrapper { i32 1212764230, i32 1, ptr @.fatbin_image, ptr null }, section \".hipFatBinSegment\", align 8\n"
	"@.hip.binary_handle = internal global ptr null\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.hip.fatbin_reg, ptr null }]\n"
	"\n"
	"define internal void @.hip.fatbin_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = call ptr @__hipRegisterFatBinary(ptr @.fatbin_wrapper)\n"
	"  store ptr %0, ptr @.hip.binary_handle, align 8\n"
	"  call void @.hip.globals_reg(ptr %0)\n"
	"  %1 = call i32 @atexit(ptr @.hip.fatbin_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"define internal void @.hip.fatbin_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = load ptr, ptr @.hip.binary_handle, align 8\n"
	"  call void @__hipUnregisterFatBinary(ptr %0)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare ptr @__hipRegisterFatBinary(ptr)\n"
	"\n"
	"declare void @__cudaRegisterFatBinaryEnd(ptr)\n"
	"\n"
	"declare void @__hipUnregisterFatBinary(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"declare i32 @__hipRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)\n"
	"\n"
	"declare void @__hipRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n"
	"\n"
	"declare void @__hipRegisterSurface(ptr, ptr, ptr, ptr, i32, i32)\n"
	"\n"
	"declare void @__hipRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)\n"
	"\n"
	"define internal void @.hip.globals_reg(ptr %0) section \".text.startup\" {\n"
	"entry:\n"
	"  %1 = icmp ne ptr @__start_hip_offloading_entries, @__stop_hip_offloading_entries\n"
	"  br i1 %1, label %while.entry, label %while.end\n"
	"\n"
	"while.entry:                                      ; preds = %if.end, %entry\n"
	"  %entry1 = phi ptr [ @__start_hip_offloading_entries, %entry ], [ %12, %if.end ]\n"
	"  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 0\n"
	"  %addr = load ptr, ptr %2, align 8\n"
	"  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 1\n"
	"  %name = load ptr, ptr %3, align 8\n"
	"  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 2\n"
	"  %size = load i64, ptr %4, align 4\n"
	"  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 3\n"
	"  %flags = load i32, ptr %5, align 4\n"
	"  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 4\n"
	"  %textype = load i32, ptr %6, align 4\n"
	"  %type = and i32 %flags, 7\n"
	"  %7 = and i32 %flags, 8\n"
	"  %extern = lshr i32 %7, 3\n"
	"  %8 = and i32 %flags, 16\n"
	"  %constant = lshr i32 %8, 4\n"
	"  %9 = and i32 %flags, 32\n"
	"  %normalized = lshr i32 %9, 5\n"
	"  %10 = icmp eq i64 %size, 0\n"
	"  br i1 %10, label %if.then, label %if.else\n"
	"\n"
	"if.then:                                          ; preds = %while.entry\n"
	"  %11 = call i32 @__hipRegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n"
	"  br label %if.end\n"
	"\n"
	"if.else:                                          ; preds = %while.entry\n"
	"  switch i32 %type, label %if.end [\n"
	"    i32 0, label %sw.global\n"
	"    i32 1, label %sw.managed\n"
	"    i32 2, label %sw.surface\n"
	"    i32 3, label %sw.texture\n"
	"  ]\n"
	"\n"
	"sw.global:                                        ; preds = %if.else\n"
	"  call void @__hipRegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)\n"
	"  br label %if.end\n"
	"\n"
	"sw.managed:                                       ; preds = %if.else\n"
	"  br label %if.end\n"
	"\n"
	"sw.surface:                                       ; preds = %if.else\n"
	"  call void @__hipRegisterSurface(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %textype, i32 %extern)\n"
	"  br label %if.end\n"
	"\n"
	"sw.texture:                                       ; preds = %if.else\n"
	"  call void @__hipRegisterTexture(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %textype, i32 %normalized, i32 %extern)\n"
	"  br label %if.end\n"
	"\n"
	"if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then\n"
	"  %12 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1\n"
	"  %13 = icmp eq ptr %12, @__stop_hip_offloading_entries\n"
	"  br i1 %13, label %while.end, label %while.entry\n"
	"\n"
	"while.end:                                        ; preds = %if.end, %entry\n"
	"  ret void\n"
	"}\n";

static const char expected_hip_22[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }\n"
	"%fatbin_wrapper = type { i32, i32, ptr, ptr }\n"
	"\n"
	"@__start_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__stop_llvm_offload_entries = external hidden constant [0 x %struct.__tgt_offload_entry]\n"
	"@__dummy.llvm_offload_entries = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"llvm_offload_entries\", align 8\n"
	"@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.llvm_offload_entries], section \"llvm.metadata\"\n"
	"@.fatbin_image = internal constant [0 x i8] zeroinitializer, section \".hip_fatbin\"\n"
	"@.fatbin_wrapper = internal constant %fatbin_wrapper { i32 1212764230, i32 1, ptr @.fatbin_image, ptr null }, section \".hipFatBinSegment\", align 8\n"
	"@.hip.binary_handle = internal global ptr null\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @.hip.fatbin_reg, ptr null }]\n"
	"\n"
	"define internal void @.hip.fatbin_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = call ptr @__hipRegisterFatBinary(ptr @.fatbin_wrapper)\n"
	"  store ptr %0, ptr @.hip.binary_handle, align 8\n"
	"  call void @.hip.globals_reg(ptr %0)\n"
	"  %1 = call i32 @atexit(ptr @.hip.fatbin_unreg)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"define internal void @.hip.fatbin_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  %0 = load ptr, ptr @.hip.binary_handle, align 8\n"
	"  call void @__hipUnregisterFatBinary(ptr %0)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare ptr @__hipRegisterFatBinary(ptr)\n"
	"\n"
	"declare void @__cudaRegisterFatBinaryEnd(ptr)\n"
	"\n"
	"declare void @__hipUnregisterFatBinary(ptr)\n"
	"\n"
	"declare i32 @atexit(ptr)\n"
	"\n"
	"declare i32 @__hipRegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)\n"
	"\n"
	"declare void @__hipRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)\n"
	"\n"
	"declare void @__hipRegisterManagedVar(ptr, ptr, ptr, ptr, i64, i32)\n"
	"\n"
	"declare void @__hipRegisterSurface(ptr, ptr, ptr, ptr, i32, i32)\n"
	"\n"
	"declare void @__hipRegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)\n"
	"\n"
	"define internal void @.hip.globals_reg(ptr %0) section \".text.startup\" {\n"
	"entry:\n"
	"  %1 = icmp ne ptr @__start_llvm_offload_entries, @__stop_llvm_offload_entries\n"
	"  br i1 %1, label %while.entry, label %while.end\n"
	"\n"
	"while.entry:                                      ; preds = %if.end, %entry\n"
	"  %entry1 = phi ptr [ @__start_llvm_offload_entries, %entry ], [ %16, %if.end ]\n"
	"  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 4\n"
	"  %addr = load ptr, ptr %2, align 8\n"
	"  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 8\n"
	"  %aux_addr = load ptr, ptr %3, align 8\n"
	"  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 2\n"
	"  %kind = load i16, ptr %4, align 2\n"
	"  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 5\n"
	"  %name = load ptr, ptr %5, align 8\n"
	"  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 6\n"
	"  %size = load i64, ptr %6, align 4\n"
	"  %7 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 3\n"
	"  %flags = load i32, ptr %7, align 4\n"
	"  %8 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 7\n"
	"  %data = load i64, ptr %8, align 4\n"
	"  %9 = trunc i64 %data to i32\n"
	"  %type = and i32 %flags, 7\n"
	"  %10 = and i32 %flags, 8\n"
	"  %extern = lshr i32 %10, 3\n"
	"  %11 = and i32 %flags, 16\n"
	"  %constant = lshr i32 %11, 4\n"
	"  %12 = and i32 %flags, 32\n"
	"  %normalized = lshr i32 %12, 5\n"
	"  %13 = icmp eq i16 %kind, 4\n"
	"  br i1 %13, label %if.kind, label %if.end\n"
	"\n"
	"if.kind:                                          ; preds = %while.entry\n"
	"  %14 = icmp eq i64 %size, 0\n"
	"  br i1 %14, label %if.then, label %if.else\n"
	"\n"
	"if.then:                                          ; preds = %if.kind\n"
	"  %15 = call i32 @__hipRegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)\n"
	"  br label %if.end\n"
	"\n"
	"if.else:                                          ; preds = %if.kind\n"
	"  switch i32 %type, label %if.end [\n"
	"    i32 0, label %sw.global\n"
	"    i32 1, label %sw.managed\n"
	"    i32 2, label %sw.surface\n"
	"    i32 3, label %sw.texture\n"
	"  ]\n"
	"\n"
	"sw.global:                                        ; preds = %if.else\n"
	"  call void @__hipRegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)\n"
	"  br label %if.end\n"
	"\n"
	"sw.managed:                                       ; preds = %if.else\n"
	"  call void @__hipRegisterManagedVar(ptr %0, ptr %aux_addr, ptr %addr, ptr %name, i64 %size, i32 %9)\n"
	"  br label %if.end\n"
	"\n"
	"sw.surface:                                       ; preds = %if.else\n"
	"  call void @__hipRegisterSurface(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %9, i32 %extern)\n"
	"  br label %if.end\n"
	"\n"
	"sw.texture:                                       ; preds = %if.else\n"
	"  call void @__hipRegisterTexture(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %9, i32 %normalized, i32 %extern)\n"
	"  br label %if.end\n"
	"\n"
	"if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then, %while.entry\n"
	"  %16 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1\n"
	"  %17 = icmp eq ptr %16, @__stop_llvm_offload_entries\n"
	"  br i1 %17, label %while.end, label %while.entry\n"
	"\n"
	"while.end:                                        ; preds = %if.end, %entry\n"
	"  ret void\n"
	"}\n";

/* SYCL 22 under --dry-run: the stub image {IMG_None, OFK_SYCL,
 * symbols="stub", no image} (upstream-artifacts/sycl_dry.txt, whose
 * device_images line is cut short there; this is upstream 22's whole text). */
static const char expected_sycl_22[] =
	"; ModuleID = 'offload.wrapper.module'\n"
	"source_filename = \"offload.wrapper.module\"\n"
	"target triple = \"x86_64-pc-linux-gnu\"\n"
	"\n"
	"%struct.__tgt_offload_entry = type { i64, i16, i16, i32, ptr, ptr, i64, i64, ptr }\n"
	"%__sycl.tgt_device_image = type { i16, i8, i8, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr }\n"
	"%__sycl.tgt_bin_desc = type { i16, i16, ptr, ptr, ptr }\n"
	"\n"
	"@.sycl_offloading.target.0 = internal unnamed_addr constant [1 x i8] zeroinitializer\n"
	"@.sycl_offloading.opts.compile.0 = internal unnamed_addr constant [1 x i8] zeroinitializer\n"
	"@.sycl_offloading.opts.link.0 = internal unnamed_addr constant [1 x i8] zeroinitializer\n"
	"@.sycl_offloading.0.data = internal unnamed_addr constant [0 x i8] zeroinitializer, section \".llvm.offloading\"\n"
	"@.offloading.entry_name = internal unnamed_addr constant [5 x i8] c\"stub\\00\", section \".llvm.rodata.offloading\", align 1\n"
	"@.offloading.entry.stub = weak constant %struct.__tgt_offload_entry { i64 0, i16 1, i16 8, i32 0, ptr null, ptr @.offloading.entry_name, i64 0, i64 0, ptr null }, section \"llvm_offload_entries\", align 8\n"
	"@.sycl_offloading.entries_arr = internal constant [1 x %struct.__tgt_offload_entry] [%struct.__tgt_offload_entry { i64 0, i16 1, i16 8, i32 0, ptr null, ptr @.offloading.entry_name, i64 0, i64 0, ptr null }]\n"
	"@.sycl_offloading.device_images = internal unnamed_addr constant [1 x %__sycl.tgt_device_image] [%__sycl.tgt_device_image { i16 3, i8 8, i8 0, ptr @.sycl_offloading.target.0, ptr @.sycl_offloading.opts.compile.0, ptr @.sycl_offloading.opts.link.0, ptr @.sycl_offloading.0.data, ptr @.sycl_offloading.0.data, ptr @.sycl_offloading.entries_arr, ptr getelementptr ([1 x %struct.__tgt_offload_entry], ptr @.sycl_offloading.entries_arr, i64 0, i64 1), ptr null, ptr null }]\n"
	"@.sycl_offloading.descriptor = internal constant %__sycl.tgt_bin_desc { i16 1, i16 1, ptr @.sycl_offloading.device_images, ptr null, ptr null }\n"
	"@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @sycl.descriptor_reg, ptr null }]\n"
	"@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @sycl.descriptor_unreg, ptr null }]\n"
	"\n"
	"define internal void @sycl.descriptor_reg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__sycl_register_lib(ptr @.sycl_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__sycl_register_lib(ptr)\n"
	"\n"
	"define internal void @sycl.descriptor_unreg() section \".text.startup\" {\n"
	"entry:\n"
	"  call void @__sycl_unregister_lib(ptr @.sycl_offloading.descriptor)\n"
	"  ret void\n"
	"}\n"
	"\n"
	"declare void @__sycl_unregister_lib(ptr)\n"
	"\n"
	"!llvm.offloading.symbols = !{!0}\n"
	"\n"
	"!0 = !{ptr @.offloading.entry_name}\n";

/* --- helpers ---------------------------------------------------------------- */

static const char *host_triple = "x86_64-pc-linux-gnu";

/* Exact text comparison; on mismatch names the first differing line and
 * leaves the actual text in <name>.actual.ll for a diff. */
static void compare_text(const char *name, const char *actual, const char *expected)
{
	const char *full = actual, *a = actual, *e = expected;
	int line = 1;
	char path[256];
	FILE *out;

	if (strcmp(actual, expected) == 0)
		return;
	while (*a && *a == *e) {
		if (*a == '\n') {
			line++;
			actual = a + 1;
			expected = e + 1;
		}
		a++;
		e++;
	}
	fail("%s: printed module differs from upstream at line %d:\n  got:      %.200s\n"
	     "  expected: %.200s", name, line, actual, expected);
	snprintf(path, sizeof(path), "%s.actual.ll", name);
	out = fopen(path, "w");
	if (out) {
		fputs(full, out);
		fclose(out);
	}
}

struct section_info {
	int found;
	GElf_Word type;
	GElf_Xword flags, size;
};

/* Looks up section `name` of an ELF object in memory. */
static int elf_section(const struct ol_buffer *obj, const char *name, struct section_info *out)
{
	Elf *elf = elf_memory((char *)obj->data, obj->size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	memset(out, 0, sizeof(*out));
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		if (elf)
			elf_end(elf);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *sname;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (sname && strcmp(sname, name) == 0) {
			out->found = 1;
			out->type = shdr.sh_type;
			out->flags = shdr.sh_flags;
			out->size = shdr.sh_size;
			break;
		}
	}
	elf_end(elf);
	return 0;
}

static int elf_has_section_prefix(const struct ol_buffer *obj, const char *prefix)
{
	Elf *elf = elf_memory((char *)obj->data, obj->size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		if (elf)
			elf_end(elf);
		return 0;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *sname;

		if (gelf_getshdr(scn, &shdr) && (sname = elf_strptr(elf, shstrndx, shdr.sh_name)) &&
		    strncmp(sname, prefix, strlen(prefix)) == 0)
			found = 1;
	}
	elf_end(elf);
	return found;
}

struct symbol_info {
	int found;
	int bind;          /* STB_* */
	int defined;
	int visibility;    /* STV_* */
};

static void elf_symbol(const struct ol_buffer *obj, const char *name, struct symbol_info *out)
{
	Elf *elf = elf_memory((char *)obj->data, obj->size);
	Elf_Scn *scn = NULL;

	memset(out, 0, sizeof(*out));
	if (!elf)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *sname;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			sname = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (sname && strcmp(sname, name) == 0) {
				out->found = 1;
				out->bind = GELF_ST_BIND(sym.st_info);
				out->defined = sym.st_shndx != SHN_UNDEF;
				out->visibility = GELF_ST_VISIBILITY(sym.st_other);
			}
		}
	}
	elf_end(elf);
}

static void check_section(const char *what, const struct ol_buffer *obj, const char *name,
			  GElf_Word type, GElf_Xword flags)
{
	struct section_info s;

	if (elf_section(obj, name, &s) != 0) {
		fail("%s: the object is not ELF", what);
		return;
	}
	CHECK(s.found, "%s: no section %s", what, name);
	if (!s.found)
		return;
	CHECK(s.type == type, "%s: section %s has type 0x%x, expected 0x%x", what, name,
	      (unsigned)s.type, (unsigned)type);
	CHECK(s.flags == flags, "%s: section %s has flags 0x%llx, expected 0x%llx", what, name,
	      (unsigned long long)s.flags, (unsigned long long)flags);
}

static void release(struct ol_buffer *obj, char **ir, char **err)
{
	free(obj->data);
	obj->data = NULL;
	obj->size = 0;
	if (ir) {
		free(*ir);
		*ir = NULL;
	}
	if (err) {
		free(*err);
		*err = NULL;
	}
}

/* --- wrap: OpenMP ------------------------------------------------------------- */

static void test_wrap_openmp(const struct ol_backend *be)
{
	static const struct {
		int flavor;
		const char *expected, *entries, *ctor, *dtor;
	} cases[] = {
		{16, expected_omp_16, "omp_offloading_entries", ".init_array.1", ".fini_array.1"},
		{19, expected_omp_19, "omp_offloading_entries", ".init_array.101", NULL},
		{22, expected_omp_22, "llvm_offload_entries", ".init_array.101", NULL},
	};
	const uint8_t *images[] = {dry_image_nvptx, dry_image_amdgcn};
	size_t sizes[] = {sizeof(dry_image_nvptx), sizeof(dry_image_amdgcn)};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ol_wrap_request req = {
			.kind = OL_WRAP_OPENMP, .flavor = cases[i].flavor,
			.host_triple = host_triple, .images = images, .sizes = sizes,
			.nimages = 2, .want_ir = 1,
		};
		struct ol_buffer obj = {0};
		struct section_info images_section;
		char *ir = NULL, *err = NULL, name[32];

		snprintf(name, sizeof(name), "wrap-openmp-%d", cases[i].flavor);
		if (be->wrap(&req, &obj, &ir, &err) != 0) {
			fail("%s: %s", name, err ? err : "(no message)");
			release(&obj, &ir, &err);
			continue;
		}
		CHECK(ir != NULL, "%s: no IR text", name);
		if (ir)
			compare_text(name, ir, cases[i].expected);
		/* Codegen gives .llvm.offloading SHT_LLVM_OFFLOADING, flags A
		 * only, so the images survive into the executable. */
		check_section(name, &obj, ".llvm.offloading", SHT_LLVM_OFFLOADING, SHF_ALLOC);
		elf_section(&obj, ".llvm.offloading", &images_section);
		CHECK(images_section.size == 288, "%s: .llvm.offloading holds %llu bytes, not 2 x 144",
		      name, (unsigned long long)images_section.size);
		check_section(name, &obj, cases[i].entries, SHT_PROGBITS, SHF_ALLOC);
		check_section(name, &obj, cases[i].ctor, SHT_INIT_ARRAY, SHF_ALLOC | SHF_WRITE);
		if (cases[i].dtor)
			check_section(name, &obj, cases[i].dtor, SHT_FINI_ARRAY, SHF_ALLOC | SHF_WRITE);
		CHECK(!elf_has_section_prefix(&obj, ".ctors") && !elf_has_section_prefix(&obj, ".dtors"),
		      "%s: constructors went to .ctors/.dtors instead of .init_array", name);
		release(&obj, &ir, &err);
	}
}

static void test_wrap_relocatable(const struct ol_backend *be)
{
	const uint8_t *images[] = {dry_image_nvptx};
	size_t sizes[] = {sizeof(dry_image_nvptx)};
	int flavors[] = {19, 22, 16};

	for (size_t i = 0; i < 3; i++) {
		struct ol_wrap_request req = {
			.kind = OL_WRAP_OPENMP, .flavor = flavors[i], .host_triple = host_triple,
			.images = images, .sizes = sizes, .nimages = 1, .relocatable = 1, .want_ir = 1,
		};
		/* Every flavor's images leave the SHT_LLVM_OFFLOADING sections,
		 * which a later link would extract again: upstream's
		 * .llvm.offloading.relocatable (19, 22), or .llvm.offloading
		 * (16, where -r went to ld). */
		const char *section = OL_RELOCATABLE_IMAGES_SECTION;
		struct ol_buffer obj = {0};
		char *ir = NULL, *err = NULL, name[48], quoted[64];

		snprintf(name, sizeof(name), "wrap-openmp-%d-relocatable", flavors[i]);
		snprintf(quoted, sizeof(quoted), "section \"%s\", align 8", section);
		if (be->wrap(&req, &obj, &ir, &err) != 0) {
			fail("%s: %s", name, err ? err : "(no message)");
			release(&obj, &ir, &err);
			continue;
		}
		CHECK(ir && strstr(ir, quoted), "%s: image not in %s", name, section);
		check_section(name, &obj, section, SHT_PROGBITS, SHF_ALLOC);
		CHECK(!elf_has_section_prefix(&obj, ".llvm.offloading"),
		      "%s: a .llvm.offloading* section is left", name);
		release(&obj, &ir, &err);
	}
}

/* 19/22 bracket the raw image inside the OffloadBinary: with 8 payload bytes
 * at 0x90, ImageStart is gep(..., 144) and ImageEnd gep(..., 152). */
static void test_wrap_image_bounds(const struct ol_backend *be)
{
	uint8_t binary[152];
	const uint8_t *images[] = {binary};
	size_t sizes[] = {sizeof(binary)};
	struct ol_wrap_request req = {
		.kind = OL_WRAP_OPENMP, .flavor = 22, .host_triple = host_triple,
		.images = images, .sizes = sizes, .nimages = 1, .want_ir = 1,
	};
	struct ol_buffer obj = {0};
	char *ir = NULL, *err = NULL;

	memcpy(binary, dry_image_nvptx, 144);
	memcpy(binary + 144, "\x7f" "ELFdata", 8);
	binary[8] = 152;          /* header: total size */
	binary[0x40] = 8;         /* entry: image size (offset stays 0x90) */
	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		fail("wrap-image-bounds: %s", err ? err : "(no message)");
	} else {
		CHECK(strstr(ir, "ptr getelementptr ([152 x i8], ptr @.omp_offloading.device_image, "
				 "i64 0, i64 144), ptr getelementptr ([152 x i8], ptr "
				 "@.omp_offloading.device_image, i64 0, i64 152)"),
		      "wrap-image-bounds: image pointers do not bracket the payload:\n%s", ir);
	}
	release(&obj, &ir, &err);

	/* 16 brackets the whole binary. */
	req.flavor = 16;
	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		fail("wrap-image-bounds-16: %s", err ? err : "(no message)");
	} else {
		CHECK(strstr(ir, "{ ptr @.omp_offloading.device_image, ptr getelementptr inbounds "
				 "([152 x i8], ptr @.omp_offloading.device_image, i64 1, i64 0)"),
		      "wrap-image-bounds-16: image pointers do not bracket the binary:\n%s", ir);
	}
	release(&obj, &ir, &err);

	/* An entry or image outside the binary is an error, not a crash. */
	binary[0x40] = 9;
	req.flavor = 22;
	CHECK(be->wrap(&req, &obj, &ir, &err) != 0 && err && strstr(err, "outside"),
	      "wrap-image-bounds: an image past the end of its binary was accepted");
	release(&obj, &ir, &err);
	binary[0x40] = 8;
	binary[16] = 0x80;        /* entry offset 0x80: its 40 bytes pass the end */
	CHECK(be->wrap(&req, &obj, &ir, &err) != 0 && err && strstr(err, "outside"),
	      "wrap-image-bounds: an entry past the end of its binary was accepted");
	release(&obj, &ir, &err);
}

static void test_wrap_save_bc(const struct ol_backend *be, const char *dir)
{
	const uint8_t *images[] = {dry_image_amdgcn};
	size_t sizes[] = {sizeof(dry_image_amdgcn)};
	char path[512];
	struct ol_wrap_request req = {
		.kind = OL_WRAP_OPENMP, .flavor = 19, .host_triple = host_triple,
		.images = images, .sizes = sizes, .nimages = 1, .save_bc_path = path,
	};
	struct ol_buffer obj = {0};
	char *ir = NULL, *err = NULL;
	unsigned char magic[4] = {0};
	FILE *f;

	snprintf(path, sizeof(path), "%s/wrapper.bc", dir);
	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		fail("wrap-save-bc: %s", err ? err : "(no message)");
		release(&obj, &ir, &err);
		return;
	}
	CHECK(ir == NULL, "wrap-save-bc: IR printed without want_ir");
	f = fopen(path, "rb");
	CHECK(f && fread(magic, 1, 4, f) == 4 && memcmp(magic, "BC\xc0\xde", 4) == 0,
	      "wrap-save-bc: %s is not bitcode", path);
	if (f)
		fclose(f);
	unlink(path);
	release(&obj, &ir, &err);

	req.save_bc_path = NULL;
	req.flavor = 17;
	CHECK(be->wrap(&req, &obj, &ir, &err) != 0 && err, "wrap: flavor 17 was accepted");
	release(&obj, &ir, &err);
}

/* --- wrap: CUDA / HIP ---------------------------------------------------------- */

static void test_wrap_cuda_hip(const struct ol_backend *be)
{
	static const struct {
		enum ol_wrap_kind kind;
		int flavor;
		const char *expected, *image_section, *segment;
	} cases[] = {
		{OL_WRAP_CUDA, 19, expected_cu_19, ".nv_fatbin", ".nvFatBinSegment"},
		{OL_WRAP_CUDA, 22, expected_cu_22, ".nv_fatbin", ".nvFatBinSegment"},
		{OL_WRAP_HIP, 19, expected_hip_19, ".hip_fatbin", ".hipFatBinSegment"},
		{OL_WRAP_HIP, 22, expected_hip_22, ".hip_fatbin", ".hipFatBinSegment"},
		{OL_WRAP_CUDA, 16, NULL, ".nv_fatbin", ".nvFatBinSegment"},
		{OL_WRAP_HIP, 16, NULL, ".hip_fatbin", ".hipFatBinSegment"},
	};
	/* --dry-run fatbinaries are empty. */
	static const uint8_t empty[1];
	const uint8_t *images[] = {empty};
	size_t sizes[] = {0};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ol_wrap_request req = {
			.kind = cases[i].kind, .flavor = cases[i].flavor, .host_triple = host_triple,
			.images = images, .sizes = sizes, .nimages = 1, .want_ir = 1,
		};
		int hip = cases[i].kind == OL_WRAP_HIP;
		struct ol_buffer obj = {0};
		char *ir = NULL, *err = NULL, name[32];

		snprintf(name, sizeof(name), "wrap-%s-%d", hip ? "hip" : "cuda", cases[i].flavor);
		if (be->wrap(&req, &obj, &ir, &err) != 0) {
			fail("%s: %s", name, err ? err : "(no message)");
			release(&obj, &ir, &err);
			continue;
		}
		if (cases[i].expected) {
			compare_text(name, ir, cases[i].expected);
		} else {
			/* 16's entry test was an icmp constant expression, which
			 * LLVM 19 removed; everything else keeps 16's shape. */
			CHECK(strstr(ir, hip ? "@__dummy.hip_offloading.entry = hidden constant"
					     : "@__dummy.cuda_offloading.entry = hidden constant"),
			      "%s: no external hidden dummy entry", name);
			CHECK(strstr(ir, hip ? "{ i32 1, ptr @.hip.fatbin_reg, ptr null }"
					     : "{ i32 1, ptr @.cuda.fatbin_reg, ptr null }"),
			      "%s: constructor priority is not 1", name);
			CHECK(strstr(ir, "switch i32 %flag, label %if.end"),
			      "%s: does not switch on the whole flags word", name);
			CHECK(!strstr(ir, "RegisterSurface") && !strstr(ir, "RegisterManagedVar"),
			      "%s: declares registration calls 16 did not have", name);
		}
		check_section(name, &obj, cases[i].image_section, SHT_PROGBITS, SHF_ALLOC);
		check_section(name, &obj, cases[i].segment, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
		check_section(name, &obj, cases[i].flavor == 16 ? ".init_array.1" : ".init_array.101",
			      SHT_INIT_ARRAY, SHF_ALLOC | SHF_WRITE);
		release(&obj, &ir, &err);
	}

	{
		const uint8_t *two[] = {empty, empty};
		size_t two_sizes[] = {0, 0};
		struct ol_wrap_request req = {
			.kind = OL_WRAP_CUDA, .flavor = 22, .host_triple = host_triple,
			.images = two, .sizes = two_sizes, .nimages = 2,
		};
		struct ol_buffer obj = {0};
		char *err = NULL;

		CHECK(be->wrap(&req, &obj, NULL, &err) != 0 && err,
		      "wrap-cuda: two fatbinaries in one module were accepted");
		release(&obj, NULL, &err);
	}
}

/* --- wrap: SYCL ----------------------------------------------------------------- */

static void test_wrap_sycl(const struct ol_backend *be)
{
	static const char *const stub_symbols[] = {"stub"};
	static const char *const kernels[] = {"_ZTS4kern", "_ZTS5kern2"};
	/* The SPIR-V magic, version and generator words.  The code sizes avoid
	 * what LLVM puts in a mergeable section of its own: 4, 8, 16 or 32
	 * bytes, or bytes that read as one NUL-terminated string. */
	static const uint8_t spirv[12] = {0x03, 0x02, 0x23, 0x07, 0x00, 0x04, 0x01, 0x00,
					  0x16, 0x00, 0x2b, 0x00};
	struct ol_wrap_sycl_image images[2] = {
		{.offload_kind = 8, .image_kind = 0, .triple = "", .compile_options = "",
		 .link_options = "", .symbols = stub_symbols, .nsymbols = 1},
		{.offload_kind = 8, .image_kind = 6, .triple = "spirv64-unknown-unknown",
		 .compile_options = "-g", .link_options = "", .symbols = kernels, .nsymbols = 2,
		 .image = spirv, .image_size = sizeof(spirv)},
	};
	struct ol_wrap_request req = {
		.kind = OL_WRAP_SYCL, .flavor = 22, .host_triple = host_triple,
		.sycl_images = images, .nsycl_images = 1, .want_ir = 1,
	};
	struct ol_buffer obj = {0};
	struct section_info code;
	char *ir = NULL, *err = NULL;

	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		fail("wrap-sycl-22: %s", err ? err : "(no message)");
	} else {
		compare_text("wrap-sycl-22", ir, expected_sycl_22);
		/* Entries hold relocations: writable, as upstream's are. */
		check_section("wrap-sycl-22", &obj, "llvm_offload_entries", SHT_PROGBITS,
			      SHF_ALLOC | SHF_WRITE);
		check_section("wrap-sycl-22", &obj, ".init_array.1", SHT_INIT_ARRAY,
			      SHF_ALLOC | SHF_WRITE);
		check_section("wrap-sycl-22", &obj, ".fini_array.1", SHT_FINI_ARRAY,
			      SHF_ALLOC | SHF_WRITE);
	}
	release(&obj, &ir, &err);

	/* Two images: names numbered per image, the second image's entries
	 * and its device code bracketed, both images' code (6 + 12 bytes) in
	 * .llvm.offloading. */
	images[0].image = spirv;
	images[0].image_size = 6;
	req.nsycl_images = 2;
	if (be->wrap(&req, &obj, &ir, &err) != 0) {
		fail("wrap-sycl-two: %s", err ? err : "(no message)");
	} else {
		CHECK(strstr(ir, "@.sycl_offloading.opts.compile.1 = internal unnamed_addr constant "
				 "[3 x i8] c\"-g\\00\""),
		      "wrap-sycl-two: no compile options of image 1:\n%s", ir);
		CHECK(strstr(ir, "@.offloading.entry._ZTS5kern2 = weak constant "
				 "%struct.__tgt_offload_entry { i64 0, i16 1, i16 8, i32 0, ptr null, "
				 "ptr @.offloading.entry_name.2,"),
		      "wrap-sycl-two: no entry for the second kernel of image 1:\n%s", ir);
		CHECK(strstr(ir, "{ i16 3, i8 8, i8 6, ptr @.sycl_offloading.target.1, "
				 "ptr @.sycl_offloading.opts.compile.1, ptr @.sycl_offloading.opts.link.1, "
				 "ptr @.sycl_offloading.1.data, ptr getelementptr ([12 x i8], "
				 "ptr @.sycl_offloading.1.data, i64 0, i64 12), "
				 "ptr @.sycl_offloading.entries_arr.3, ptr getelementptr ([2 x "
				 "%struct.__tgt_offload_entry], ptr @.sycl_offloading.entries_arr.3, "
				 "i64 0, i64 2), ptr null, ptr null }"),
		      "wrap-sycl-two: image 1 is not described as expected:\n%s", ir);
		CHECK(strstr(ir, "{ i16 1, i16 2, ptr @.sycl_offloading.device_images, ptr null, "
				 "ptr null }"),
		      "wrap-sycl-two: the descriptor does not count two images:\n%s", ir);
		check_section("wrap-sycl-two", &obj, ".llvm.offloading", SHT_LLVM_OFFLOADING,
			      SHF_ALLOC);
		elf_section(&obj, ".llvm.offloading", &code);
		CHECK(code.size == 6 + sizeof(spirv), "wrap-sycl-two: .llvm.offloading holds %llu "
		      "bytes, not the 18 of the device code", (unsigned long long)code.size);
	}
	release(&obj, &ir, &err);

	/* SYCL exists only in 22. */
	req.flavor = 19;
	CHECK(be->wrap(&req, &obj, &ir, &err) != 0 && err && strstr(err, "flavor 22"),
	      "wrap-sycl-19: a SYCL module was built for flavor 19");
	release(&obj, &ir, &err);
}

/* --- clang-built inputs ---------------------------------------------------------- */

static int run(char *const argv[])
{
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return -1;
	rc = fputs(text, f) < 0 ? -1 : 0;
	return fclose(f) == 0 ? rc : -1;
}

static int read_file(const char *path, struct ol_buffer *out)
{
	FILE *f = fopen(path, "rb");
	long n;

	out->data = NULL;
	out->size = 0;
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	out->data = malloc((size_t)n + 1);
	if (!out->data || fread(out->data, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(out->data);
		out->data = NULL;
		return -1;
	}
	out->size = (size_t)n;
	fclose(f);
	return 0;
}

struct workdir {
	char path[256];
	char files[32][320];
	int nfiles;
};

/* <dir>/<name>, remembered for cleanup. */
static const char *work_file(struct workdir *w, const char *name)
{
	char path[320];
	char *p = w->files[w->nfiles < 32 ? w->nfiles++ : 31];

	snprintf(path, sizeof(path), "%s/%s", w->path, name);
	memcpy(p, path, sizeof(path));
	return p;
}

/* Compiles `source` (written to <name>.c) with clang and extra flags into
 * <name>.o, and reads it.  Returns -1 (and says why) if clang fails. */
static int compile(struct workdir *w, const char *clang, const char *name, const char *source,
		   const char *const *flags, struct ol_buffer *out)
{
	char src_name[64], obj_name[64];
	const char *src, *obj;
	char *argv[24];
	int argc = 0;

	snprintf(src_name, sizeof(src_name), "%s.c", name);
	snprintf(obj_name, sizeof(obj_name), "%s.o", name);
	src = work_file(w, src_name);
	obj = work_file(w, obj_name);
	if (write_file(src, source) != 0) {
		fail("cannot write %s", src);
		return -1;
	}
	argv[argc++] = (char *)clang;
	for (; *flags && argc < 18; flags++)
		argv[argc++] = (char *)*flags;
	argv[argc++] = (char *)"-c";
	argv[argc++] = (char *)src;
	argv[argc++] = (char *)"-o";
	argv[argc++] = (char *)obj;
	argv[argc] = NULL;
	if (run(argv) != 0) {
		fail("%s could not compile %s", clang, src);
		return -1;
	}
	if (read_file(obj, out) != 0) {
		fail("cannot read %s", obj);
		return -1;
	}
	return 0;
}

static const struct ol_bc_symbol *find_bc_symbol(const struct ol_bc_symbol *syms, size_t n,
						 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(syms[i].name, name) == 0)
			return &syms[i];
	return NULL;
}

static const char omp_source[] =
	"int main(void) {\n"
	"  int x = 0;\n"
	"#pragma omp target map(tofrom: x)\n"
	"  x = 42;\n"
	"  return x != 42;\n"
	"}\n";

/* Host -flto bitcode with an embedded device image, from clang-N. */
static void test_bitcode_info(const struct ol_backend *be, struct workdir *w, const char *clang,
			      int major)
{
	static const char *const flags[] = {"-fopenmp", "-fopenmp-targets=x86_64-unknown-linux-gnu",
					    "-flto", NULL};
	static const uint8_t magic[4] = {0x10, 0xff, 0x10, 0xad};
	struct ol_buffer bc;
	struct ol_bc_info info;
	const struct ol_bc_symbol *main_sym;
	char *err = NULL, name[32];

	snprintf(name, sizeof(name), "omp%d", major);
	if (compile(w, clang, name, omp_source, flags, &bc) != 0)
		return;
	if (be->bitcode_info(bc.data, bc.size, name, &info, &err) != 0) {
		fail("bitcode_info(%s): %s", name, err ? err : "(no message)");
		free(err);
		free(bc.data);
		return;
	}
	CHECK(info.noffload_sections == 1, "%s: %zu offloading sections, expected 1", name,
	      info.noffload_sections);
	if (info.noffload_sections >= 1)
		CHECK(info.offload_sections[0].size > 0x40 &&
		      memcmp(info.offload_sections[0].data, magic, 4) == 0,
		      "%s: embedded section is not an OffloadBinary", name);
	CHECK(info.clang_major == major, "%s: clang_major %d, expected %d", name, info.clang_major,
	      major);
	CHECK(info.entries_abi == (major >= 22 ? 22 : 16), "%s: entries_abi %d", name,
	      info.entries_abi);
	main_sym = find_bc_symbol(info.symbols, info.nsymbols, "main");
	CHECK(main_sym && main_sym->defined && !main_sym->weak && !main_sym->hidden,
	      "%s: main is not a defined strong default-visibility symbol", name);
	for (size_t i = 0; i < info.nsymbols; i++)
		CHECK(strncmp(info.symbols[i].name, "llvm.", 5) != 0, "%s: symbol list has %s",
		      name, info.symbols[i].name);
	be->bitcode_info_free(&info);
	free(bc.data);
}

static void test_bitcode_symbols(const struct ol_backend *be, struct workdir *w, const char *clang)
{
	static const char source[] =
		"int common_var;\n"
		"__attribute__((weak)) int weak_fn(void) { return 1; }\n"
		"__attribute__((visibility(\"hidden\"))) int hidden_fn(void) { return 2; }\n"
		"extern int undef_fn(void);\n"
		"static int local_fn(void) { return 3; }\n"
		"int user(void) { return undef_fn() + local_fn() + weak_fn() + hidden_fn() + common_var; }\n";
	static const char *const flags[] = {"-flto", "-fcommon", "-O0",
					    "--target=x86_64-unknown-linux-gnu", NULL};
	struct ol_buffer bc;
	struct ol_bc_symbol *syms = NULL;
	const struct ol_bc_symbol *s;
	size_t n = 0;
	char *err = NULL;

	if (compile(w, clang, "syms", source, flags, &bc) != 0)
		return;
	if (be->bitcode_symbols(bc.data, bc.size, "syms.o", &syms, &n, &err) != 0) {
		fail("bitcode_symbols: %s", err ? err : "(no message)");
		free(err);
		free(bc.data);
		return;
	}
	s = find_bc_symbol(syms, n, "common_var");
	CHECK(s && s->defined && s->common && s->weak, "symbols: common_var is not common");
	s = find_bc_symbol(syms, n, "weak_fn");
	CHECK(s && s->defined && s->weak && !s->common, "symbols: weak_fn is not weak");
	s = find_bc_symbol(syms, n, "hidden_fn");
	CHECK(s && s->defined && s->hidden && !s->weak, "symbols: hidden_fn is not hidden");
	s = find_bc_symbol(syms, n, "undef_fn");
	CHECK(s && !s->defined, "symbols: undef_fn is not undefined");
	s = find_bc_symbol(syms, n, "user");
	CHECK(s && s->defined && !s->weak && !s->hidden, "symbols: user is not a plain definition");
	CHECK(!find_bc_symbol(syms, n, "local_fn"), "symbols: the static local_fn is listed");
	for (size_t i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);

	/* Not bitcode: an error naming the input, no crash, no exit. */
	CHECK(be->bitcode_symbols((const uint8_t *)"garbage!", 8, "bad.o", &syms, &n, &err) != 0 &&
	      err && strstr(err, "bad.o"), "symbols: garbage accepted or error without a name");
	free(err);
	free(bc.data);
}

/* --- LTO ----------------------------------------------------------------------------- */

/* lto() for a request that wants no remarks: there must be none. */
static int run_lto(const struct ol_backend *be, const struct ol_lto_request *req,
		   struct ol_buffer *out, char **err)
{
	struct ol_buffer remarks = { NULL, 0 };
	int rc = be->lto(req, out, &remarks, err);

	CHECK(remarks.size == 0 && remarks.data == NULL, "lto: remarks nobody asked for");
	free(remarks.data);
	return rc;
}

struct lto_job {
	const struct ol_backend *be;
	const struct ol_lto_request *req;
	struct ol_buffer out;
	char *err;
	int rc;
};

static void *lto_thread(void *arg)
{
	struct lto_job *job = arg;

	job->rc = run_lto(job->be, job->req, &job->out, &job->err);
	return NULL;
}

static void test_lto(const struct ol_backend *be, struct workdir *w, const char *clang)
{
	static const char a_source[] =
		"int helper(int x);\n"
		"int exported(int x) { return helper(x) + 1; }\n";
	static const char b_source[] =
		"__attribute__((visibility(\"hidden\"), noinline)) int helper(int x)\n"
		"{ return x * 3 + (x >> 2); }\n"
		"__attribute__((visibility(\"hidden\"))) int kept_hidden(int x) { return x - 7; }\n"
		"__attribute__((visibility(\"hidden\"), section(\"my_entries\"))) int table_entry = 5;\n"
		"extern void register_image(void);\n"
		"__attribute__((constructor(200))) static void setup(void) { register_image(); }\n";
	static const char dup_source[] = "int exported(int x) { return x; }\n";
	static const char *const flags[] = {"-flto", "-fPIC", "-O2",
					    "--target=x86_64-unknown-linux-gnu", NULL};
	static const char *const preserve[] = {"kept_hidden", NULL};
	struct ol_buffer a, b, dup, out = {0};
	struct symbol_info sym;
	char *err = NULL;
	char prefix[300];
	struct stat st;

	if (compile(w, clang, "lto_a", a_source, flags, &a) != 0)
		return;
	if (compile(w, clang, "lto_b", b_source, flags, &b) != 0) {
		free(a.data);
		return;
	}
	{
		const uint8_t *modules[] = {a.data, b.data};
		size_t sizes[] = {a.size, b.size};
		const char *names[] = {"lto_a.o", "lto_b.o"};
		struct ol_lto_request req = {
			.triple = "x86_64-unknown-linux-gnu", .cpu = "", .features = "",
			.opt_level = 2, .modules = modules, .sizes = sizes, .names = names,
			.nmodules = 2, .preserve = preserve,
		};
		struct lto_job jobs[2] = {{be, &req, {0}, NULL, 0}, {be, &req, {0}, NULL, 0}};
		pthread_t threads[2];

		snprintf(prefix, sizeof(prefix), "%s/lto", w->path);
		req.save_temps_prefix = prefix;
		if (run_lto(be, &req, &out, &err) != 0) {
			fail("lto: %s", err ? err : "(no message)");
		} else {
			elf_symbol(&out, "exported", &sym);
			CHECK(sym.found && sym.defined && sym.bind == STB_GLOBAL,
			      "lto: exported is not a defined global symbol");
			elf_symbol(&out, "helper", &sym);
			CHECK(!sym.found || sym.bind == STB_LOCAL,
			      "lto: the hidden helper was not internalized");
			CHECK(sym.found, "lto: helper (noinline) vanished, the test proves nothing");
			elf_symbol(&out, "kept_hidden", &sym);
			CHECK(sym.found && sym.bind == STB_GLOBAL && sym.visibility == STV_HIDDEN,
			      "lto: a preserved hidden symbol was internalized");
			elf_symbol(&out, "table_entry", &sym);
			CHECK(sym.found && sym.bind == STB_GLOBAL,
			      "lto: a symbol in a __start_/__stop_ section was internalized");
			/* A CPU image is a shared object: constructors belong in
			 * .init_array, as clang (-fuse-init-array) puts them. */
			check_section("lto", &out, ".init_array.200", SHT_INIT_ARRAY,
				      SHF_ALLOC | SHF_WRITE);
			CHECK(!elf_has_section_prefix(&out, ".ctors"),
			      "lto: constructors went to .ctors");
			CHECK(stat(work_file(w, "lto.postlink.bc"), &st) == 0 && st.st_size > 0,
			      "lto: no <prefix>.postlink.bc");
			CHECK(stat(work_file(w, "lto.postopt.bc"), &st) == 0 && st.st_size > 0,
			      "lto: no <prefix>.postopt.bc");
		}
		req.save_temps_prefix = NULL;

		/* Two links at once: separate contexts, same result. */
		for (int i = 0; i < 2; i++)
			if (pthread_create(&threads[i], NULL, lto_thread, &jobs[i]) != 0)
				jobs[i].rc = -2;
		for (int i = 0; i < 2; i++)
			if (jobs[i].rc != -2)
				pthread_join(threads[i], NULL);
		CHECK(jobs[0].rc == 0 && jobs[1].rc == 0, "lto: concurrent links failed: %s",
		      jobs[0].err ? jobs[0].err : jobs[1].err ? jobs[1].err : "(no message)");
		CHECK(jobs[0].out.size == jobs[1].out.size && jobs[0].out.size == out.size &&
		      memcmp(jobs[0].out.data, jobs[1].out.data, out.size) == 0,
		      "lto: concurrent links produced different objects");
		for (int i = 0; i < 2; i++)
			release(&jobs[i].out, NULL, &jobs[i].err);
		release(&out, NULL, &err);

		/* Assembly, and O0 (the lto<O0> pipeline). */
		req.emit_assembly = 1;
		req.opt_level = 0;
		if (run_lto(be, &req, &out, &err) != 0) {
			fail("lto -O0 -S: %s", err ? err : "(no message)");
		} else {
			char *text = malloc(out.size + 1);

			if (text) {
				memcpy(text, out.data, out.size);
				text[out.size] = '\0';
				CHECK(strstr(text, "exported:") && strstr(text, "helper:"),
				      "lto -O0 -S: assembly lacks the functions");
				free(text);
			}
		}
		release(&out, NULL, &err);
		req.emit_assembly = 0;
		req.opt_level = 2;

		/* Errors come back as text naming the input, never exit(). */
		names[1] = "dup.o";
		if (compile(w, clang, "lto_dup", dup_source, flags, &dup) == 0) {
			modules[1] = dup.data;
			sizes[1] = dup.size;
			CHECK(run_lto(be, &req, &out, &err) != 0 && err && strstr(err, "exported"),
			      "lto: two strong definitions of 'exported' were accepted (%s)",
			      err ? err : "no message");
			release(&out, NULL, &err);
			free(dup.data);
		}
		modules[1] = (const uint8_t *)"not bitcode";
		sizes[1] = 11;
		names[1] = "junk.o";
		CHECK(run_lto(be, &req, &out, &err) != 0 && err && strstr(err, "junk.o"),
		      "lto: junk accepted or error without the input's name (%s)",
		      err ? err : "no message");
		release(&out, NULL, &err);

		req.triple = "nosucharch-unknown-linux";
		modules[1] = b.data;
		sizes[1] = b.size;
		CHECK(run_lto(be, &req, &out, &err) != 0 && err, "lto: an unknown triple was accepted");
		release(&out, NULL, &err);
	}
	free(a.data);
	free(b.data);
}

static const char *find_clang(const char *env, const char *name)
{
	const char *path = getenv(env);
	static char found[2][512];
	static int slot;
	const char *dirs;

	if (path && *path)
		return path;
	dirs = getenv("PATH");
	while (dirs && *dirs) {
		const char *end = strchr(dirs, ':');
		size_t len = end ? (size_t)(end - dirs) : strlen(dirs);
		char *candidate = found[slot];

		snprintf(candidate, sizeof(found[0]), "%.*s/%s", (int)len, dirs, name);
		if (access(candidate, X_OK) == 0) {
			slot = !slot;
			return candidate;
		}
		dirs = end ? end + 1 : NULL;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : getenv("OFFLOAD_LINK_BACKEND");
	const char *init_argv[] = {"test_backend"};
	const struct ol_backend *be;
	ol_backend_entry_fn entry;
	const char *clang22, *clang19, *tmp;
	struct workdir w;
	char *err = NULL;
	void *module;

	if (!path) {
		fprintf(stderr, "usage: test_backend offload-link-llvm.so (or set OFFLOAD_LINK_BACKEND)\n");
		return 2;
	}
	module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!module) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", path, dlerror());
		return 1;
	}
	entry = (ol_backend_entry_fn)dlsym(module, OL_BACKEND_ENTRY);
	if (!entry || !(be = entry())) {
		fprintf(stderr, "FAIL: %s has no %s\n", path, OL_BACKEND_ENTRY);
		return 1;
	}
	CHECK(be->abi == OL_BACKEND_ABI, "abi %d, expected %d", be->abi, OL_BACKEND_ABI);
	CHECK(be->llvm_version && *be->llvm_version, "no llvm_version");
	CHECK(dlsym(module, "ol_be_wrap") == NULL, "the module exports internal symbols");
	CHECK(be->init(1, init_argv, &err) == 0, "init: %s", err ? err : "(no message)");
	CHECK(be->init(1, init_argv, &err) == 0, "init twice: %s", err ? err : "(no message)");
	elf_version(EV_CURRENT);

	tmp = getenv("TMPDIR");
	snprintf(w.path, sizeof(w.path), "%s/test_backend.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	w.nfiles = 0;
	if (!mkdtemp(w.path)) {
		fprintf(stderr, "FAIL: mkdtemp %s: %s\n", w.path, strerror(errno));
		return 1;
	}

	test_wrap_openmp(be);
	test_wrap_relocatable(be);
	test_wrap_image_bounds(be);
	test_wrap_save_bc(be, w.path);
	test_wrap_cuda_hip(be);
	test_wrap_sycl(be);

	clang22 = find_clang("OL_TEST_CLANG", "clang-22");
	if (clang22) {
		test_bitcode_info(be, &w, clang22, 22);
		test_bitcode_symbols(be, &w, clang22);
		test_lto(be, &w, clang22);
	} else {
		fprintf(stderr, "note: clang-22 not found: bitcode and LTO parts not run\n");
	}
	clang19 = find_clang("OL_TEST_CLANG19", "clang-19");
	if (clang19)
		test_bitcode_info(be, &w, clang19, 19);

	for (int i = 0; i < w.nfiles; i++)
		unlink(w.files[i]);
	if (rmdir(w.path) != 0)
		fprintf(stderr, "note: %s left behind: %s\n", w.path, strerror(errno));

	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("test_backend: all passed (LLVM %s)\n", be->llvm_version);
	return 0;
}
