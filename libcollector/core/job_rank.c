/* A process's MPI rank from /proc/PID/environ: the environment its exec
 * received, where each launcher puts the rank before MPI_Init runs (Open
 * MPI: OMPI_COMM_WORLD_RANK; PMIx launchers: PMIX_RANK; MPICH's Hydra,
 * Slurm's PMI: PMI_RANK; else Slurm's task number in a step of tasks).  Read by whoever writes the process's
 * experiment (the sampler process, or the runtime in the program), so it
 * needs nothing from the program. */
#define _GNU_SOURCE
#include "core/job_rank.h"
#include "er/er_fileutil.h"
#include "er/er_naming.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The MPI launchers' variables, then Slurm's task number and task count
 * (the last two: a rank only in a step of more than one task). */
static const char *const rank_variables[] = {ER_RANK_VARIABLES, ER_TASK_RANK_VARIABLE, ER_TASK_COUNT_VARIABLE};
#define N_VARIABLES (sizeof rank_variables / sizeof rank_variables[0])
#define N_MPI_VARIABLES (N_VARIABLES - 2)

/* The rank in VALUE (digits only), or -1. */
static int rank_of(const char *value)
{
  if (value[0] < '0' || value[0] > '9' || strlen(value) > 9)
    return -1;
  for (const char *c = value; *c != '\0'; c++)
    if (*c < '0' || *c > '9')
      return -1;
  return atoi(value);
}

/* Whether PID's new image has its environment in place: /proc/PID/stat's
 * env_start (its 50th field; fields after the command's closing ')' are
 * counted from the 3rd) is 0 until the exec has laid out its stack. */
static int environment_set_up(pid_t pid)
{
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  const char *fields = er_proc_stat_fields(path, text, sizeof text);
  if (fields == NULL)
    return 1; /* gone: nothing to wait for */
  unsigned long long value = 0;
  int field = 3;
  for (const char *p = fields; *p != '\0' && field <= 50; field++) {
    value = strtoull(p, NULL, 10);
    p = strchr(p, ' ');
    if (p == NULL)
      break;
    p++;
  }
  return field > 50 && value != 0;
}

/* The rank in PID's environment, -1 when none (or the process is gone);
 * -2 when the environment is not in place yet (an exec under way). */
static int rank_in_environment(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int found[N_VARIABLES];
  for (size_t v = 0; v < N_VARIABLES; v++)
    found[v] = -1;
  /* Entries are NUL-terminated; only their first bytes matter, so an entry
   * is kept up to sizeof ENTRY and the rest of it skipped. */
  char buf[4096], entry[64];
  size_t held = 0, total = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    total += (size_t)n;
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] != '\0') {
        if (held < sizeof entry - 1)
          entry[held] = buf[i];
        held++;
        continue;
      }
      entry[held < sizeof entry - 1 ? held : sizeof entry - 1] = '\0';
      for (size_t v = 0; v < N_VARIABLES; v++) {
        size_t name_len = strlen(rank_variables[v]);
        if (held < sizeof entry - 1 && strncmp(entry, rank_variables[v], name_len) == 0 && entry[name_len] == '=')
          found[v] = rank_of(entry + name_len + 1);
      }
      held = 0;
    }
  }
  close(fd);
  if (total == 0)
    return environment_set_up(pid) ? -1 : -2;
  for (size_t v = 0; v < N_MPI_VARIABLES; v++)
    if (found[v] >= 0)
      return found[v];
  return found[N_VARIABLES - 1] > 1 ? found[N_VARIABLES - 2] : -1;
}

int col_job_rank(pid_t pid)
{
  /* The kernel reports an exec (the record that starts the new image's
   * experiment) before the new image's environment is in place: an empty
   * environment is looked at again, for up to 100 ms (two MPICH ranks
   * were named _f1_x1_f1_x1.er so, one run in a few). */
  int rank = rank_in_environment(pid);
  for (int tries = 0; rank == -2 && tries < 100; tries++) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    rank = rank_in_environment(pid);
  }
  return rank < 0 ? -1 : rank;
}
