/* Known allocations, each allocator in a function of its own; the program
 * prints the truth it made ("truth: NAME allocs bytes leaks leaked_bytes"
 * per function) for the test to compare with the experiment:
 *   use_malloc         100 x malloc(100), 3 not freed
 *   use_calloc          50 x calloc(10, 20), 2 not freed
 *   use_realloc_moves   20 x malloc(16), a block after it, then realloc
 *                       to 100000 (moves), all freed: the moved-from
 *                       blocks are no leak
 *   use_realloc_stays   20 x malloc(4000) then realloc to 1000 (stays
 *                       in place), 1 not freed
 *   use_reallocarray    10 x reallocarray(NULL, 8, 32), 1 not freed
 *   use_posix_memalign  10 x posix_memalign(64, 4096), 2 not freed
 *   use_aligned_alloc   10 x aligned_alloc(128, 256), 1 not freed
 *   use_memalign         5 x memalign(256, 512), 1 not freed
 *   use_valloc           5 x valloc(8192), 1 not freed
 *   use_pvalloc          5 x pvalloc(5000), 1 not freed (the size asked)
 *   use_mmap             4 x anonymous mmap(65536), 1 not unmapped
 * Modes:
 *   heap_known                 the above, once
 *   heap_known churn SECONDS   4 threads malloc and free blocks of 1..512
 *                              bytes for SECONDS; prints churn_allocs=N
 *   heap_known attach          says "ready", then 2 threads in a tight
 *                              malloc/free loop, and leak_slowly() leaking
 *                              one 48-byte block every 10 ms, until
 *                              /tmp-like file STOP (argv[2]) exists
 *   heap_known hostile         malloc and free in a signal handler (a
 *                              1 ms timer) while the main thread allocates;
 *                              then fork from 3 threads' state and allocate
 *                              in the child; prints handler_allocs=N */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;

static void touch(void *p)
{
  if (p != NULL)
    *(volatile char *)p = 1;
  sink = p;
}

static void truth(const char *name, long allocs, long bytes, long leaks, long leaked)
{
  printf("truth: %s %ld %ld %ld %ld\n", name, allocs, bytes, leaks, leaked);
}


__attribute__((noinline)) static void use_malloc(void)
{
  for (int i = 0; i < 100; i++) {
    void *p = malloc(100);
    touch(p);
    if (i < 97)
      free(p);
  }
  truth("use_malloc", 100, 100 * 100, 3, 300);
}

__attribute__((noinline)) static void use_calloc(void)
{
  for (int i = 0; i < 50; i++) {
    void *p = calloc(10, 20);
    touch(p);
    if (i < 48)
      free(p);
  }
  truth("use_calloc", 50, 50 * 200, 2, 400);
}

/* realloc counts as an allocation of its new size (gprofng's metric). */
__attribute__((noinline)) static void use_realloc_moves(void)
{
  long moved = 0;
  char *moved_to[20], *after[20];
  for (int i = 0; i < 20; i++) {
    char *p = malloc(16);
    touch(p);
    after[i] = malloc(16); /* p cannot grow in place past it */
    touch(after[i]);
    moved_to[i] = realloc(p, 100000);
    touch(moved_to[i]);
    moved += moved_to[i] != p;
  }
  for (int i = 0; i < 20; i++) {
    free(moved_to[i]);
    free(after[i]);
  }
  printf("reallocs_moved=%ld\n", moved);
  truth("use_realloc_moves", 20 + 20 + 20, 20 * 16 * 2 + 20 * 100000L, 0, 0);
}

__attribute__((noinline)) static void use_realloc_stays(void)
{
  long stayed = 0;
  for (int i = 0; i < 20; i++) {
    char *p = malloc(4000);
    touch(p);
    char *q = realloc(p, 1000);
    touch(q);
    stayed += q == p;
    if (i < 19)
      free(q);
  }
  printf("reallocs_stayed=%ld\n", stayed);
  truth("use_realloc_stays", 40, 20 * 4000 + 20 * 1000, 1, 1000);
}

__attribute__((noinline)) static void use_reallocarray(void)
{
  for (int i = 0; i < 10; i++) {
    void *p = reallocarray(NULL, 8, 32);
    touch(p);
    if (i < 9)
      free(p);
  }
  truth("use_reallocarray", 10, 10 * 256, 1, 256);
}

__attribute__((noinline)) static void use_posix_memalign(void)
{
  for (int i = 0; i < 10; i++) {
    void *p = NULL;
    if (posix_memalign(&p, 64, 4096) != 0 || ((uintptr_t)p & 63) != 0)
      printf("warning: posix_memalign failed or misaligned\n");
    touch(p);
    if (i < 8)
      free(p);
  }
  truth("use_posix_memalign", 10, 10 * 4096, 2, 8192);
}

__attribute__((noinline)) static void use_aligned_alloc(void)
{
  for (int i = 0; i < 10; i++) {
    void *p = aligned_alloc(128, 256);
    if (((uintptr_t)p & 127) != 0)
      printf("warning: aligned_alloc misaligned\n");
    touch(p);
    if (i < 9)
      free(p);
  }
  truth("use_aligned_alloc", 10, 10 * 256, 1, 256);
}

__attribute__((noinline)) static void use_memalign(void)
{
  for (int i = 0; i < 5; i++) {
    void *p = memalign(256, 512);
    touch(p);
    if (i < 4)
      free(p);
  }
  truth("use_memalign", 5, 5 * 512, 1, 512);
}

__attribute__((noinline)) static void use_valloc(void)
{
  for (int i = 0; i < 5; i++) {
    void *p = valloc(8192);
    touch(p);
    if (i < 4)
      free(p);
  }
  truth("use_valloc", 5, 5 * 8192, 1, 8192);
}

__attribute__((noinline)) static void use_pvalloc(void)
{
  for (int i = 0; i < 5; i++) {
    void *p = pvalloc(5000);
    touch(p);
    if (i < 4)
      free(p);
  }
  truth("use_pvalloc", 5, 5 * 5000, 1, 5000);
}

__attribute__((noinline)) static void use_mmap(void)
{
  for (int i = 0; i < 4; i++) {
    void *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      printf("warning: mmap failed\n");
    touch(p);
    if (i < 3)
      munmap(p, 65536);
  }
  truth("use_mmap", 4, 4 * 65536, 1, 65536);
}

/* ---- churn ------------------------------------------------------------------ */

static double seconds_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double churn_until;

__attribute__((noinline)) static void *churn(void *arg)
{
  long n = 0;
  unsigned seed = (unsigned)(uintptr_t)arg;
  void *held[16] = {0};
  while (seconds_now() < churn_until) {
    for (int i = 0; i < 1000; i++) {
      int slot = (int)(rand_r(&seed) % 16);
      free(held[slot]);
      held[slot] = malloc(1 + rand_r(&seed) % 512);
      touch(held[slot]);
      n++;
    }
  }
  for (int i = 0; i < 16; i++)
    free(held[i]);
  return (void *)n;
}

static void churn_threads(double seconds)
{
  churn_until = seconds_now() + seconds;
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1));
  long total = 0;
  for (int i = 0; i < 4; i++) {
    void *n;
    pthread_join(t[i], &n);
    total += (long)n;
  }
  printf("churn_allocs=%ld\n", total);
}

/* ---- attach: a tight loop on two threads, a slow known leak --------------- */

static volatile int stop_now;

__attribute__((noinline)) static void *tight_loop(void *unused)
{
  while (!stop_now) {
    void *p = malloc(64);
    touch(p);
    free(p);
  }
  return NULL;
}

__attribute__((noinline)) static void leak_slowly(const char *stop_file)
{
  long leaked = 0;
  while (access(stop_file, F_OK) != 0) {
    touch(malloc(48));
    leaked++;
    struct timespec ms10 = {0, 10000000};
    nanosleep(&ms10, NULL);
  }
  printf("leaked_slowly=%ld\n", leaked);
}

static void attach_mode(const char *stop_file)
{
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, tight_loop, NULL);
  printf("ready\n");
  fflush(stdout);
  leak_slowly(stop_file);
  stop_now = 1;
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
}

/* ---- hostile: allocation in a signal handler, fork from threads ----------- */

static volatile long handler_allocs;

static void on_alarm(int sig)
{
  void *p = malloc(32);
  touch(p);
  free(p);
  handler_allocs++;
}

static void *busy_allocating(void *unused)
{
  for (int i = 0; i < 200000; i++) {
    void *p = malloc(24);
    touch(p);
    free(p);
  }
  return NULL;
}

static void hostile_mode(void)
{
  signal(SIGALRM, on_alarm);
  struct itimerval every_ms = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &every_ms, NULL);
  while (handler_allocs < 300)
    busy_allocating(NULL);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, busy_allocating, NULL);
  pid_t child = fork();
  if (child == 0) {
    busy_allocating(NULL);
    printf("child allocated\n");
    _exit(0);
  }
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  int status;
  waitpid(child, &status, 0);
  printf("handler_allocs=%ld child_status=%d\n", handler_allocs, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc >= 3 && strcmp(argv[1], "churn") == 0) {
    churn_threads(atof(argv[2]));
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "attach") == 0) {
    attach_mode(argv[2]);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "hostile") == 0) {
    hostile_mode();
    return 0;
  }
  use_malloc();
  use_calloc();
  use_realloc_moves();
  use_realloc_stays();
  use_reallocarray();
  use_posix_memalign();
  use_aligned_alloc();
  use_memalign();
  use_valloc();
  use_pvalloc();
  use_mmap();
  return 0;
}
