/* A metric's profile of one experiment, for reports (er/er_profile.h):
 * samples summed per stack first (stacks are shared by many samples),
 * then each distinct stack named once, root first. */
#include "er/er_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_data_kinds.h"
#include "er/er_format.h"
#include "er/er_heap_book.h"
#include "er/er_offcpu.h"
#include "er/er_omp.h"

/* Value and count per key (a stack id, a thread id), in a small
 * open-addressing table. */
struct key_sum {
  uint64_t key;
  double value, samples;
  uint64_t used;
};

struct sums {
  struct key_sum *slots;
  size_t room, used;
};

static int sums_add(struct sums *s, uint64_t key, double value)
{
  if (2 * (s->used + 1) > s->room) {
    size_t room = s->room ? s->room * 2 : 1024;
    struct key_sum *slots = calloc(room, sizeof *slots);
    if (slots == NULL)
      return -1;
    for (size_t i = 0; i < s->room; i++)
      if (s->slots[i].used) {
        size_t k = (size_t)(s->slots[i].key * 0x9E3779B97F4A7C15ULL) & (room - 1);
        while (slots[k].used)
          k = (k + 1) & (room - 1);
        slots[k] = s->slots[i];
      }
    free(s->slots);
    s->slots = slots, s->room = room;
  }
  size_t k = (size_t)(key * 0x9E3779B97F4A7C15ULL) & (s->room - 1);
  while (s->slots[k].used && s->slots[k].key != key)
    k = (k + 1) & (s->room - 1);
  if (!s->slots[k].used) {
    s->slots[k] = (struct key_sum){key, 0, 0, 1};
    s->used++;
  }
  s->slots[k].value += value;
  s->slots[k].samples += 1;
  return 0;
}

/* Function names to indexes: open addressing, grown at half full. */
struct name_index {
  size_t *slots; /* index + 1; 0: empty */
  size_t room;
};

static uint64_t hash_name(const char *name)
{
  uint64_t h = 1469598103934665603ULL;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    h = (h ^ *c) * 1099511628211ULL;
  return h;
}

static int index_grow(struct er_profile *p, struct name_index *ix)
{
  size_t room = ix->room ? ix->room * 2 : 1024;
  size_t *slots = calloc(room, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (size_t f = 0; f < p->n_functions; f++) {
    size_t k = (size_t)hash_name(p->functions[f].name) & (room - 1);
    while (slots[k] != 0)
      k = (k + 1) & (room - 1);
    slots[k] = f + 1;
  }
  free(ix->slots);
  ix->slots = slots, ix->room = room;
  return 0;
}

static size_t function_index(struct er_profile *p, struct name_index *ix, const char *name)
{
  if (2 * (p->n_functions + 1) > ix->room && index_grow(p, ix) != 0)
    return (size_t)-1;
  size_t k = (size_t)hash_name(name) & (ix->room - 1);
  for (; ix->slots[k] != 0; k = (k + 1) & (ix->room - 1))
    if (strcmp(p->functions[ix->slots[k] - 1].name, name) == 0)
      return ix->slots[k] - 1;
  struct er_profile_function *more = realloc(p->functions, (p->n_functions + 1) * sizeof *more);
  char *copy = strdup(name);
  if (more == NULL || copy == NULL) {
    free(copy);
    if (more != NULL)
      p->functions = more;
    return (size_t)-1;
  }
  p->functions = more;
  p->functions[p->n_functions] = (struct er_profile_function){copy, 0, 0};
  ix->slots[k] = p->n_functions + 1;
  return p->n_functions++;
}

#define MAX_INLINED 16

/* Distinct function sequences: open addressing on their hash, the stack's
 * index + 1 (0: empty), grown at half full. */
struct stack_index {
  size_t *slots;
  size_t room;
};

static uint64_t hash_functions(const struct er_profile_stack *s)
{
  uint64_t h = 1469598103934665603ULL ^ s->depth;
  for (size_t d = 0; d < s->depth; d++)
    h = (h ^ s->functions[d]) * 1099511628211ULL;
  return h;
}

static int same_functions(const struct er_profile_stack *a, const struct er_profile_stack *b)
{
  return a->depth == b->depth && memcmp(a->functions, b->functions, a->depth * sizeof *a->functions) == 0;
}

static int stack_index_grow(struct er_profile *p, struct stack_index *sx)
{
  size_t room = sx->room ? sx->room * 2 : 1024;
  size_t *slots = calloc(room, sizeof *slots);
  if (slots == NULL)
    return -1;
  for (size_t i = 0; i < p->n_stacks; i++) {
    size_t k = (size_t)hash_functions(&p->stacks[i]) & (room - 1);
    while (slots[k] != 0)
      k = (k + 1) & (room - 1);
    slots[k] = i + 1;
  }
  free(sx->slots);
  sx->slots = slots, sx->room = room;
  return 0;
}

/* The index of the stack already in P that names S's functions, else
 * p->n_stacks (S is new: indexed as that); (size_t)-1 out of memory. */
static size_t same_stack_index(struct er_profile *p, struct stack_index *sx, const struct er_profile_stack *s)
{
  if (2 * (p->n_stacks + 1) > sx->room && stack_index_grow(p, sx) != 0)
    return (size_t)-1;
  size_t k = (size_t)hash_functions(s) & (sx->room - 1);
  for (; sx->slots[k] != 0; k = (k + 1) & (sx->room - 1))
    if (same_functions(&p->stacks[sx->slots[k] - 1], s))
      return sx->slots[k] - 1;
  sx->slots[k] = p->n_stacks + 1;
  return p->n_stacks;
}

/* One distinct stack into the profile: its functions root first (with the
 * functions inlined at each frame, when asked), each function's inclusive
 * value once however often it recurs. */
static int add_stack(struct er_profile *p, struct name_index *ix, struct stack_index *sx, struct er_names *names,
                     const struct er_experiment *exp, const struct er_stack *st, const char *root, double value,
                     int with_inlined, enum er_view_mode mode)
{
  struct er_profile_stack *more = realloc(p->stacks, (p->n_stacks + 1) * sizeof *more);
  if (more == NULL)
    return -1;
  p->stacks = more;
  struct er_profile_stack *s = &p->stacks[p->n_stacks];
  /* An OpenMP sample in user mode: its user stack, and the wait's
   * pseudo-function at the leaf (as gprofng draws it). */
  int user = mode == ER_VIEW_USER && st != NULL && st->omp_state != 0 &&
             (st->user_pcs != NULL || st->omp_state == ER_OMP_IDLE);
  const char *pseudo = user ? er_omp_state_pseudo_function(st->omp_state) : NULL;
  const uint64_t *pcs = user ? st->user_pcs : st != NULL ? st->pcs : NULL;
  size_t n = user ? st->user_n : st != NULL ? st->n : 0;
  s->functions = malloc((n * (with_inlined ? MAX_INLINED : 1) + 3) * sizeof *s->functions);
  if (s->functions == NULL)
    return -1;
  s->value = value;
  s->depth = 0;
  if (root != NULL) /* its process, where the profile holds several */
    s->functions[s->depth++] = function_index(p, ix, root);
  if (n == 0 && pseudo == NULL) { /* a packet whose stack is missing: counted, as gprofng counts it, under <Unknown> */
    s->functions[s->depth++] = function_index(p, ix, "<Unknown>");
  }
  for (size_t i = n; i-- > 0;) {
    const char *frames[MAX_INLINED];
    size_t k = 0;
    /* (the runtime's wrapper at a traced call's leaf: named by its symbol,
     * malloc as gprofng names it, never by the helpers its debug info
     * says are inlined there, heap_idle) */
    if (with_inlined && !er_pc_in_runtime(exp, pcs[i]))
      k = er_names_frames(names, pcs[i], frames, MAX_INLINED);
    if (k == 0)
      frames[k++] = er_names_function(names, pcs[i]);
    while (k-- > 0) /* the function, then what is inlined in it, outermost first */
      s->functions[s->depth++] = function_index(p, ix, frames[k]);
  }
  if (pseudo != NULL)
    s->functions[s->depth++] = function_index(p, ix, pseudo);
  for (size_t i = 0; i < s->depth; i++) {
    if (s->functions[i] == (size_t)-1)
      return -1;
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = s->functions[k] == s->functions[i];
    if (!seen)
      p->functions[s->functions[i]].incl += value;
  }
  p->functions[s->functions[s->depth - 1]].excl += value;
  /* Stacks that differ only in their PCs name the same functions: one
   * stack of the profile (folded files had a line per PC path: 393 lines
   * for 39 stacks). */
  size_t same = same_stack_index(p, sx, s);
  if (same == (size_t)-1)
    return -1;
  if (same != p->n_stacks) {
    p->stacks[same].value += value;
    free(s->functions);
    return 0;
  }
  p->n_stacks++;
  return 0;
}

static const struct er_profile_function *ranking; /* what by_exclusive's indexes index (qsort has no argument) */

static int by_exclusive(const void *a, const void *b)
{
  const struct er_profile_function *x = &ranking[*(const size_t *)a], *y = &ranking[*(const size_t *)b];
  if (x->excl != y->excl)
    return x->excl < y->excl ? 1 : -1;
  if (x->incl != y->incl)
    return x->incl < y->incl ? 1 : -1;
  return strcmp(x->name, y->name);
}

/* A metric's events summed by stack (one experiment's stack ids) and by
 * thread (all the profile's). */
struct tallies {
  struct sums stacks, threads;
};

static int count_event(struct tallies *t, uint64_t frinfo, uint64_t thrid, double value)
{
  return sums_add(&t->stacks, frinfo, value) != 0 || sums_add(&t->threads, thrid, value) != 0 ? -1 : 0;
}

/* ---- the metrics: one table, each with what it needs and how it sums ---- */

enum reason_set { ALL_REASONS = -1 };

static int clock_metric(const struct er_experiment *exp, int reason, struct tallies *t)
{
  const struct er_clock_sample *samples = reason == ER_OFFCPU_NONE ? exp->clock : exp->offcpu;
  size_t n = reason == ER_OFFCPU_NONE ? exp->n_clock : exp->n_offcpu;
  for (size_t i = 0; i < n; i++)
    if ((reason == ER_OFFCPU_NONE || reason == ALL_REASONS || (int)samples[i].reason == reason) &&
        count_event(t, samples[i].frinfo, samples[i].thrid, samples[i].ntick * (exp->ptimer_us / 1e6)) != 0)
      return -1;
  return 0;
}

/* On and off the CPU: each thread's wall-clock time (offcpu profiling). */
static int wall_metric(const struct er_experiment *exp, int arg, struct tallies *t)
{
  (void)arg;
  return clock_metric(exp, ER_OFFCPU_NONE, t) != 0 || clock_metric(exp, ALL_REASONS, t) != 0 ? -1 : 0;
}

static int sync_metric(const struct er_experiment *exp, int arg, struct tallies *t)
{
  (void)arg;
  for (size_t i = 0; i < exp->n_waits; i++) {
    const struct er_sync_wait *w = &exp->waits[i];
    if (count_event(t, w->frinfo, w->thrid, (double)(w->end - w->start) / 1e9) != 0)
      return -1;
  }
  return 0;
}

enum io_value { IO_TIME, IO_BYTES };

static int io_metric(const struct er_experiment *exp, int what, struct tallies *t)
{
  for (size_t i = 0; i < exp->n_io_calls; i++) {
    const struct er_io_call *c = &exp->io_calls[i];
    double v = what == IO_TIME ? (double)(c->end - c->start) / 1e9 : c->nbytes > 0 ? (double)c->nbytes : 0;
    if ((what == IO_TIME || v > 0) && count_event(t, c->frinfo, c->thrid, v) != 0)
      return -1;
  }
  return 0;
}

enum heap_value { HEAP_BYTES, HEAP_ALLOCATIONS, HEAP_LEAKED_BYTES };

static int heap_metric(const struct er_experiment *exp, int what, struct tallies *t)
{
  unsigned char *leaked = NULL;
  struct er_heap_book book;
  if (what == HEAP_LEAKED_BYTES &&
      ((leaked = malloc(exp->n_heap_events + 1)) == NULL || er_heap_leaks(exp, leaked, &book) != 0)) {
    free(leaked);
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; i < exp->n_heap_events && rc == 0; i++) {
    const struct er_heap_event *h = &exp->heap_events[i];
    if (er_heap_allocates(h) && (leaked == NULL || leaked[i]))
      rc = count_event(t, h->frinfo, h->thrid, what == HEAP_ALLOCATIONS ? 1 : (double)h->size);
  }
  free(leaked);
  return rc;
}

static int has_clock(const struct er_experiment *exp)
{
  return exp->ptimer_us > 0;
}

static int has_offcpu(const struct er_experiment *exp)
{
  return exp->ptimer_us > 0 && (exp->numstates >= ER_NUMSTATES || exp->n_offcpu > 0);
}

static int has_sync(const struct er_experiment *exp)
{
  return exp->declared[ER_KIND_SYNC];
}

static int has_io(const struct er_experiment *exp)
{
  return exp->declared[ER_KIND_IO];
}

static int has_heap(const struct er_experiment *exp)
{
  return exp->declared[ER_KIND_HEAP];
}

static const struct metric {
  const char *name, *title, *unit;
  double per_count; /* one count of folded stacks, in the unit (0: the clock's tick) */
  int (*present)(const struct er_experiment *exp);
  int (*gather)(const struct er_experiment *exp, int arg, struct tallies *t);
  int arg;
} metrics[] = {
  {"cpu", "Total CPU Time", "sec.", 0, has_clock, clock_metric, ER_OFFCPU_NONE},
  {"wall", "Wall Time (on and off CPU)", "sec.", 0, has_offcpu, wall_metric, 0},
  {"offcpu", "Off-CPU Time", "sec.", 0, has_offcpu, clock_metric, ALL_REASONS},
  {"offcpu.waitcpu", "Off-CPU Time waiting for a CPU", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_RUNNABLE},
  {"offcpu.sleep", "Off-CPU Time sleeping", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_SLEEP},
  {"offcpu.io", "Off-CPU Time in I/O", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_IO},
  {"offcpu.lock", "Off-CPU Time on a lock", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_LOCK},
  {"offcpu.blocked", "Off-CPU Time blocked otherwise", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_BLOCKED},
  {"offcpu.stopped", "Off-CPU Time stopped", "sec.", 0, has_offcpu, clock_metric, ER_OFFCPU_STOPPED},
  {"sync", "Sync Wait Time", "sec.", 1e-6, has_sync, sync_metric, 0},
  {"io", "I/O Time", "sec.", 1e-6, has_io, io_metric, IO_TIME},
  {"io.bytes", "I/O Bytes", "bytes", 1, has_io, io_metric, IO_BYTES},
  {"heap", "Bytes Allocated", "bytes", 1, has_heap, heap_metric, HEAP_BYTES},
  {"heap.allocations", "Allocations", "count", 1, has_heap, heap_metric, HEAP_ALLOCATIONS},
  {"heap.leaks", "Bytes Leaked", "bytes", 1, has_heap, heap_metric, HEAP_LEAKED_BYTES},
};
#define N_METRICS (sizeof metrics / sizeof metrics[0])

size_t er_profile_metrics(const struct er_experiment *exp, const char **names, size_t room)
{
  size_t n = 0;
  for (size_t m = 0; m < N_METRICS; m++)
    if (metrics[m].present(exp) && n < room)
      names[n++] = metrics[m].name;
  for (size_t c = 0; c < exp->n_counters && n < room; c++)
    names[n++] = exp->counters[c].name;
  return n;
}

/* The metric's events into T; its label into P.  0; 1 where EXP has no
 * such metric (ERR names those it has); -1 out of memory (ERR says so). */
static int gather(const struct er_experiment *exp, const char *metric, struct er_profile *p, struct tallies *t,
                  char *err, size_t err_len)
{
  if (metric == NULL && exp->ptimer_us <= 0 && exp->n_counters > 0)
    metric = exp->counters[0].name; /* counters only: the first is the default metric */
  if (metric == NULL)
    metric = "cpu";
  for (size_t m = 0; m < N_METRICS; m++) {
    if (strcmp(metrics[m].name, metric) != 0)
      continue;
    if (!metrics[m].present(exp))
      break;
    snprintf(p->metric, sizeof p->metric, "%s", metrics[m].title);
    snprintf(p->unit, sizeof p->unit, "%s", metrics[m].unit);
    p->per_count = metrics[m].per_count > 0 ? metrics[m].per_count : exp->ptimer_us / 1e6;
    p->counted = metrics[m].per_count > 0 ? "events" : "samples"; /* (the clock's metrics count ticks) */
    if (metrics[m].gather(exp, metrics[m].arg, t) == 0)
      return 0;
    snprintf(err, err_len, "out of memory");
    return -1;
  }
  for (size_t c = 0; c < exp->n_counters; c++) {
    if (strcmp(exp->counters[c].name, metric) != 0)
      continue;
    snprintf(p->metric, sizeof p->metric, "%s", metric);
    snprintf(p->unit, sizeof p->unit, "events");
    p->per_count = 1;
    p->counted = "samples";
    for (size_t i = 0; i < exp->n_hwc_samples; i++) {
      const struct er_hwc_sample *s = &exp->hwc_samples[i];
      if (s->tag == exp->counters[c].tag && count_event(t, s->frinfo, s->thrid, (double)s->interval) != 0) {
        snprintf(err, err_len, "out of memory");
        return -1;
      }
    }
    return 0;
  }
  const char *names[N_METRICS + 64];
  size_t n = er_profile_metrics(exp, names, sizeof names / sizeof names[0]);
  size_t at = (size_t)snprintf(err, err_len, "no metric \"%s\" in this experiment; it has:", metric);
  for (size_t i = 0; i < n && at < err_len; i++)
    at += (size_t)snprintf(err + at, err_len - at, " %s", names[i]);
  if (n == 0 && at < err_len)
    snprintf(err + at, err_len - at, " none");
  return 1;
}

int er_profile_build(const struct er_experiment *exp, struct er_names *names, const char *metric,
                     int with_inlined, enum er_view_mode mode, struct er_profile *p, char *err, size_t err_len)
{
  const struct er_profile_part part = {exp, names, NULL};
  return er_profile_build_parts(&part, 1, metric, with_inlined, mode, p, err, err_len);
}

/* PART's events of METRIC into P's stacks (under its root frame, if any)
 * and THREADS: gather's 0, 1 or -1. */
static int add_part(struct er_profile *p, struct name_index *ix, struct stack_index *sx, struct sums *threads,
                    const struct er_profile_part *part, const char *metric, int with_inlined, enum er_view_mode mode,
                    char *err, size_t err_len)
{
  struct tallies t = {{0}, *threads};
  int rc = gather(part->exp, metric, p, &t, err, err_len); /* (the label: the same for every part) */
  *threads = t.threads; /* (grown by it) */
  for (size_t i = 0; i < t.stacks.room && rc == 0; i++) {
    const struct key_sum *s = &t.stacks.slots[i];
    if (!s->used)
      continue;
    p->total += s->value;
    rc = add_stack(p, ix, sx, part->names, part->exp, er_experiment_stack(part->exp, s->key), part->root, s->value,
                   with_inlined, mode);
    if (rc != 0)
      snprintf(err, err_len, "out of memory");
  }
  free(t.stacks.slots);
  return rc;
}

/* Each thread's share, and the events in all, from their sums. */
static int take_threads(struct er_profile *p, const struct sums *threads)
{
  p->threads = malloc((threads->used + 1) * sizeof *p->threads);
  if (p->threads == NULL)
    return -1;
  for (size_t i = 0; i < threads->room; i++)
    if (threads->slots[i].used) {
      const struct key_sum *s = &threads->slots[i];
      p->threads[p->n_threads++] = (struct er_profile_thread){s->key, s->value, s->samples};
      p->samples += s->samples;
    }
  return 0;
}

int er_profile_build_parts(const struct er_profile_part *parts, size_t n_parts, const char *metric, int with_inlined,
                           enum er_view_mode mode, struct er_profile *p, char *err, size_t err_len)
{
  memset(p, 0, sizeof *p);
  struct name_index ix = {0};
  struct stack_index sx = {0};
  struct sums threads = {0};
  size_t added = 0;
  char first_err[512] = "";
  int rc = 0;
  for (size_t k = 0; k < n_parts && rc >= 0; k++) {
    rc = add_part(p, &ix, &sx, &threads, &parts[k], metric, with_inlined, mode, err, err_len);
    if (rc == 0)
      added++;
    else if (rc > 0 && first_err[0] == '\0')
      snprintf(first_err, sizeof first_err, "%s", err); /* a part without the metric: left out */
  }
  if (rc >= 0 && added == 0)
    snprintf(err, err_len, "%s", first_err);
  if (rc >= 0 && added > 0 && take_threads(p, &threads) != 0)
    rc = -1, snprintf(err, err_len, "out of memory");
  free(ix.slots);
  free(sx.slots);
  free(threads.slots);
  if (rc < 0 || added == 0) {
    er_profile_free(p);
    return -1;
  }
  /* Sorted, with each stack's function indexes renumbered to match. */
  size_t *by_rank = malloc((p->n_functions + 1) * sizeof *by_rank), *rank = malloc((p->n_functions + 1) * sizeof *rank);
  struct er_profile_function *sorted = malloc((p->n_functions + 1) * sizeof *sorted);
  if (by_rank == NULL || rank == NULL || sorted == NULL) {
    free(by_rank), free(rank), free(sorted);
    snprintf(err, err_len, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < p->n_functions; i++)
    by_rank[i] = i;
  ranking = p->functions;
  qsort(by_rank, p->n_functions, sizeof *by_rank, by_exclusive);
  for (size_t r = 0; r < p->n_functions; r++) {
    rank[by_rank[r]] = r;
    sorted[r] = p->functions[by_rank[r]];
  }
  for (size_t s = 0; s < p->n_stacks; s++)
    for (size_t d = 0; d < p->stacks[s].depth; d++)
      p->stacks[s].functions[d] = rank[p->stacks[s].functions[d]];
  free(p->functions);
  p->functions = sorted;
  free(by_rank), free(rank);
  return 0;
}

long er_profile_find(const struct er_profile *p, const char *name)
{
  for (size_t i = 0; i < p->n_functions; i++)
    if (strcmp(p->functions[i].name, name) == 0)
      return (long)i;
  return -1;
}

void er_profile_neighbours(const struct er_profile *p, size_t func, int callers, double *values)
{
  memset(values, 0, p->n_functions * sizeof *values);
  for (size_t s = 0; s < p->n_stacks; s++) {
    const struct er_profile_stack *st = &p->stacks[s];
    for (size_t d = 0; d < st->depth; d++) {
      if (st->functions[d] != func)
        continue;
      if (callers && d > 0)
        values[st->functions[d - 1]] += st->value;
      else if (!callers && d + 1 < st->depth)
        values[st->functions[d + 1]] += st->value;
      break; /* the outermost call of FUNC: a recursion counts once */
    }
  }
}

void er_profile_free(struct er_profile *p)
{
  for (size_t i = 0; i < p->n_functions; i++)
    free(p->functions[i].name);
  for (size_t s = 0; s < p->n_stacks; s++)
    free(p->stacks[s].functions);
  free(p->functions);
  free(p->stacks);
  free(p->threads);
  memset(p, 0, sizeof *p);
}
