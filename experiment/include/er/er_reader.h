/* Reading an experiment back: what the tests and tools use to check what the
 * runtime wrote, independently of gprofng.  Plain C, allocates freely. */
#ifndef ER_READER_H
#define ER_READER_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_data_kinds.h"
#include "er/er_events.h"

struct er_segment {
  uint64_t vaddr, size, foffset;
  unsigned modes;
  int64_t tstamp; /* relative to the run event */
  int64_t unmap_tstamp; /* -1 while mapped */
  char *name;
};

/* Code mapped without a file, named as one function (the vDSO: map.xml's
 * object="function"). */
struct er_code_region {
  uint64_t vaddr, size;
  char *name;
};

struct er_stack {
  uint64_t frame_uid;
  size_t n;
  uint64_t *pcs; /* leaf first */
  int omp_state; /* enum er_omp_state of the samples that use it (0: not OpenMP) */
  uint64_t user_uid; /* an OpenMP sample's user-mode stack (UID packet), 0: none */
  const uint64_t *user_pcs; /* that stack, leaf first (er_experiment.user_stacks'), NULL: none read */
  size_t user_n;
};

/* A user-mode stack (UID packet, experiment-format.md §6.1b). */
struct er_user_stack {
  uint64_t uid;
  size_t n;
  uint64_t *pcs; /* leaf first */
};


/* A counter log.xml declares (<profile name="hwcounter">). */
struct er_hwc_declared {
  uint32_t tag;
  uint64_t interval;
  char *name; /* hwcname */
};

struct er_experiment {
  char *path;
  char *cwd; /* the program's working directory, its bytes (NULL: not recorded) */
  long ptimer_us; /* 0 when log.xml declares no clock profile */
  int numstates;
  int has_run, has_exit;
  int ended_by_exec; /* the end is an exec_start event */
  int ended_killed;  /* the end came without the program's exit (killed, crashed) */
  int ended_sampler_died; /* its writer died; GDB marked the end at the last record */
  char *ended_early;      /* why the collection ended while the program ran on, or NULL */
  int64_t run_tstamp, run_time; /* the run's clock reading; its wall-clock second (0: not said) */
  size_t n_sample_events;
  char **sample_labels; /* label of each sample event, in order */
  int64_t *sample_tstamps; /* and its time, relative to the run event */
  int64_t exit_tstamp;     /* relative; 0 without an exit event */
  struct er_pause {
    int64_t start, end; /* relative to the run event; end -1: never resumed */
  } *pauses;
  size_t n_pauses;
  size_t overview_bytes;
  char **comments; /* text of <event kind="comment"> */
  size_t n_comments;
  char **warnings; /* "id N: text" of cwarn/cerror events */
  size_t n_warnings;
  struct er_segment *segments;
  size_t n_segments;
  struct er_code_region *code_regions;
  size_t n_code_regions;
  struct er_stack *stacks; /* sorted by frame_uid */
  size_t n_stacks;
  struct er_user_stack *user_stacks; /* sorted by uid */
  size_t n_user_stacks;
  struct er_clock_sample *clock; /* CPU samples */
  size_t n_clock;
  struct er_clock_sample *offcpu; /* time off the CPU (collector profile offcpu), in file order */
  size_t n_offcpu;
  int declared[ER_N_KINDS]; /* log.xml has the kind's <profile> block (er_data_kinds.h) */
  long sync_threshold_us;   /* synctrace's threshold (-1 calibrated) */
  struct er_sync_wait *waits;
  size_t n_waits;
  struct er_io_call *io_calls;
  size_t n_io_calls;
  struct er_lock_order *lock_orders; /* in file order */
  size_t n_lock_orders;
  struct er_race_access *races; /* in file order */
  size_t n_races;
  struct er_mpi_call *mpi_calls; /* er_mpi_calls.h */
  size_t n_mpi_calls;
  struct er_heap_event *heap_events; /* in file order */
  size_t n_heap_events;
  struct er_hwc_declared *counters;
  size_t n_counters;
  struct er_hwc_sample *hwc_samples;
  size_t n_hwc_samples;
  struct er_thread_name {
    uint64_t tid;
    char *name; /* its comm, as the collector last saw it */
  } *thread_names;
  size_t n_thread_names;
  size_t invalid_packets; /* misaligned or malformed, as gprofng counts them */
  size_t damaged_packets; /* well framed, but their contents contradict themselves */
};

/* Loads PATH (a .er directory).  Returns 0, or -1 with a message in ERR
 * (log.xml missing or not well-formed, map.xml not well-formed: fatal for
 * gprofng too).  Never trusts a length from a file: damaged packets are
 * skipped and counted. */
int er_experiment_open(const char *path, struct er_experiment *exp, char *err, size_t err_len);
/* Loads only map.xml's segments (what archiving needs). */
int er_experiment_open_map(const char *path, struct er_experiment *exp, char *err, size_t err_len);
void er_experiment_close(struct er_experiment *exp);

const struct er_stack *er_experiment_stack(const struct er_experiment *exp, uint64_t frame_uid);
/* The order of an experiment's stacks (by frame uid), for qsort and bsearch. */
int er_stack_by_frame_uid(const void *a, const void *b);
/* The heap block (heaptrace's allocation or realloc) that held ADDR at
 * WHEN: allocated at or before it and not freed since; NULL when none. */
const struct er_heap_event *er_experiment_heap_block(const struct er_experiment *exp, uint64_t addr, int64_t when);
/* Thread TID's name (pthread_setname_np's, else the program's), or NULL
 * where the experiment has none for it. */
const char *er_experiment_thread_name(const struct er_experiment *exp, uint64_t tid);
/* The file-less code region (the vDSO) that holds PC, or NULL. */
const struct er_code_region *er_experiment_code_region(const struct er_experiment *exp, uint64_t pc);
/* The segment that maps PC (any mode), or NULL. */
/* The segment PC ran in: the last one mapped there, or for a PC tagged by
 * er_experiment_resolve_reused_ranges, the one it was tagged with. */
const struct er_segment *er_experiment_segment(const struct er_experiment *exp, uint64_t pc);
/* The collector's runtime library: its frames are the wrappers of traced
 * calls (the leaf of their stacks). */
#define ER_RUNTIME_FILE "libcollector.so"
/* Does PC run in the collector's runtime? */
int er_pc_in_runtime(const struct er_experiment *exp, uint64_t pc);
/* A PC's address, tagged or not (er_reused_ranges.c tags the PCs of a
 * load object an address range held before another); a tagged PC's
 * segment, else NULL. */
uint64_t er_pc_address(uint64_t pc);
const struct er_segment *er_pc_segment_tag(const struct er_experiment *exp, uint64_t pc);

/* Walks the packets of a data file the way gprofng does (§5.1): calls FN for
 * every packet that is not padding and returns the invalid-packet count. */
size_t er_walk_packets(const unsigned char *data, size_t len,
                       void (*fn)(const unsigned char *packet, uint16_t type, uint16_t size, void *arg), void *arg);

/* The ELF virtual address of file offset OFF of ELF (an Elf *, through
 * its loadable program headers): 0, or -1 when no segment holds it. */
struct Elf;
int er_elf_offset_to_vaddr(struct Elf *elf, uint64_t off, uint64_t *vaddr);

/* Names the function containing PC with the ELF symbol tables of the
 * segment's file (or of its copy in the experiment's archives/ when the
 * file is gone, as gprofng does): writes "name" or
 * "<static>@0xOFFSET (file)" to OUT. */
void er_symbolize(const struct er_experiment *exp, const struct er_segment *seg, uint64_t pc, char *out,
                  size_t out_len);

#endif
