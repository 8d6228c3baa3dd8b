/* Data races (`collector tha race`): a program built with
 * -fsanitize=thread reports each race ThreadSanitizer finds through
 * __tsan_on_report, a hook its runtime leaves empty for tools; ours
 * (preloaded, or its GOT slot patched after an attach) reads the report
 * through ThreadSanitizer's own debugging interface (__tsan_get_report_*,
 * what LLDB and Xcode use) and records each of the race's two accesses:
 * thread, read or write, size, address, the location (a global or a heap
 * block, with the stack that allocated it), the mutexes the racing
 * threads held, and the access's stack as ThreadSanitizer kept it.  Then the
 * runtime's own hook runs.  A program without ThreadSanitizer never calls
 * it (the command says so).  Recording allocates nothing: ThreadSanitizer
 * calls the hook with its report lock held. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#include "core/hrtime.h"
#include "er/er_data_kinds.h"
#include "er/er_tha.h"
#include "interposed.h"
#include "trace_record.h"

#define TRACE_DEPTH 64

typedef int (*report_data_fn)(void *, const char **, int *, int *, int *, int *, int *, int *, int *, void **,
                              unsigned long);
typedef int (*report_mop_fn)(void *, unsigned long, int *, void **, int *, int *, int *, void **, unsigned long);
typedef int (*report_mutex_fn)(void *, unsigned long, unsigned long *, void **, int *, void **, unsigned long);
typedef int (*report_loc_fn)(void *, unsigned long, const char **, void **, unsigned long *, unsigned long *, int *,
                             int *, int *, void **, unsigned long);

static int races_seen; /* atomic */

/* What GDB reads at gdbcol_race_found (exported): the race's number, the
 * address, and each access's thread (ThreadSanitizer's numbers) and kind
 * (1 write, 0 read). */
int gdbcol_race_number;
uint64_t gdbcol_race_address;
int gdbcol_race_threads[2];
int gdbcol_race_writes[2];

/* GDB stops here when asked to (`collector tha race,stop`: its breakpoint);
 * nothing happens without it. */
__attribute__((noinline, used)) void gdbcol_race_found(void)
{
  __asm__ volatile("" ::: "memory");
}

/* Writes P (its own fields filled) as race NUMBER's, with the stack in
 * TRACE (ThreadSanitizer's, leaf first, ended by NULL). */
static void record_packet(struct er_race_packet *p, int number, int64_t now, void *const trace[TRACE_DEPTH])
{
  uint64_t pcs[TRACE_DEPTH];
  size_t n = 0;
  while (n < TRACE_DEPTH && trace[n] != NULL) {
    pcs[n] = (uint64_t)(uintptr_t)trace[n];
    n++;
  }
  p->srqst = now;
  p->sobj = p->rvaddr;
  p->rid = number;
  p->leafpc = n > 0 ? pcs[0] : 0;
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_RACE, now, now, p, sizeof *p);
  col_trace_record_pcs(&f, pcs, n);
}

static void record_race(void *report)
{
  report_data_fn data = COL_REAL_OTHER(report_data_fn, "__tsan_get_report_data");
  report_mop_fn mop = COL_REAL_OTHER(report_mop_fn, "__tsan_get_report_mop");
  report_loc_fn loc = COL_REAL_OTHER(report_loc_fn, "__tsan_get_report_loc");
  if (data == NULL || mop == NULL)
    return;
  const char *description = "";
  int count = 0, stacks = 0, mops = 0, locs = 0, mutexes = 0, threads = 0, unique = 0;
  void *sleep_trace[1];
  if (data(report, &description, &count, &stacks, &mops, &locs, &mutexes, &threads, &unique, sleep_trace, 1) == 0 ||
      description == NULL || strncmp(description, "data-race", 9) != 0 || mops <= 0)
    return;
  unsigned long loc_start = 0, loc_size = 0;
  int heap = 0, alloc_tid = 0;
  void *alloc_trace[TRACE_DEPTH];
  memset(alloc_trace, 0, sizeof alloc_trace);
  if (loc != NULL && locs > 0) {
    const char *type = NULL;
    void *addr = NULL;
    int fd = 0, suppressable = 0;
    if (loc(report, 0, &type, &addr, &loc_start, &loc_size, &alloc_tid, &fd, &suppressable, alloc_trace,
            TRACE_DEPTH) == 0)
      loc_start = loc_size = 0;
    else
      heap = type != NULL && strcmp(type, "heap") == 0;
  }
  /* The mutexes the report names: those the racing threads held (which
   * thread held which, its interface does not say). */
  report_mutex_fn mutex = COL_REAL_OTHER(report_mutex_fn, "__tsan_get_report_mutex");
  uint64_t held[ER_RACE_LOCKS];
  int n_held = 0;
  for (int i = 0; mutex != NULL && i < mutexes && n_held < ER_RACE_LOCKS; i++) {
    unsigned long id = 0;
    void *addr = NULL, *trace[1];
    int destroyed = 0;
    if (mutex(report, (unsigned long)i, &id, &addr, &destroyed, trace, 1) != 0 && addr != NULL)
      held[n_held++] = (uint64_t)(uintptr_t)addr;
  }
  int number = __atomic_add_fetch(&races_seen, 1, __ATOMIC_RELAXED);
  int64_t now = col_hrtime();
  struct er_race_packet p;
  for (int i = 0; i < mops && i < 2; i++) {
    int tid = 0, size = 0, write = 0, atomic = 0;
    void *addr = NULL, *trace[TRACE_DEPTH];
    memset(trace, 0, sizeof trace);
    if (mop(report, (unsigned long)i, &tid, &addr, &size, &write, &atomic, trace, TRACE_DEPTH) == 0)
      continue;
    memset(&p, 0, sizeof p);
    p.rvaddr = (uint64_t)(uintptr_t)addr;
    p.rtype = write ? ER_RACE_WRITE : ER_RACE_READ;
    p.rsize = size;
    p.rtid = tid;
    p.ratomic = atomic;
    p.rlocks = n_held;
    memcpy(p.rlock, held, (size_t)n_held * sizeof held[0]);
    p.rlocstart = loc_start;
    p.rlocsize = loc_size;
    record_packet(&p, number, now, trace);
    gdbcol_race_threads[i] = tid;
    gdbcol_race_writes[i] = write != 0;
    gdbcol_race_address = p.rvaddr;
  }
  if (heap && loc_start != 0) {
    /* Where the racing block was allocated, as ThreadSanitizer kept it. */
    memset(&p, 0, sizeof p);
    p.rvaddr = p.rlocstart = loc_start;
    p.rtype = ER_RACE_ALLOCATION;
    p.rsize = (int32_t)(loc_size < INT32_MAX ? loc_size : INT32_MAX);
    p.rlocsize = loc_size;
    p.rtid = alloc_tid;
    record_packet(&p, number, now, alloc_trace);
  }
  gdbcol_race_number = number;
  gdbcol_race_found();
}

void col_wrap___tsan_on_report(void *report)
{
  if (col_trace_kind_on(col_trace, ER_KIND_RACE) && col_trace_here() != NULL)
    record_race(report);
  void (*real)(void *) = COL_REAL(__tsan_on_report);
  if (real != NULL)
    real(report);
}

COL_PRELOAD_ALIASES(COL_TSAN_FUNCTIONS)
