/* The settings an experiment records with, from GDB's environment
 * variables or an attach's text. */
#ifndef COL_CORE_CONFIG_H
#define COL_CORE_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "er/er_data_kinds.h"
#include "er/er_hwc_events.h"

struct col_config {
  char store_dir[PATH_MAX];   /* empty: the process's working directory */
  char experiment_name[NAME_MAX + 1]; /* empty: next test.N.er */
  char descendants[256];      /* on, off or =REGEX (empty: on) */
  char lineage[128];          /* a descendant's ("_f1"): its experiment is
                                 store_dir/LINEAGE.er, store_dir the founder */
  char status_path[PATH_MAX]; /* where the plugin reads our state; may be empty */
  long clock_interval_us;     /* 0: clock profiling off */
  size_t stack_copy_bytes;    /* user stack bytes captured per sample */
  long max_frames;            /* most frames a call stack keeps (collector profile depth) */
  int force_timer_source;     /* GDBCOL_CLOCK_SOURCE=timer: skip perf_event */
  int sampled_outside;        /* GDBCOL_CLOCK_SOURCE=process: the sampler process
                                 owns the experiment; the runtime only posts */
  int check_unwinder;         /* GDBCOL_UNWIND_CHECK=1: cross-check unwinders */
  int check_steal_budget;     /* GDBCOL_STEAL_CHECK=1: hold perf's samples to the threads' clocks, steal or not */
  long sample_period_ms;      /* periodic sample points; 0: manual only */
  long limit_mb;              /* cap on data files; 0: none */
  int archive_mode;           /* enum er_archive_mode, applied at the end */
  char group_path[PATH_MAX];  /* experiment group to join; may be empty */
  char runtime_objects[4096]; /* GDBCOL_RUNTIME_OBJECTS: the runtime's own libraries, ':'-separated */
  uint32_t traced_kinds;      /* 1 << enum er_kind for each traced kind on (its setting, er_data_kinds.h) */
  int n_hwc;                  /* GDBCOL_HWC: the counters profiled (tag = index) */
  struct er_hwc_resolved hwc[ER_HWC_MAX_COUNTERS];
  long sync_threshold_us;     /* waits at least this long; -1: calibrated */
  int offcpu;                 /* GDBCOL_OFFCPU=on: threads' time off their CPU, by reason (numstates 10) */
  int job_rank_known, job_rank; /* a writer: the MPI rank its process had at its exec, read by the founder's
                                   sampler then (a short rank may be gone by the time the writer looks) */
};

/* Reads the GDBCOL_* variables.  Returns 1 when this process is the one the
 * user asked to profile, 0 when the runtime must stay inert (not launched by
 * the plugin, or loaded into a wrapper that execs the real target). */
int col_config_load(struct col_config *cfg);
/* The settings in the environment, whoever reads them (the sampler process). */
void col_config_from_environment(struct col_config *cfg);
/* The same settings from "NAME=value" lines (gdbcol_attach_start). */
void col_config_parse(struct col_config *cfg, const char *text);
/* Removes what the launcher added to the environment, so the program (and
 * anything it starts) sees the environment the user set. */
void col_config_scrub_environment(void);
/* Whether CFG records data KIND, and the attributes of its <profile> block. */
int col_kind_on(const struct col_config *cfg, enum er_kind kind);
void col_kind_attributes(const struct col_config *cfg, enum er_kind kind, char *out, size_t len);
/* 1 << enum er_kind for each kind the tracing wrappers record that is on. */
uint32_t col_traced_kinds(const struct col_config *cfg);
/* Nonzero when a kind recorded by the tracing wrappers is on. */
int col_tracing_on(const struct col_config *cfg);
/* Those kinds turned off (tracing could not start). */
void col_tracing_off(struct col_config *cfg);
/* Which traced kinds are on, for a message: "Synchronization-wait, I/O and heap tracing". */
void col_tracing_text(const struct col_config *cfg, char *out, size_t len);
extern struct col_config col_cfg;

#endif
