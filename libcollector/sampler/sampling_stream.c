/* Systematic sampling from a random start (sampling_stream.h). */
#define _GNU_SOURCE
#include "sampling_stream.h"

#include <time.h>
#include <unistd.h>

uint64_t sampling_random_seed(uint64_t salt)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)getpid() ^ salt;
}

uint64_t sampling_next_random(uint64_t *state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ULL;
}

void sampling_stream_start(struct sampling_stream *s, uint64_t period, uint64_t *random_state)
{
  s->period = period;
  s->amount = 0;
  s->next_crossing = (double)(sampling_next_random(random_state) >> 11) / 9007199254740992.0 * (double)period;
}

uint32_t sampling_stream_add(struct sampling_stream *s, double amount)
{
  uint32_t crossed = 0;
  s->amount += amount;
  while (s->amount >= s->next_crossing) {
    s->next_crossing += (double)s->period;
    crossed++;
  }
  return crossed;
}
