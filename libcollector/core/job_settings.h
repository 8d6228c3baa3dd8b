/* The settings that travel with an MPI job to the ranks its sampler process
 * cannot follow: ranks on other nodes, started there by the launcher's own
 * daemons, outside the process tree GDB started (job_settings.c). */
#ifndef COL_CORE_JOB_SETTINGS_H
#define COL_CORE_JOB_SETTINGS_H

#include <stddef.h>

/* The environment variable an MPI launcher forwards to its ranks: the
 * settings below, encoded as one value (er_value_encode). */
#define COL_JOB_VARIABLE "GDBCOL_JOB"

/* Writes into OUT the "NAME=value" lines (col_config_parse reads them) a
 * rank elsewhere records with: the recording settings in this process's
 * environment (the founder's sampler process: as GDB gave them), the job's
 * experiment EXPERIMENT_PATH as the directory the rank's experiment goes
 * into.  0, or -ENAMETOOLONG when they do not fit in LEN bytes. */
int col_job_settings_write(char *out, size_t len, const char *experiment_path);

#endif
