/* Ranks on other nodes are started there by the MPI launcher's own daemons
 * (Open MPI's orted, Hydra's proxy, slurmstepd): no descendants of the
 * recorded process, and with none of its environment but what the launcher
 * forwards.  So in the launcher, before its main reads its environment, the
 * runtime puts there what a rank needs to record itself into the job's
 * experiment: LD_PRELOAD (the runtime, then the user's own) and GDBCOL_JOB
 * (core/job_settings.h, from the sampler process through the control
 * page).  Hydra and srun forward the whole environment by default; Open
 * MPI forwards only the variables -x or mca_base_env_list names, and
 * refuses both at once, so the list is extended only when -x is not used
 * (else the experiment says what to add).  The ranks GDB's sampler
 * process follows (this node's) ignore GDBCOL_JOB (outside_rank.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hrtime.h"
#include "core/job_settings.h"
#include "runtime/job_forwarding.h"
#include "control_page.h"
#include "er/er_text.h"

/* The launchers by their executable's name (/proc/self/exe resolved). */
static const char *const open_mpi_launchers[] = {"orterun", "prterun", "prte"};
static const char *const forwarding_launchers[] = {"mpiexec.hydra", "srun"};
#define COUNT(a) (sizeof a / sizeof a[0])

static int named(const char *name, const char *const *names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, names[i]) == 0)
      return 1;
  return 0;
}

/* Open MPI's -x on the launcher's command line: 0 when none (nor a tune
 * file, which Open MPI also refuses beside mca_base_env_list), 1 when -x
 * names both variables (the user followed the experiment's advice), -1
 * when -x is used without them.  Any such word counts, even the program's
 * own: a false -1 costs only the other nodes' ranks, and says so. */
static int open_mpi_exports(void)
{
  static char cmdline[65536];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, cmdline, sizeof cmdline - 1);
  close(fd);
  if (n <= 0)
    return -1;
  cmdline[n] = '\0';
  int exports = 0, preload = 0, job = 0;
  for (char *arg = cmdline; arg < cmdline + n; arg += strlen(arg) + 1) {
    int x = strcmp(arg, "-x") == 0 || strcmp(arg, "--x") == 0;
    exports |= x || strcmp(arg, "-tune") == 0 || strcmp(arg, "--tune") == 0;
    const char *next = arg + strlen(arg) + 1;
    if (x && next < cmdline + n) {
      preload |= strcmp(next, "LD_PRELOAD") == 0;
      job |= strcmp(next, COL_JOB_VARIABLE) == 0;
    }
  }
  return !exports ? 0 : preload && job ? 1 : -1;
}

/* The job's settings, once the sampler process opened the experiment (it
 * does so at the exec's record, a moment after this process started). */
static const char *job_settings(void)
{
  const int64_t give_up = col_hrtime() + 5 * 1000000000LL;
  while (__atomic_load_n(&col_control->experiment_run_tstamp, __ATOMIC_ACQUIRE) == 0) {
    if (col_hrtime() > give_up)
      return NULL;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  return col_control->job_settings[0] != '\0' ? col_control->job_settings : NULL;
}

static int export_runtime(const char *runtime_path, const char *settings)
{
  static char encoded[2 * sizeof col_control->job_settings + 8], preload[2 * PATH_MAX + 2];
  er_value_encode(settings, encoded, sizeof encoded);
  const char *user = getenv("LD_PRELOAD");
  snprintf(preload, sizeof preload, "%s%s%s", runtime_path, user != NULL && user[0] != '\0' ? ":" : "",
           user != NULL ? user : "");
  return setenv(COL_JOB_VARIABLE, encoded, 1) == 0 && setenv("LD_PRELOAD", preload, 1) == 0 ? 0 : -1;
}

/* Open MPI: the two variables join mca_base_env_list (';'-separated names,
 * each forwarded with its value here). */
static int extend_open_mpi_list(void)
{
  static char list[8192];
  const char *user = getenv("OMPI_MCA_mca_base_env_list");
  int n = snprintf(list, sizeof list, "%s%sLD_PRELOAD;" COL_JOB_VARIABLE, user != NULL ? user : "",
                   user != NULL && user[0] != '\0' ? ";" : "");
  return n > 0 && (size_t)n < sizeof list ? setenv("OMPI_MCA_mca_base_env_list", list, 1) : -1;
}

void col_job_forward_if_launcher(const char *runtime_path)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0 || col_control == NULL || runtime_path == NULL || runtime_path[0] != '/')
    return;
  exe[n] = '\0';
  const char *name = strrchr(exe, '/') != NULL ? strrchr(exe, '/') + 1 : exe;
  int open_mpi = named(name, open_mpi_launchers, COUNT(open_mpi_launchers));
  if (!open_mpi && !named(name, forwarding_launchers, COUNT(forwarding_launchers)))
    return;
  enum col_job_forwarding outcome = COL_JOB_FORWARDED;
  const char *settings = job_settings();
  if (settings == NULL)
    outcome = COL_JOB_NO_SETTINGS;
  else if (export_runtime(runtime_path, settings) != 0)
    outcome = COL_JOB_NO_ROOM;
  else if (open_mpi) {
    int exports = open_mpi_exports();
    if (exports < 0)
      outcome = COL_JOB_NEEDS_EXPORTS; /* the variables are there for -x to name */
    else if (exports == 0 && extend_open_mpi_list() != 0)
      outcome = COL_JOB_NO_ROOM;
  }
  /* Named as the user typed it: mpirun is a link to orterun or prte. */
  const char *said = open_mpi ? "Open MPI's mpirun" : strcmp(name, "mpiexec.hydra") == 0 ? "MPICH's mpiexec" : name;
  col_control_post(COL_CTL_JOB_FORWARDING, said, (int)outcome);
}
