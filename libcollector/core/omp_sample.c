/* An OpenMP program's clock sample as OpenMP shows it (docs/design.md
 * "OpenMP states", "Regions, tasks and user-mode stacks").
 *
 * The stack says nearly everything.  Walking it from the leaf:
 *   - the innermost of the runtime's marker frames gives the state (a
 *     region's body, a barrier, a critical section's wait...); without
 *     one, a leaf in libgomp waits there (at a region's end barrier, or
 *     idle between regions when the master runs serial code), code libgomp
 *     called is a region's body or a task, anything else is serial code;
 *   - program code called by the body trampoline is a parallel region's
 *     outlined function; program code libgomp called directly is a task's
 *     (or, before the trampoline was put in place by an attach, a region's);
 *     each is named by its function's entry address;
 *   - a thread whose stack ends in libgomp below libc's thread start is one
 *     of libgomp's workers: its own frames end there, and its user-mode
 *     stack goes on with its region master's frames above the region's
 *     call, as the master's own samples show them (kept per region);
 *   - libc called by libgomp is libgomp's (its futex and yield calls).
 * The machine-mode stack is the native one less the markers; the user-mode
 * stack also leaves out libgomp and the libc it calls.  What a worker's
 * stack cannot say (which region its barrier ends, whether it idles) its
 * master's last sample says: samples come in time order, all threads
 * merged. */
#define _GNU_SOURCE
#include <stddef.h>
#include <string.h>

#include "core/capture.h"
#include "core/omp_sample.h"
#include "core/omp_states.h"
#include "core/stack_store.h"
#include "er/er_omp.h"
#include "unwind/unwind.h"

#define MAX_SEGMENTS 32

/* Outlined functions on one stack: a region's body or a task. */
struct segment {
  int task;
  uint64_t entry;
  size_t user_end; /* user frames up to and including the function's */
};

/* What a region's master called it from: its user-mode frames above the
 * call, for the workers' stacks. */
#define MAX_REGIONS 64
#define MAX_SUFFIX 256
struct region_suffix {
  uint64_t region;
  size_t n;
  uint64_t pcs[MAX_SUFFIX];
};
static struct region_suffix *suffixes; /* MAX_REGIONS of them, mapped once */
static size_t n_suffixes;

/* The thread that last ran a region at the top level, and whether it is in
 * one now (its last sample). */
static pid_t master_tid;
static uint64_t master_region;
/* The region its samples last showed it in (kept after it left). */
static uint64_t last_region;
/* The trampoline was seen: a region's body has it, so code libgomp calls
 * without it is a task's. */
static int bodies_marked;

void col_omp_sample_start(void)
{
  n_suffixes = 0;
  master_tid = 0;
  master_region = last_region = 0;
  bodies_marked = 0;
}

static struct region_suffix *suffix_of(uint64_t region, int add)
{
  for (size_t i = 0; i < n_suffixes; i++)
    if (suffixes[i].region == region)
      return &suffixes[i];
  if (!add)
    return NULL;
  if (suffixes == NULL)
    suffixes = col_map_zeroed(MAX_REGIONS * sizeof *suffixes);
  if (suffixes == NULL)
    return NULL;
  /* More regions than room: the oldest gives its place. */
  struct region_suffix *s = n_suffixes < MAX_REGIONS ? &suffixes[n_suffixes++] : &suffixes[region % MAX_REGIONS];
  s->region = region;
  s->n = 0;
  return s;
}

static void learn_suffix(uint64_t region, const uint64_t *pcs, size_t n)
{
  struct region_suffix *s = suffix_of(region, 1);
  if (s == NULL)
    return;
  s->n = n < MAX_SUFFIX ? n : MAX_SUFFIX;
  memcpy(s->pcs, pcs, 8 * s->n);
  if (n > MAX_SUFFIX)
    s->pcs[MAX_SUFFIX - 1] = ER_PC_TRUNCATED;
}

/* The function holding a frame's PC (a caller's PC is its return address
 * minus one: inside the call). */
static uint64_t entry_of(uint64_t pc)
{
  uint64_t entry = col_function_entry(pc);
  return entry != 0 ? entry : pc; /* no CFI: the address names it */
}

static void describe(struct col_omp_sample *out, int task, uint64_t id, uint64_t parent)
{
  if (out->n_descriptions < COL_OMP_MAX_DESCRIPTIONS)
    out->descriptions[out->n_descriptions++] = (struct col_omp_description){task, id, parent};
}

/* One sample's walk, shared by the steps below. */
struct walk {
  const uint64_t *pcs;
  size_t n;
  unsigned char kind[COL_OMP_MAX_FRAMES], mark[COL_OMP_MAX_FRAMES];
  int worker;              /* one of libgomp's threads */
  struct segment seg[MAX_SEGMENTS]; /* outlined functions, innermost first */
  size_t n_seg, worker_end; /* where a worker's own user frames end */
  int region_marker;       /* a region's marker frame is on the stack */
  int leaf_in_libgomp;
  ssize_t outer_region;    /* the outermost region's segment, or -1 */
  uint64_t served;         /* a worker's region: its master's */
};

/* Each frame's kind and marker; libc called by libgomp is libgomp's (the
 * libc frames a stack ends in, a thread's start, stay what they are); and
 * whether the thread is libgomp's worker: below libc's thread start, its
 * stack ends in libgomp (or in one of the runtime's frames it called). */
static void classify_frames(struct walk *w)
{
  for (size_t i = 0; i < w->n; i++) {
    int m;
    w->kind[i] = (unsigned char)col_omp_frame_kind(w->pcs[i], &m);
    w->mark[i] = (unsigned char)m;
  }
  int rootward = -1;
  for (size_t i = w->n; i-- > 0;) {
    if (w->kind[i] == COL_OMP_FRAME_LIBC && rootward == COL_OMP_FRAME_LIBGOMP)
      w->kind[i] = COL_OMP_FRAME_LIBGOMP;
    else if (w->kind[i] == COL_OMP_FRAME_PROGRAM || w->kind[i] == COL_OMP_FRAME_LIBGOMP)
      rootward = w->kind[i];
  }
  size_t top = w->n;
  while (top > 0 && (w->kind[top - 1] == COL_OMP_FRAME_LIBC || w->pcs[top - 1] == ER_PC_TRUNCATED ||
                     w->pcs[top - 1] == ER_PC_UNWIND_FAILED))
    top--;
  w->worker = top > 0 && w->kind[top - 1] != COL_OMP_FRAME_PROGRAM;
  w->leaf_in_libgomp = w->kind[0] == COL_OMP_FRAME_LIBGOMP;
}

/* From the leaf: the state the innermost marker gives, the machine-mode
 * stack (less the markers), the user-mode stack (less libgomp), and the
 * outlined functions (a region's body after the trampoline's marker; a
 * task's, or a body without the trampoline, where libgomp called program
 * code itself). */
static void split_stack(struct walk *w, struct col_omp_sample *out)
{
  int prev = -1; /* the last frame's kind, markers aside */
  for (size_t i = 0; i < w->n; i++) {
    int k = w->kind[i];
    if (k == COL_OMP_FRAME_MARKER) {
      /* The innermost marker decides, unless a body or a task runs nearer
       * the leaf (a task run at a barrier is work). */
      if (out->state == 0)
        out->state = w->n_seg > 0                        ? ER_OMP_WORK
                     : w->mark[i] == COL_OMP_MARK_REGION ? ER_OMP_IMPLICIT_BARRIER
                                                         : w->mark[i];
      w->region_marker |= w->mark[i] == COL_OMP_MARK_REGION;
      if (w->mark[i] == ER_OMP_WORK && prev >= 0 && prev != COL_OMP_FRAME_LIBGOMP && w->n_seg < MAX_SEGMENTS) {
        w->seg[w->n_seg++] = (struct segment){0, entry_of(w->pcs[i - 1]), out->user_n};
        bodies_marked = 1;
      }
      continue; /* the marker frame itself is the collector's */
    }
    out->machine[out->machine_n++] = w->pcs[i];
    if (k == COL_OMP_FRAME_LIBGOMP) {
      if (prev >= 0 && prev != COL_OMP_FRAME_LIBGOMP) {
        if (w->kind[i - 1] != COL_OMP_FRAME_MARKER && w->n_seg < MAX_SEGMENTS)
          w->seg[w->n_seg++] = (struct segment){bodies_marked, entry_of(w->pcs[i - 1]), out->user_n};
        w->worker_end = out->user_n; /* a worker's own frames end where libgomp begins */
      }
      prev = k;
      continue;
    }
    out->user[out->user_n++] = w->pcs[i];
    prev = k;
  }
  if (out->machine_n == 0) { /* only markers (a sample in a wrapper's own code): its leaf stays */
    out->state = out->state != 0 ? out->state : ER_OMP_OVERHEAD;
    out->machine[out->machine_n++] = w->pcs[0];
    out->user[out->user_n++] = w->pcs[0];
  }
}

/* The sample's region and task, innermost first; a worker's outermost
 * region is the one its thread serves (its master's: where the sample
 * says a region runs, REGIONS, and the master's last sample was outside
 * one, the one it was last seen in); a master past its region's body (at
 * the end barrier) is still in it.  Nonzero: the thread is in a region as
 * its master. */
static int place_in_regions(struct walk *w, pid_t tid, int regions, struct col_omp_sample *out)
{
  out->region = out->task = 0;
  w->outer_region = -1;
  for (size_t s = 0; s < w->n_seg; s++) {
    if (w->seg[s].task) {
      if (out->task == 0)
        out->task = w->seg[s].entry;
    } else {
      if (out->region == 0)
        out->region = w->seg[s].entry;
      w->outer_region = (ssize_t)s;
    }
  }
  uint64_t running = regions == COL_OMP_REGIONS_SOME && master_region == 0 ? last_region : master_region;
  w->served = w->worker ? (w->outer_region >= 0 ? w->seg[w->outer_region].entry : running) : 0;
  if (out->region == 0)
    out->region = w->served;
  int master_in_region = w->region_marker || w->leaf_in_libgomp;
  if (out->region == 0 && !w->worker && master_in_region && tid == master_tid)
    out->region = master_region;
  return master_in_region;
}

/* A worker's user-mode stack: its own frames, then its master's above the
 * region's call. */
static void reroot_worker(const struct walk *w, struct col_omp_sample *out)
{
  out->user_n = w->worker_end;
  const struct region_suffix *s = w->served != 0 ? suffix_of(w->served, 0) : NULL;
  for (size_t i = 0; s != NULL && i < s->n && out->user_n < COL_OMP_MAX_FRAMES; i++)
    out->user[out->user_n++] = s->pcs[i];
}

/* What this sample teaches: each region this thread is the master of (all
 * but a worker's outermost), with its parent, and the frames above its
 * call; each task, with the task it runs inside of. */
static void learn_from(const struct walk *w, struct col_omp_sample *out)
{
  for (size_t s = 0; s < w->n_seg; s++) {
    uint64_t parent = 0;
    for (size_t p = s + 1; p < w->n_seg && parent == 0; p++)
      if (w->seg[p].task == w->seg[s].task)
        parent = w->seg[p].entry;
      else if (w->seg[s].task)
        break; /* a task's parent is a task of the same region */
    if (w->seg[s].task) {
      describe(out, 1, w->seg[s].entry, parent);
    } else if (!(w->worker && (ssize_t)s == w->outer_region)) {
      if (parent == 0 && w->worker)
        parent = w->served;
      describe(out, 0, w->seg[s].entry, parent);
      if (w->seg[s].user_end <= out->user_n)
        learn_suffix(w->seg[s].entry, out->user + w->seg[s].user_end, out->user_n - w->seg[s].user_end);
    }
  }
}

int col_omp_sample_of(pid_t tid, const uint64_t *pcs, size_t n, int regions, struct col_omp_sample *out)
{
  if (n == 0 || !col_omp_process_is_openmp())
    return 0;
  static struct walk w; /* one caller at a time; too big for a stack */
  memset(&w, 0, offsetof(struct walk, kind));
  w.pcs = pcs;
  w.n = n > COL_OMP_MAX_FRAMES ? COL_OMP_MAX_FRAMES : n;
  w.n_seg = w.worker_end = 0;
  w.region_marker = 0;
  classify_frames(&w);
  out->state = 0;
  out->machine_n = out->user_n = 0;
  out->n_descriptions = 0;
  split_stack(&w, out);
  int master_in_region = place_in_regions(&w, tid, regions, out);
  if (w.worker)
    reroot_worker(&w, out);
  learn_from(&w, out);
  /* The master: the thread at the top of a region, and whether it is in
   * one now. */
  if (!w.worker && w.outer_region >= 0) {
    master_tid = tid;
    master_region = last_region = w.seg[w.outer_region].entry;
  } else if (tid == master_tid && w.outer_region < 0 && !master_in_region) {
    master_region = 0;
  }
  if (out->state == 0) {
    /* A worker waiting in libgomp: at its region's end while one runs,
     * else idle.  Where the sample says whether one ran, it decides: the
     * master's last sample can be far behind (CPU-time timers under load
     * find a master in serial code that calls the kernel seldom, and its
     * workers' idling read as the region's end: 0.16 s of a worker's).
     * Before any sample showed a region, the worker's stack above it is
     * not known, and gprofng shows the native one for a wait with no user
     * stack (idle has its own): idle, as without the sample's word. */
    int serving = w.served != 0 && regions != COL_OMP_REGIONS_NONE;
    if (w.leaf_in_libgomp)
      out->state = w.worker && !serving ? ER_OMP_IDLE : ER_OMP_IMPLICIT_BARRIER;
    else
      out->state = w.n_seg > 0 ? ER_OMP_WORK : ER_OMP_SERIAL;
  }
  if (out->state == ER_OMP_IDLE)
    out->region = 0;
  return 1;
}
