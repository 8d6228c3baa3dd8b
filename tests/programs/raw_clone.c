/* A thread made with the raw clone system call, not pthread_create (as
 * some runtimes and libraries do): the collector must sample it too (its
 * thread scan finds it in /proc/self/task).  The clone'd thread spins for
 * SECONDS of CPU in clone_spin; the main thread for the same in main_spin.
 *
 *   raw_clone [SECONDS] */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static volatile int child_done;
static double seconds = 1.0;

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) static void spin(double s)
{
  double end = thread_cpu() + s;
  while (thread_cpu() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

__attribute__((noipa)) static void clone_spin(void) { spin(seconds); __asm__ volatile("" ::: "memory"); }
__attribute__((noipa)) static void main_spin(void) { spin(seconds); __asm__ volatile("" ::: "memory"); }

static int child(void *arg)
{
  clone_spin();
  __atomic_store_n(&child_done, 1, __ATOMIC_RELEASE);
  syscall(SYS_exit, 0); /* this thread only */
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1)
    seconds = atof(argv[1]);
  size_t stack_size = 1 << 20;
  char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
  if (clone(child, stack + stack_size, flags, NULL) < 0) {
    perror("clone");
    return 1;
  }
  main_spin();
  while (!__atomic_load_n(&child_done, __ATOMIC_ACQUIRE))
    usleep(1000);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(stderr, "cpu_seconds=%.3f\n",
          ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  return 0;
}
