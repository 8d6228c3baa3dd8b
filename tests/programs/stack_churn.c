/* CPU work under ever-different call stacks: each round descends 48 levels
 * through go_left/go_right chosen by random bits, so nearly every clock
 * sample has a stack never seen before and data.frameinfo grows fast (what
 * the data-limit and full-disk tests need).  Calls all_done() at the end,
 * for a breakpoint.
 *
 *   stack_churn CPU_SECONDS
 *   stack_churn MAX_CPU_SECONDS AFTER_SECONDS full DIR
 *   stack_churn MAX_CPU_SECONDS AFTER_SECONDS bytes EXPERIMENT BYTES
 *   stack_churn MAX_CPU_SECONDS AFTER_SECONDS text FILE TEXT
 *
 * It runs for CPU time, not wall time.  With a condition it runs until
 * that holds, then AFTER_SECONDS more, MAX_CPU_SECONDS at most: until the
 * file system of DIR has no free block, until EXPERIMENT's profile and
 * data.frameinfo hold BYTES, or until FILE holds TEXT.  Its data then
 * does not depend on how often it is sampled: where perf events are
 * refused the kernel's CPU-time timers sample it, several times less often
 * on a loaded machine.  Prints "done cpu_seconds=S". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "cpu_now.h"

static volatile uint64_t sink;

__attribute__((noinline)) static void leaf(void)
{
  for (int i = 0; i < 2000; i++)
    sink += (uint64_t)i;
}

__attribute__((noinline)) static void go_left(uint64_t bits, int depth);
__attribute__((noinline)) static void go_right(uint64_t bits, int depth);

__attribute__((noinline)) static void descend(uint64_t bits, int depth)
{
  if (depth == 0)
    leaf();
  else if (bits & 1)
    go_left(bits >> 1, depth - 1);
  else
    go_right(bits >> 1, depth - 1);
  sink++; /* no tail calls: every level keeps its frame */
}

__attribute__((noinline)) static void go_left(uint64_t bits, int depth)
{
  descend(bits, depth);
  sink++;
}

__attribute__((noinline)) static void go_right(uint64_t bits, int depth)
{
  descend(bits, depth);
  sink += 2;
}

__attribute__((noinline)) void all_done(void)
{
  sink++;
}

static off_t size_of(const char *dir, const char *name)
{
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 ? st.st_size : 0;
}

static int file_holds(const char *path, const char *text)
{
  static char buf[1 << 20];
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  return strstr(buf, text) != NULL;
}

/* Does the condition of ARGV[3...] hold now? */
static int condition_holds(int argc, char **argv)
{
  if (argc >= 5 && strcmp(argv[3], "full") == 0) {
    struct statvfs fs;
    return statvfs(argv[4], &fs) == 0 && fs.f_bavail == 0;
  }
  if (argc >= 6 && strcmp(argv[3], "bytes") == 0)
    return size_of(argv[4], "profile") + size_of(argv[4], "data.frameinfo") >= atoll(argv[5]);
  if (argc >= 6 && strcmp(argv[3], "text") == 0)
    return file_holds(argv[4], argv[5]);
  fprintf(stderr, "stack_churn: unknown condition\n");
  exit(2);
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 3.0;
  uint64_t state = 88172645463325252ULL;
  double start = cpu_now(), end = start + seconds, next_check = start;
  int watching = argc >= 4;
  while (cpu_now() < end) {
    for (int i = 0; i < 64; i++) {
      state ^= state << 13; /* xorshift64 */
      state ^= state >> 7;
      state ^= state << 17;
      descend(state, 48);
    }
    double now = cpu_now();
    if (watching && now >= next_check) {
      next_check = now + 0.02; /* (a look every 20 ms of CPU: the work stays nearly all of it) */
      if (condition_holds(argc, argv)) {
        watching = 0;
        if (now + atof(argv[2]) < end)
          end = now + atof(argv[2]);
      }
    }
  }
  all_done();
  printf("done cpu_seconds=%.3f\n", cpu_now() - start);
  return 0;
}
