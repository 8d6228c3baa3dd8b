/* Burns CPU in burn() and then leaves in the way argv[1] names:
 *   exit_paths _exit|segv|kill9|exit|raw_exit|return [SECONDS]
 * segv dereferences NULL (the process dies of SIGSEGV); kill9 sends itself
 * SIGKILL; raw_exit makes the exit_group system call itself, as Go and the
 * sanitizers' exits do (no libc function the runtime sees); the others exit
 * 7 (return gives 0). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void burn(double seconds)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  double end = ts.tv_sec + ts.tv_nsec / 1e9 + seconds;
  for (;;) {
    for (int i = 0; i < 20000; i++)
      sink += i;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    if (ts.tv_sec + ts.tv_nsec / 1e9 >= end)
      break;
  }
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
  burn(argc > 2 ? atof(argv[2]) : 0.5);
  if (strcmp(argv[1], "_exit") == 0)
    _exit(7);
  if (strcmp(argv[1], "segv") == 0)
    *(volatile int *)(sink < 0 ? (void *)&sink : NULL) = 1;
  if (strcmp(argv[1], "kill9") == 0)
    kill(getpid(), SIGKILL);
  if (strcmp(argv[1], "exit") == 0)
    exit(7);
  if (strcmp(argv[1], "raw_exit") == 0)
    syscall(SYS_exit_group, 7);
  return 0;
}
