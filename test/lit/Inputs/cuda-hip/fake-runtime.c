/*
 * fake-runtime.c: the registration entry points of the CUDA and HIP
 * runtimes, printing what a program's registration constructors hand them,
 * so a test sees every kernel and variable registered (and how often)
 * without a GPU or a vendor runtime.  Build with -DHIP for the HIP names.
 */
#include <stddef.h>
#include <stdio.h>

#ifdef HIP
#define RT(name) __hip##name
#define LAUNCH hipLaunchKernel
#define DEVICE_COUNT hipGetDeviceCount
#else
#define RT(name) __cuda##name
#define LAUNCH cudaLaunchKernel
#define DEVICE_COUNT cudaGetDeviceCount
#endif

static int handles;

void **RT(RegisterFatBinary)(void *wrapper)
{
	static void *handle[16];
	unsigned magic = *(unsigned *)wrapper;
	printf("fatbinary %d magic %#x\n", handles, magic);
	return &handle[handles++ % 16];
}

void RT(RegisterFatBinaryEnd)(void **handle) { (void)handle; }
void RT(UnregisterFatBinary)(void **handle) { (void)handle; }

void RT(RegisterFunction)(void **handle, const char *host, char *device, const char *name,
			  int limit, void *tid, void *bid, void *bdim, void *gdim, int *wsize)
{
	(void)handle, (void)host, (void)device, (void)limit, (void)tid, (void)bid;
	(void)bdim, (void)gdim, (void)wsize;
	printf("function %s\n", name);
}

void RT(RegisterVar)(void **handle, char *host, char *device, const char *name, int ext,
		     size_t size, int constant, int global)
{
	(void)handle, (void)host, (void)device, (void)global;
	printf("variable %s size %zu%s%s\n", name, size, ext ? " extern" : "", constant ? " constant" : "");
}

void RT(RegisterManagedVar)(void **handle, void **host, char *device, const char *name,
			    size_t size, unsigned align)
{
	(void)handle, (void)host, (void)device, (void)align;
	printf("managed %s size %zu\n", name, size);
}

#ifdef HIP
/* HIP's module also registers surfaces and textures (none here). */
void RT(RegisterSurface)(void **handle, void *var, char *device, const char *name, int dim, int ext)
{
	(void)handle, (void)var, (void)device, (void)dim, (void)ext;
	printf("surface %s\n", name);
}

void RT(RegisterTexture)(void **handle, void *var, char *device, const char *name, int dim,
			 int norm, int ext)
{
	(void)handle, (void)var, (void)device, (void)dim, (void)norm, (void)ext;
	printf("texture %s\n", name);
}
#endif

int LAUNCH(const void *f, ...) { (void)f; return 1; }
/* What a kernel's host stub calls before launching. */
int RT(PopCallConfiguration)(void *grid, void *block, void *shmem, void *stream)
{
	(void)grid, (void)block, (void)shmem, (void)stream;
	return 0;
}
int DEVICE_COUNT(int *n) { *n = 0; return 100; }
