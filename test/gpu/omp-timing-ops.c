/* A unit of the timing program (omp-timing-main.c): a static const table of
 * function pointers, which its fptable kernel calls through (ops_apply). */
#include "omp-timing.h"

#pragma omp declare target
static unsigned op_lcg(unsigned x, int rounds) { return mix(x, 1664525u, 1013904223u, rounds); }
static unsigned op_knuth(unsigned x, int rounds) { return mix(x, 2654435761u, 1u, rounds); }
static unsigned op_pcg(unsigned x, int rounds) { return mix(x ^ 0x5a5a5au, 747796405u, 2891336453u, rounds); }
static unsigned op_xor(unsigned x, int rounds) { return mix(~x, 22695477u, 7u, rounds); }

static unsigned (*const ops[TIMING_OPS])(unsigned, int) = { op_lcg, op_knuth, op_pcg, op_xor };

unsigned ops_apply(unsigned op, unsigned x, int rounds)
{
	return ops[op % TIMING_OPS](x, rounds);
}
#pragma omp end declare target
