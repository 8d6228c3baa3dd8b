/* Starting the sampler process on this process (sampler_start.h).  It is
 * made GDB's child where GDB is this process's parent, else a grandchild
 * (the sampler forks again and its first process exits at once, reaped
 * here): never a child the program could wait for or be told about. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sampler_parent.h"
#include "runtime/sampler_start.h"

int col_sampler_start_on_self(const char *sampler, const char *mode, char *const env[], pid_t *sampler_pid)
{
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0)
    return -1;
  char pid_text[16], fd_text[16];
  snprintf(pid_text, sizeof pid_text, "%d", (int)getpid());
  snprintf(fd_text, sizeof fd_text, "%d", ready[1]);
  int beside_gdb;
  pid_t child = col_sampler_fork(&beside_gdb);
  if (child == 0) {
    fcntl(ready[1], F_SETFD, 0);
    char *args[] = {(char *)sampler, (char *)mode, pid_text, fd_text, NULL};
    execve(sampler, args, env);
    _exit(127);
  }
  close(ready[1]);
  if (child > 0 && !beside_gdb) /* the first of the sampler's two processes */
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
  /* "R", or "R" and its pid; "E" or nothing when it could not start. */
  char answer[32];
  size_t got = 0;
  ssize_t n;
  while (child > 0 && got < sizeof answer - 1 &&
         ((n = read(ready[0], answer + got, sizeof answer - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
    got += n > 0 ? (size_t)n : 0;
  close(ready[0]);
  answer[got] = '\0';
  if (got == 0 || answer[0] != 'R')
    return -1;
  if (sampler_pid != NULL)
    *sampler_pid = (pid_t)atoi(answer + 1);
  return 0;
}

void col_sampler_may_read(int offcpu, pid_t sampler_pid)
{
  char scope = 0;
  int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &scope, 1) != 1)
      scope = 0;
    close(fd);
  }
  if (scope == '1' && sampler_pid > 0 && offcpu)
    prctl(PR_SET_PTRACER, (unsigned long)sampler_pid, 0, 0, 0);
}
