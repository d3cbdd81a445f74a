/* A unit of the timing program (omp-timing-main.c): the declare-target
 * function the sequential part of its generic-mode kernel calls. */
#include "omp-timing.h"

#pragma omp declare target
unsigned row_weight(unsigned row, int rounds)
{
	return mix(row * 2654435761u, 69069u, 12345u, rounds);
}
#pragma omp end declare target
