/* The other translation unit of omp-main.c: device code its target regions
 * call, linked into the same device image. */
#pragma omp declare target
int bias = 1;
int lib_scale(int x) { return 3 * x * x + bias; }
#pragma omp end declare target
