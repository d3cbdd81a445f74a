/* What the units of the timing program (omp-timing-main.c) share: the mixing
 * rounds every kernel spends its time in, and the device functions the other
 * units define. */
#ifndef OMP_TIMING_H
#define OMP_TIMING_H

/* The values the kernels compute are kept to MIX_BITS bits: on them each
 * round is a bijection, so the reduction's sums have a closed form. */
enum { MIX_BITS = 24 };
#define MIX_MASK ((1u << MIX_BITS) - 1u)

/* rounds rounds of a multiply, add and xor-shift mix: a bijection of
 * [0, 2^MIX_BITS) (odd multiplier; x ^ (x >> s) is invertible). */
static inline unsigned mix(unsigned x, unsigned a, unsigned c, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		x = (x * a + c) & MIX_MASK;
		x ^= x >> 7;
	}
	return x;
}

#pragma omp declare target
/* omp-timing-lib.c: the weight of one row of the generic-mode kernel. */
unsigned row_weight(unsigned row, int rounds);
/* omp-timing-ops.c: op (0 to TIMING_OPS - 1) of its static table of
 * function pointers, applied to x. */
unsigned ops_apply(unsigned op, unsigned x, int rounds);
#pragma omp end declare target
enum { TIMING_OPS = 4 };

#endif
