/* A process tree with known work, for checking that descendants are
 * recorded.
 *     descendants forks N MS [ready]  N children (fork), each burns MS ms
 *                                of CPU in child_work, then exits; all waited
 *                                for (ready: says so, then waits 2 s first)
 *     descendants mix MS         one child of each kind, each burning MS ms:
 *                                fork, vfork+exec of itself, system(),
 *                                popen(), posix_spawn()
 *     descendants burn MS        burns MS ms in child_work (what the others run)
 *     descendants clone MS       a fork then a clone() (a process, SIGCHLD),
 *                                each burning MS ms in child_work
 *     descendants clearenv MS    empties its environment, then execs itself
 *                                to burn MS ms (no variable of ours left)
 *     descendants run CMD ARGS   runs CMD, then prints its tree's CPU time
 *                                (RUSAGE_CHILDREN) as tree_cpu=SECONDS
 *     descendants vforks N MS    N vfork+exec of itself to burn MS ms, back to
 *                                back, then waits for them all
 *     descendants spawns N MS    N spawns of itself to burn MS ms, back to
 *                                back, then waits for them all: posix_spawn,
 *                                and every other one pidfd_spawn where glibc
 *                                has it (>= 2.39); prints the calls made as
 *                                spawned=CALL:PID,CALL:PID,...
 * The parent burns MS ms in parent_work first.  Prints "children=N" and
 * its own output only. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_now.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 39))
#define HAVE_PIDFD_SPAWN 1
#include <sys/pidfd.h> /* pidfd_getpid */
#endif

extern char **environ;
static volatile double sink;

/* Each does its own loop (a call to a shared helper would be a tail call,
 * leaving no frame of its own on the stack). */
__attribute__((noipa)) static void parent_work(double ms)
{
  double end = cpu_now() + ms / 1000.0;
  while (cpu_now() < end)
    for (int i = 0; i < 5000; i++)
      sink += i * 0.5;
}

__attribute__((noipa)) static void child_work(double ms)
{
  double end = cpu_now() + ms / 1000.0;
  while (cpu_now() < end)
    for (int i = 0; i < 5000; i++)
      sink += i * 0.25;
}

/* This program's own path, to run itself again: 0, or -1. */
static int self_path(char *out, size_t len)
{
  ssize_t n = readlink("/proc/self/exe", out, len - 1);
  if (n < 0)
    return -1;
  out[n] = '\0';
  return 0;
}

/* SELF burning MS, by vfork and exec (apart: nothing of the caller's
 * frame is live across the vfork). */
__attribute__((noinline)) static pid_t vfork_exec(const char *self, const char *ms)
{
  pid_t v = vfork();
  if (v == 0) {
    execl(self, self, "burn", ms, (char *)NULL);
    _exit(127);
  }
  return v;
}

static int clone_child(void *ms)
{
  child_work(*(double *)ms);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: descendants forks N MS | mix MS | burn MS\n");
    return 2;
  }
  if (strcmp(argv[1], "burn") == 0) {
    child_work(atof(argv[2]));
    return 0;
  }
  if (strcmp(argv[1], "clearenv") == 0) {
    char self[4096];
    if (self_path(self, sizeof self) != 0)
      return 1;
    clearenv();
    execl(self, self, "burn", argv[2], (char *)NULL);
    return 127;
  }
  if (strcmp(argv[1], "clone") == 0) {
    static char stack[256 * 1024];
    static double clone_ms;
    clone_ms = atof(argv[2]);
    if (fork() == 0) {
      child_work(clone_ms);
      _exit(0);
    }
    if (clone(clone_child, stack + sizeof stack, SIGCHLD, &clone_ms) < 0)
      return 1;
    int done = 0;
    while (wait(NULL) > 0)
      done++;
    printf("children=%d\n", done);
    return 0;
  }
  if (strcmp(argv[1], "run") == 0) {
    pid_t pid;
    int status = 1;
    if (posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0 || waitpid(pid, &status, 0) < 0)
      return 127;
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    printf("tree_cpu=%.3f\n", ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
                                 ru.ru_stime.tv_usec / 1e6);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (strcmp(argv[1], "spawns") == 0 && argc > 3) {
    char self[4096];
    if (self_path(self, sizeof self) != 0)
      return 1;
    char *spawn_argv[] = {self, "burn", argv[3], NULL};
    int n = atoi(argv[2]), children = 0;
    printf("spawned=");
    for (int i = 0; i < n; i++) {
      pid_t pid = 0;
      const char *call = "posix_spawn";
#ifdef HAVE_PIDFD_SPAWN
      int fd;
      if (i % 2 == 1) {
        call = "pidfd_spawn";
        if (pidfd_spawn(&fd, self, NULL, NULL, spawn_argv, environ) == 0) { /* its child is still ours to wait for */
          children++;
          pid = pidfd_getpid(fd);
        }
      } else
#endif
      if (posix_spawn(&pid, self, NULL, NULL, spawn_argv, environ) == 0)
        children++;
      printf("%s%s:%d", i > 0 ? "," : "", call, (int)pid);
    }
    while (wait(NULL) > 0)
      ;
    printf("\nchildren=%d\n", children);
    return 0;
  }
  if (strcmp(argv[1], "vforks") == 0 && argc > 3) {
    char self[4096];
    if (self_path(self, sizeof self) != 0)
      return 1;
    int n = atoi(argv[2]), children = 0;
    for (int i = 0; i < n; i++)
      children += vfork_exec(self, argv[3]) > 0;
    while (wait(NULL) > 0)
      ;
    printf("children=%d\n", children);
    return 0;
  }
  if (strcmp(argv[1], "forks") == 0) {
    int n = atoi(argv[2]);
    double ms = argc > 3 ? atof(argv[3]) : 20;
    if (argc > 4 && strcmp(argv[4], "ready") == 0) {
      printf("ready\n");
      fflush(stdout);
      sleep(2);
    }
    parent_work(ms);
    for (int i = 0; i < n; i++) {
      pid_t pid = fork();
      if (pid == 0) {
        child_work(ms);
        _exit(0);
      }
    }
    int done = 0;
    while (wait(NULL) > 0)
      done++;
    printf("children=%d\n", done);
    return 0;
  }
  double ms = atof(argv[2]);
  char self[4096], command[4200];
  if (self_path(self, sizeof self) != 0)
    return 1;
  snprintf(command, sizeof command, "%s burn %s", self, argv[2]);
  parent_work(ms);
  int children = 0;
  if (fork() == 0) {
    child_work(ms);
    _exit(0);
  }
  children++;
  pid_t v = vfork();
  if (v == 0) {
    execl(self, self, "burn", argv[2], (char *)NULL);
    _exit(127);
  }
  children++;
  if (system(command) == 0)
    children++;
  FILE *p = popen(command, "r");
  if (p != NULL && pclose(p) == 0)
    children++;
  pid_t spawned;
  char *spawn_argv[] = {self, "burn", argv[2], NULL};
  if (posix_spawn(&spawned, self, NULL, NULL, spawn_argv, environ) == 0)
    children++;
  while (wait(NULL) > 0)
    ;
  printf("children=%d\n", children);
  return 0;
}
