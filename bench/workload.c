/* A fixed amount of ordinary work, the demo and the benchmark program:
 * each thread fills a hash table with words, sorts them, and sieves primes.
 * Prints the wall time of the work itself (measured inside, so start-up
 * and debugger overhead do not count) and the process's CPU time.
 *
 *   workload [THREADS] [ROUNDS] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define TABLE_SIZE (1 << 16)
#define WORDS 200000

struct entry {
  uint64_t key;
  unsigned count;
};

static uint64_t next_random(uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

__attribute__((noinline)) static unsigned count_words(struct entry *table, uint64_t seed)
{
  unsigned distinct = 0;
  for (int i = 0; i < WORDS; i++) {
    uint64_t word = next_random(&seed) % 50000 + 1;
    size_t slot = (size_t)(word * 0x9E3779B97F4A7C15ull >> 48) & (TABLE_SIZE - 1);
    while (table[slot].key != 0 && table[slot].key != word)
      slot = (slot + 1) & (TABLE_SIZE - 1);
    if (table[slot].key == 0) {
      table[slot].key = word;
      distinct++;
    }
    table[slot].count++;
  }
  return distinct;
}

static int by_count(const void *a, const void *b)
{
  const struct entry *x = a, *y = b;
  return x->count != y->count ? (x->count < y->count) - (x->count > y->count) : (x->key > y->key) - (x->key < y->key);
}

__attribute__((noinline)) static unsigned sort_by_frequency(struct entry *table)
{
  qsort(table, TABLE_SIZE, sizeof *table, by_count);
  return table[0].count;
}

__attribute__((noinline)) static unsigned sieve_primes(unsigned limit)
{
  unsigned char *composite = calloc(limit + 1, 1);
  unsigned found = 0;
  for (unsigned i = 2; i <= limit; i++) {
    if (composite[i])
      continue;
    found++;
    for (unsigned long j = (unsigned long)i * i; j <= limit; j += i)
      composite[j] = 1;
  }
  free(composite);
  return found;
}

static int rounds = 40;

static void *worker(void *arg)
{
  uint64_t seed = (uintptr_t)arg * 7919 + 1;
  unsigned checksum = 0;
  struct entry *table = malloc(sizeof *table * TABLE_SIZE);
  for (int r = 0; r < rounds; r++) {
    memset(table, 0, sizeof *table * TABLE_SIZE);
    checksum += count_words(table, seed + (uint64_t)r);
    checksum += sort_by_frequency(table);
    checksum += sieve_primes(2000000);
  }
  free(table);
  return (void *)(uintptr_t)checksum;
}

static double now(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  if (argc > 2)
    rounds = atoi(argv[2]);
  if (threads < 1 || threads > 64)
    threads = 2;
  pthread_t ids[64];
  double start = now(CLOCK_MONOTONIC);
  for (int i = 1; i < threads; i++)
    pthread_create(&ids[i], NULL, worker, (void *)(uintptr_t)i);
  uintptr_t checksum = (uintptr_t)worker(0);
  for (int i = 1; i < threads; i++) {
    void *r;
    pthread_join(ids[i], &r);
    checksum += (uintptr_t)r;
  }
  double work = now(CLOCK_MONOTONIC) - start;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  printf("checksum=%lu work_seconds=%.4f cpu_seconds=%.3f\n", (unsigned long)checksum, work, cpu);
  return 0;
}
