/* Systematic sampling of an amount that comes in pieces (thread tails'
 * CPU time, threads' time off their CPU): one stream for all pieces, a
 * sample each time it crosses the next multiple of its period, from a
 * random start, so every unit has the same chance, 1/period, of being
 * recorded, and a piece is recorded as often as it crosses. */
#ifndef GDBCOL_SAMPLING_STREAM_H
#define GDBCOL_SAMPLING_STREAM_H

#include <stdint.h>

/* A pseudo-random generator (xorshift64*), seeded from the clock and the
 * process id with SALT. */
uint64_t sampling_random_seed(uint64_t salt);
uint64_t sampling_next_random(uint64_t *state);

struct sampling_stream {
  uint64_t period; /* 0: not sampled */
  double amount, next_crossing;
};
/* A new start for S: PERIOD units a sample, its first crossing drawn with
 * RANDOM_STATE. */
void sampling_stream_start(struct sampling_stream *s, uint64_t period, uint64_t *random_state);
/* AMOUNT more units: the multiples of the period they cross. */
uint32_t sampling_stream_add(struct sampling_stream *s, double amount);

#endif
