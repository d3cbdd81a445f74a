/* The program with a target region: it must run on the device. */
#pragma omp begin declare variant match(device = {kind(host)})
static inline int omp_is_initial_device(void) { return 1; }
#pragma omp end declare variant
#pragma omp begin declare variant match(device = {kind(nohost)})
static inline int omp_is_initial_device(void) { return 0; }
#pragma omp end declare variant

int main(void)
{
	int on_device = 0;

#pragma omp target map(from: on_device)
	on_device = !omp_is_initial_device();
	__builtin_printf("app: target region on the device: %s\n", on_device ? "yes" : "no");
	return !on_device;
}
