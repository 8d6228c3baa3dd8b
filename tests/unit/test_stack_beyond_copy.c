/* The stack beyond a sample's copy, read from the live thread
 * (stack_beyond_copy.c), with no GDB and no sampler: a worker thread
 * stands still with a known pattern on its stack while this thread plays
 * the sampler.  A copy of its stack's first part whose end matches the
 * live stack is joined to the bytes beyond it; a copy whose last bytes
 * differ (the thread has moved on) is left cut, counted; a thread that
 * has ended is read from its last reading where the copy's end still
 * matches it, else counted unreadable; where the sample says what lay
 * beyond its copy (stack_prints.h), only what still lies there. */
#define _GNU_SOURCE
#include <asm/perf_regs.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stack_beyond_copy.h"

static int failures;

static void check(int ok, const char *what)
{
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

#define PATTERN_BYTES (40 * 1024)
static unsigned char *volatile worker_pattern; /* on the worker's stack */
static volatile pid_t worker_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go_home;

static void *worker(void *unused)
{
  unsigned char pattern[PATTERN_BYTES];
  for (size_t i = 0; i < sizeof pattern; i++)
    pattern[i] = (unsigned char)(i * 7 + i / 251);
  pthread_mutex_lock(&lock);
  worker_pattern = pattern;
  worker_tid = gettid();
  pthread_cond_broadcast(&cond);
  while (!go_home)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
  __asm__ volatile("" ::"r"(pattern) : "memory"); /* kept until here */
  return NULL;
}

/* A capture of the worker whose SP is the pattern's start and whose copy
 * is COPY (LEN bytes). */
static struct col_capture capture_of(const unsigned char *copy, size_t len)
{
  struct col_capture cap;
  memset(&cap, 0, sizeof cap);
  cap.tid = worker_tid;
  cap.regs.r[PERF_REG_X86_SP] = (uint64_t)(uintptr_t)worker_pattern;
  cap.stack = copy;
  cap.stack_len = len;
  return cap;
}

int main(void)
{
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  while (worker_pattern == NULL)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);

  static unsigned char copy[8192];
  memcpy(copy, worker_pattern, sizeof copy);
  struct col_stack_beyond_stats stats = {0, 0};
  struct col_capture cap = capture_of(copy, sizeof copy), joined;
  int got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == COL_BEYOND_JOINED && joined.stack_len == sizeof copy + 4096 &&
            memcmp(joined.stack, worker_pattern, joined.stack_len) == 0,
        "a copy whose end is still there: joined to the 4 KiB beyond it, byte for byte");
  got = col_stack_beyond_copy(&cap, 16384, 0, &joined, &stats);
  check(got == COL_BEYOND_JOINED && joined.stack_len == sizeof copy + 16384 &&
            memcmp(joined.stack, worker_pattern, joined.stack_len) == 0,
        "asked for more: 16 KiB beyond, byte for byte");
  got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == (COL_BEYOND_JOINED | COL_BEYOND_FROM_KEPT) && memcmp(joined.stack, worker_pattern, joined.stack_len) == 0,
        "again: from the last reading, without a system call");
  got = col_stack_beyond_copy(&cap, 4096, 1, &joined, &stats);
  check(got == COL_BEYOND_JOINED && memcmp(joined.stack, worker_pattern, joined.stack_len) == 0,
        "again, fresh: from the live stack");

  copy[sizeof copy - 100] ^= 0xff; /* the thread moved on: its copy's end is no longer there */
  got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == 0 && stats.moved_on == 1, "a copy whose last bytes differ from the live stack: left cut, counted");
  copy[sizeof copy - 100] ^= 0xff;

  /* The program's own samples: what lay beyond the copy when taken
   * (stack_prints.h).  A pointer-shaped word there changed since (a call
   * made after the thread returned above the copy's end): left cut; a
   * counter changed: joined. */
  struct col_beyond_prints prints;
  col_beyond_prints_take(worker_pattern + sizeof copy, PATTERN_BYTES - sizeof copy, sizeof copy, &prints);
  cap.beyond = &prints;
  got = col_stack_beyond_copy(&cap, 16384, 1, &joined, &stats);
  check(got == COL_BEYOND_JOINED && joined.stack_len == sizeof copy + 16384 &&
            memcmp(joined.stack, worker_pattern, joined.stack_len) == 0,
        "a sample that says what lay beyond its copy, unchanged: joined");
  uint64_t was, pointer = (uint64_t)(uintptr_t)&prints, counter = 12345;
  unsigned char *word = worker_pattern + sizeof copy + 10000;
  memcpy(&was, word, 8);
  memcpy(word, &pointer, 8);
  got = col_stack_beyond_copy(&cap, 4096, 1, &joined, &stats);
  check(got == COL_BEYOND_JOINED, "a pointer changed 10000 bytes beyond the copy: the first 4 KiB still joined");
  got = col_stack_beyond_copy(&cap, 16384, 1, &joined, &stats);
  check(got == 0 && stats.moved_on == 2, "a pointer changed 10000 bytes beyond the copy: 16 KiB left cut, counted");
  got = col_stack_beyond_copy(&cap, 16384, 0, &joined, &stats);
  check(got == 0 && stats.moved_on == 3, "the same from the last reading: left cut");
  memcpy(word, &counter, 8); /* (the pattern's word there is no pointer either: its top bytes are set) */
  got = col_stack_beyond_copy(&cap, 16384, 1, &joined, &stats);
  check(was >= (1ull << 47) && got == COL_BEYOND_JOINED, "a word that is no pointer changed (a counter): joined");
  memcpy(word, &was, 8);
  prints.copy_len = 4096;
  got = col_stack_beyond_copy(&cap, 4096, 1, &joined, &stats);
  check(got == 0, "prints taken beyond a longer copy than the one that came (its later parts lost): left cut");
  prints.len = 100 * 8; /* (the stack ended 800 bytes beyond the copy when taken) */
  prints.copy_len = sizeof copy;
  prints.sum[0] = col_beyond_sum_more(0, worker_pattern + sizeof copy, 0, prints.len);
  got = col_stack_beyond_copy(&cap, 4096, 1, &joined, &stats);
  check(got == (COL_BEYOND_JOINED | COL_BEYOND_STACK_ENDS) && joined.stack_len == sizeof copy + 800,
        "a stack that ended 800 bytes beyond the copy when taken: those 800 bytes, and its end");
  cap.beyond = NULL;

  unsigned char expected[8192 + 4096];
  memcpy(expected, worker_pattern, sizeof expected);
  pthread_mutex_lock(&lock);
  go_home = 1;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == (COL_BEYOND_JOINED | COL_BEYOND_FROM_KEPT) && joined.stack_len == sizeof copy + 4096 && memcmp(joined.stack, expected, joined.stack_len) == 0,
        "the thread ended: its last reading serves, the copy's end matching it");
  copy[sizeof copy - 1] ^= 0xff;
  uint64_t moved_on = stats.moved_on;
  got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == 0 && stats.moved_on == moved_on + 1, "the thread ended, the copy's end not matching its last reading: left cut");
  cap.tid = 0x7ffffff0; /* no such thread, nothing read before */
  got = col_stack_beyond_copy(&cap, 4096, 0, &joined, &stats);
  check(got == 0 && stats.unreadable == 1, "no such thread and no reading of it: counted unreadable");
  return failures != 0;
}
