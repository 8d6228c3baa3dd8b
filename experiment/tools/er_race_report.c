/* Data races (`collector report races`; Oracle's `races` and `rdetail`):
 * the races ThreadSanitizer found, each with its two accesses (thread,
 * read or write, size, stack) and its location, named as the program's
 * variable when a load object's symbols cover it, or as a heap block with
 * the stack that allocated it; and how many distinct locations raced. */
#include "er_race_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define STACK_SHOWN 8

static void print_stack(const struct er_experiment *exp, struct er_names *names, uint64_t frinfo)
{
  const struct er_stack *st = er_experiment_stack(exp, frinfo);
  for (size_t i = 0; st != NULL && i < st->n && i < STACK_SHOWN; i++)
    printf("%s %s", i > 0 ? " <-" : "", er_names_function(names, st->pcs[i]));
  if (st != NULL && st->n > STACK_SHOWN)
    printf(" <- ...");
  printf("%s\n", st == NULL ? " (no stack recorded)" : "");
}

static void print_access(const struct er_experiment *exp, struct er_names *names, const struct er_race_access *a)
{
  printf("  %s of %d byte(s)%s by thread %d (ThreadSanitizer's numbering)\n    where:", a->write ? "a write" : "a read",
         a->size, a->atomic ? " (atomic)" : "", a->tsan_tid);
  print_stack(exp, names, a->frinfo);
}

/* "counter at 0x...", "0x... in a heap block of 16 bytes (0x...+8)", or
 * "0x... (heap or stack)" when nothing names it. */
static void print_location(struct er_names *names, const struct er_race_access *a)
{
  char name[400];
  const char *variable = er_names_data(names, a->addr, name, sizeof name);
  if (variable != NULL)
    printf("%s at 0x%" PRIx64, variable, a->addr);
  else if (a->alloc_frinfo != 0 && a->loc_start != 0 && a->addr >= a->loc_start)
    printf("0x%" PRIx64 " in a heap block of %" PRIu64 " bytes (0x%" PRIx64 "+%" PRIu64 ")", a->addr, a->loc_size,
           a->loc_start, a->addr - a->loc_start);
  else
    printf("0x%" PRIx64 " (heap or stack)", a->addr);
}

int er_race_report(const char *path, const struct er_experiment *exp, struct er_names *names)
{
  if (!exp->declared[ER_KIND_RACE]) {
    printf("Experiment %s was not recorded for data races: record it with collector tha race (a program built "
           "with -fsanitize=thread).\n", path);
    return 1;
  }
  size_t races = 0, locations = 0;
  for (size_t i = 0; i < exp->n_races; i++) {
    const struct er_race_access *first = &exp->races[i];
    int seen = 0, place_seen = 0;
    for (size_t k = 0; k < i; k++) {
      seen |= exp->races[k].number == first->number;
      place_seen |= exp->races[k].addr == first->addr;
    }
    if (seen)
      continue;
    races++;
    locations += !place_seen;
    printf("\nRace %d at ", first->number);
    print_location(names, first);
    printf(":\n");
    for (size_t k = i; k < exp->n_races; k++)
      if (exp->races[k].number == first->number)
        print_access(exp, names, &exp->races[k]);
    if (first->alloc_frinfo != 0) {
      printf("  the block allocated by thread %d\n    where:", first->alloc_tid);
      print_stack(exp, names, first->alloc_frinfo);
    }
    if (first->n_locks == 0)
      printf("  no mutex held by either thread\n");
    for (int l = 0; l < first->n_locks; l++) {
      char lock[400];
      const char *lock_name = er_names_data(names, first->locks[l], lock, sizeof lock);
      printf("  %s mutex %s%s0x%" PRIx64 "\n", l == 0 ? "held by the two threads:" : "                        ",
             lock_name != NULL ? lock_name : "", lock_name != NULL ? " at " : "", first->locks[l]);
    }
  }
  printf("\nExperiment %s: %zu data race(s) at %zu location(s)%s.\n", path, races, locations,
         races == 0 ? " (ThreadSanitizer reported none)" : "");
  return 0;
}
