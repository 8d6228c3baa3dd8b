/* A daemon as daemons are made: fork; the child forks again and exits; the
 * grandchild calls setsid, closes descriptors 0 to 2 and burns SECONDS of
 * CPU, then writes its CPU time to TRUTH_FILE.  The program waits for the
 * truth file (so the run lasts as long as the daemon's work), unless
 * "leave" is given: then it ends as soon as the middle process has, as a
 * daemon's starter does.  "leave-slowly": the same, but the starter has
 * touched 1 GiB first, so that its exit (the kernel unmapping it) lasts
 * well past its runtime's request to close the experiment.
 *   daemonize TRUTH_FILE [SECONDS] [leave|leave-slowly] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_now.h"

static volatile double sink;

__attribute__((noinline)) static void daemon_work(double seconds)
{
  double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (int i = 0; i < 20000; i++)
      sink += i * 0.5;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  double seconds = argc > 2 ? atof(argv[2]) : 1.0;
  pid_t child = fork();
  if (child == 0) {
    if (fork() != 0)
      _exit(0); /* the middle process ends at once */
    setsid();
    close(0);
    close(1);
    close(2);
    daemon_work(seconds);
    char text[64];
    int n = snprintf(text, sizeof text, "daemon_cpu=%.3f\n", cpu_now());
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      if (write(fd, text, (size_t)n) < 0) {
      }
      close(fd);
    }
    _exit(0);
  }
  waitpid(child, NULL, 0);
  if (argc > 3 && strcmp(argv[3], "leave-slowly") == 0) {
    size_t bytes = (size_t)1 << 30;
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t at = 0; p != MAP_FAILED && at < bytes; at += 4096)
      p[at] = 1;
    return 0;
  }
  if (argc > 3 && argv[3][0] == 'l')
    return 0;
  for (int i = 0; i < 600 && access(argv[1], F_OK) != 0; i++)
    usleep(10000);
  return 0;
}
