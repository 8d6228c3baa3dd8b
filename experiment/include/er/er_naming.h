/* Experiment names: test.N.er numbering and safe creation of the
 * experiment directory.  Shared by the runtime (which creates the
 * directory) and the GDB plugin (which predicts and reports the name). */
#ifndef ER_NAMING_H
#define ER_NAMING_H

#include <stddef.h>

/* Checks a user-given experiment name: a single path component ending in
 * ".er" with something before it.  Returns NULL or a message. */
const char *er_check_experiment_name(const char *name);

/* The name the next experiment would get in DIR: NAME itself when NAME is
 * given and free; for NAME of the form STEM.N.er (or no NAME: test.1.er),
 * STEM.M.er with M one more than the highest STEM.K.er present.  Returns 0,
 * or -EEXIST when NAME has no number and exists, or another -errno. */
int er_next_experiment_name(const char *dir, const char *name, char *out, size_t out_len);

/* Creates the next experiment directory in DIR (see above; retried when
 * another process takes the name first) and opens it.  On success returns a
 * directory descriptor and writes the full path to PATH_OUT. */
int er_create_experiment_dir(const char *dir, const char *name, char *path_out, size_t path_len);
/* A descendant's experiment FOUNDER/LINEAGE.er (LINEAGE: "_f1", "_f1_x1"...,
 * or an MPI rank's "M_r3"), never one that exists; its descriptor, or -errno. */
#define ER_RANK_PREFIX "M_r"
/* Where launchers put a process's rank in its environment, in the order
 * they are believed (Open MPI; PMIx launchers; MPICH's Hydra, Slurm's PMI):
 * read by the runtime from /proc (core/job_rank.c) and by the GDB plugin
 * from the program's environment (one GDB per rank). */
#define ER_RANK_VARIABLES "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"
/* Slurm's task number (srun -n N), believed after those and only in a job
 * step of more than one task: a batch script (no step) and `srun --pty gdb
 * ./app` (one task) are not jobs of ranks. */
#define ER_TASK_RANK_VARIABLE "SLURM_PROCID"
#define ER_TASK_COUNT_VARIABLE "SLURM_STEP_NUM_TASKS"
/* The group file in a job's experiment that lists it and its ranks' (gprofng
 * loads only the _*.er descendants by itself). */
#define ER_RANKS_GROUP "ranks.erg"
/* Our own file in an experiment (gprofng reads only the files it knows):
 * a line "TID NAME" per thread whose name is known, NAME encoded as
 * er_value_encode does (core/thread_names.c writes it, the reader reads
 * it: the report, the Firefox export and the timeline name threads). */
#define ER_THREAD_NAMES_FILE "threadnames"
int er_create_descendant_dir(const char *founder, const char *lineage, char *path_out, size_t path_len);

#endif
