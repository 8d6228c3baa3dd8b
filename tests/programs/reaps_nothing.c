/* PID 1 of a PID namespace that never reaps the orphans it is given, as
 * in a container whose program runs without an init (Docker's default):
 * runs COMMAND as its only child and waits for that child alone.  Then it
 * waits, up to SECONDS, until every other process of the namespace has
 * ended, and prints a line per process still there:
 *
 *   left PID STATE COMM      (STATE Z: a zombie nobody will reap)
 *
 * and "left none" when there is none.  Its exit status is COMMAND's.
 * SIGCHLD keeps its default action (an ignored SIGCHLD would have the
 * kernel reap for it).
 *
 *   reaps_nothing SECONDS COMMAND [ARGS...] */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* PID's state letter and command name, from /proc/PID/stat; 0 if gone. */
static char state_of(const char *pid, char *comm, size_t size)
{
  char path[300], line[512]; /* (a directory entry's name: up to 255 bytes) */
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return 0;
  size_t n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = '\0';
  char *open = strchr(line, '('), *close = strrchr(line, ')');
  if (open == NULL || close == NULL || close[1] == '\0')
    return 0;
  snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
  return close[2];
}

/* Prints the processes other than this one (PRINT) and returns how many of
 * them have not exited yet. */
static int others(int print)
{
  DIR *d = opendir("/proc");
  if (d == NULL)
    return 0;
  int running = 0, listed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
      continue;
    char comm[64];
    char state = state_of(e->d_name, comm, sizeof comm);
    if (state == 0)
      continue;
    running += state != 'Z' && state != 'X';
    if (print) {
      printf("left %s %c %s\n", e->d_name, state, comm);
      listed++;
    }
  }
  closedir(d);
  if (print && listed == 0)
    printf("left none\n");
  return running;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: reaps_nothing SECONDS COMMAND [ARGS...]\n");
    return 2;
  }
  double seconds = atof(argv[1]);
  pid_t child = fork();
  if (child == 0) {
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child)
    return 126;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    usleep(50000);
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (others(0) > 0 && (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
  /* a process's last records may still be on their way to its zombie */
  usleep(200000);
  others(1);
  fflush(stdout);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
