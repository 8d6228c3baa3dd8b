/* Potential deadlocks (`collector report deadlocks`; Oracle's `deadlocks`
 * and `ddetail`): the lock orders (er_tha.h) make a graph, lock -> lock;
 * each cycle is a set of orders that threads taking their locks at the
 * same time could each wait in forever, whether or not they did in this
 * run.  Each cycle is reported once (from its lowest lock), with each
 * order: the thread, the lock it held and where it had taken it, the lock
 * it took and the stack where it took it.  Locks are named as their
 * variables when a load object's symbols say so, a heap lock by the stack
 * that allocated its block when heaptrace recorded it. */
#include "er_deadlock_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_tha.h"

#define MAX_CYCLE 8     /* locks in one cycle */
#define MAX_CYCLES 100  /* cycles reported */
#define STACK_SHOWN 8   /* frames of an order's stack */

struct graph {
  const struct er_lock_order **orders; /* one per (held, taken) pair: its first */
  size_t n;
  size_t cycles;
  const struct er_experiment *exp;
  struct er_names *names;
};

static const char *kind_name(int kind)
{
  switch (kind) {
  case ER_LOCK_READ:
    return "read lock";
  case ER_LOCK_WRITE:
    return "write lock";
  case ER_LOCK_SPIN:
    return "spin lock";
  default:
    return "mutex";
  }
}

static int unnamed_locks; /* locks no symbol and no recorded allocation named */

/* A lock as GDB would name it: its variable; or the heap block it was in
 * at WHEN, with the stack that allocated it (when heaptrace recorded it);
 * or its address. */
static void lock_name(const struct er_experiment *exp, struct er_names *names, uint64_t lock, int kind, int64_t when,
                      char *out, size_t len)
{
  char global[400];
  if (er_names_data(names, lock, global, sizeof global) != NULL) {
    snprintf(out, len, "%s %s at 0x%" PRIx64, kind_name(kind), global, lock);
    return;
  }
  const struct er_heap_event *block = er_experiment_heap_block(exp, lock, when);
  const struct er_stack *st = block != NULL ? er_experiment_stack(exp, block->frinfo) : NULL;
  if (st == NULL) {
    snprintf(out, len, "%s at 0x%" PRIx64 " (heap or stack)", kind_name(kind), lock);
    unnamed_locks++;
    return;
  }
  size_t at = (size_t)snprintf(out, len, "%s at 0x%" PRIx64 " in a heap block of %" PRIu64 " bytes (+%" PRIu64
                               ") allocated in", kind_name(kind), lock, block->size, lock - block->addr);
  for (size_t i = 0; i < st->n && i < 4 && at < len; i++)
    at += (size_t)snprintf(out + at, len - at, "%s %s", i > 0 ? " <-" : "", er_names_function(names, st->pcs[i]));
}

static void print_order(const struct graph *g, const struct er_lock_order *o)
{
  char taken[512], held[512];
  lock_name(g->exp, g->names, o->lock, o->kind, o->tstamp, taken, sizeof taken);
  lock_name(g->exp, g->names, o->held, o->held_kind, o->tstamp, held, sizeof held);
  printf("  thread %" PRIu64 " took %s\n    while holding %s, taken in %s\n", o->thrid, taken, held,
         er_names_function(g->names, o->held_pc));
  const struct er_stack *st = er_experiment_stack(g->exp, o->frinfo);
  printf("    where:");
  for (size_t i = 0; st != NULL && i < st->n && i < STACK_SHOWN; i++)
    printf("%s %s", i > 0 ? " <-" : "", er_names_function(g->names, st->pcs[i]));
  if (st != NULL && st->n > STACK_SHOWN)
    printf(" <- ...");
  printf("%s\n", st == NULL ? " (no stack recorded)" : "");
}

static void print_cycle(struct graph *g, const struct er_lock_order **path, size_t n)
{
  g->cycles++;
  printf("\nPotential deadlock %zu: %zu locks taken in a cycle of orders\n", g->cycles, n);
  for (size_t i = 0; i < n; i++)
    print_order(g, path[i]);
}

/* The cycles through START whose other locks are all above it (so each
 * cycle is found once, from its lowest lock). */
static void walk(struct graph *g, uint64_t start, const struct er_lock_order **path, size_t depth)
{
  uint64_t at = depth == 0 ? start : path[depth - 1]->lock;
  for (size_t i = 0; i < g->n && g->cycles < MAX_CYCLES; i++) {
    const struct er_lock_order *o = g->orders[i];
    if (o->held != at)
      continue;
    if (o->lock == start) {
      path[depth] = o;
      print_cycle(g, path, depth + 1);
      continue;
    }
    if (o->lock < start || depth + 1 >= MAX_CYCLE)
      continue;
    int on_path = 0;
    for (size_t k = 0; k < depth && !on_path; k++)
      on_path = path[k]->held == o->lock;
    if (!on_path) {
      path[depth] = o;
      walk(g, start, path, depth + 1);
    }
  }
}

/* The deadlocks that happened (the runtime found their threads all
 * waiting): each with its threads, what each waits for and holds; their
 * count. */
static size_t print_actual(const struct er_experiment *exp, struct er_names *names)
{
  size_t found = 0;
  for (size_t i = 0; i < exp->n_lock_orders; i++) {
    const struct er_lock_order *first = &exp->lock_orders[i];
    int seen = !first->deadlock;
    for (size_t k = 0; k < i && !seen; k++)
      seen = exp->lock_orders[k].deadlock && exp->lock_orders[k].number == first->number;
    if (seen)
      continue;
    found++;
    printf("\nDeadlock %d (it happened: these threads waited for each other's locks, for good):\n", first->number);
    for (size_t k = i; k < exp->n_lock_orders; k++) {
      const struct er_lock_order *o = &exp->lock_orders[k];
      if (!o->deadlock || o->number != first->number)
        continue;
      char waits[512], holds[512];
      lock_name(exp, names, o->lock, o->kind, o->tstamp, waits, sizeof waits);
      lock_name(exp, names, o->held, o->held_kind, o->tstamp, holds, sizeof holds);
      printf("  thread %" PRIu64 " waits for %s\n    and holds %s\n", o->thrid, waits, holds);
    }
  }
  return found;
}

int er_deadlock_report(const char *path, const struct er_experiment *exp, struct er_names *names)
{
  if (!exp->declared[ER_KIND_LOCK_ORDER]) {
    printf("Experiment %s has no lock orders: record it with collector tha deadlock.\n", path);
    return 1;
  }
  struct graph g = {calloc(exp->n_lock_orders + 1, sizeof *g.orders), 0, 0, exp, names};
  if (g.orders == NULL)
    return 1;
  /* One order per pair (a process records each once; its descendants
   * are experiments of their own). */
  for (size_t i = 0; i < exp->n_lock_orders; i++) {
    const struct er_lock_order *o = &exp->lock_orders[i];
    int seen = o->deadlock;
    for (size_t k = 0; k < g.n && !seen; k++)
      seen = g.orders[k]->held == o->held && g.orders[k]->lock == o->lock;
    if (!seen)
      g.orders[g.n++] = o;
  }
  size_t locks = 0;
  for (size_t i = 0; i < g.n; i++) {
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++)
      seen = g.orders[k]->held == g.orders[i]->held;
    locks += !seen;
  }
  printf("Experiment %s: %zu lock order(s) among the locks held while another was taken (%zu such lock(s)).\n",
         path, g.n, locks);
  size_t actual = print_actual(exp, names);
  if (actual > 0)
    printf("\n%zu deadlock(s) happened in this run.\n", actual);
  const struct er_lock_order *cycle[MAX_CYCLE];
  for (size_t i = 0; i < g.n && g.cycles < MAX_CYCLES; i++) {
    uint64_t start = g.orders[i]->held;
    int first = 1; /* each lock starts a walk once */
    for (size_t k = 0; k < i && first; k++)
      first = g.orders[k]->held != start;
    if (first)
      walk(&g, start, cycle, 0);
  }
  if (g.cycles == 0)
    printf("No potential deadlock: no cycle among the lock orders.\n");
  else
    printf("\n%zu potential deadlock(s)%s. Each happens when the threads of its orders hold their first locks at "
           "the same time; take the locks in one order everywhere to rule it out.\n",
           g.cycles, g.cycles >= MAX_CYCLES ? " (the first ones)" : "");
  if (unnamed_locks > 0 && !exp->declared[ER_KIND_HEAP])
    printf("A lock at a heap or stack address is named by its address: record with collector heaptrace on as well "
           "to name a heap lock by the stack that allocated it.\n");
  free(g.orders);
  return 0;
}
