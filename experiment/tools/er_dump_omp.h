/* er-dump's OpenMP section (er_dump_omp.c). */
#ifndef ER_DUMP_OMP_H
#define ER_DUMP_OMP_H

#include "er/er_reader.h"

/* The CPU seconds of the clock samples in each OpenMP state, and
 * gprofng's OpenMP Work, Wait and Overhead; nothing when no sample has a
 * state (not an OpenMP program, or no marker frames). */
void er_dump_omp(const struct er_experiment *exp);

#endif
