/* Address ranges that held two load objects, one after the other (a
 * library unloaded and another loaded where it was: dlclose then dlopen of
 * one of the same size).  map.xml says when each was mapped and unmapped;
 * a packet's stack holds bare addresses, and one stack (deduplicated by its
 * addresses) can stand for code of either object.  So each packet whose
 * stack runs in such a range at a time the range held an earlier object
 * gets a stack of its own, each such address tagged with the segment it
 * ran in (er_pc_segment_tag); names then come from that segment.  gprofng
 * does the same from the unmap records: a segment loaded at the packet's
 * time.  Nothing is done, and nothing costs, where no range was reused. */
#include <stdlib.h>
#include <string.h>

#include "er/er_reader.h"
#include "er_reader_parts.h"
#include "er_pc_tag.h"

static int is_code(const struct er_segment *s)
{
  return (s->modes & 4) != 0;
}

static int covers(const struct er_segment *s, uint64_t pc)
{
  return pc >= s->vaddr && pc - s->vaddr < s->size;
}

/* The code segments whose range another object's code segment also held
 * (few: the only ones a packet's time can decide between); their count. */
static size_t reused_segments(const struct er_experiment *exp, size_t **out)
{
  size_t n = 0;
  *out = NULL;
  for (size_t i = 0; i < exp->n_segments; i++) {
    const struct er_segment *a = &exp->segments[i];
    int reused = 0;
    for (size_t j = 0; j < exp->n_segments && !reused && is_code(a); j++) {
      const struct er_segment *b = &exp->segments[j];
      reused = j != i && is_code(b) && a->vaddr < b->vaddr + b->size && b->vaddr < a->vaddr + a->size &&
               strcmp(a->name, b->name) != 0;
    }
    if (!reused)
      continue;
    size_t *more = realloc(*out, (n + 1) * sizeof *more);
    if (more == NULL)
      break;
    *out = more;
    (*out)[n++] = i;
  }
  return n;
}

struct resolver {
  struct er_experiment *exp;
  const size_t *reused; /* segment indexes (reused_segments) */
  size_t n_reused;
  struct er_stack *added; /* stacks made here, appended to the experiment's at the end */
  size_t n_added;
  uint64_t next_uid;
};

/* The reused segment covering PC at REL (relative to the run): loaded
 * then; else the first loaded after it (gprofng's rule: a late map record
 * moves the load back); else NULL (PC is in no reused range). */
static const struct er_segment *segment_at(const struct resolver *r, uint64_t pc, int64_t rel)
{
  const struct er_segment *later = NULL;
  for (size_t i = 0; i < r->n_reused; i++) {
    const struct er_segment *s = &r->exp->segments[r->reused[i]];
    if (!covers(s, pc))
      continue;
    if (s->tstamp <= rel && (s->unmap_tstamp < 0 || rel < s->unmap_tstamp))
      return s;
    if (s->tstamp > rel && (later == NULL || s->tstamp < later->tstamp))
      later = s;
  }
  return later;
}

/* The frame uid of a stack like FRINFO's, with the addresses that ran in an
 * earlier object of a reused range tagged; FRINFO itself when none did. */
static uint64_t resolve(struct resolver *r, uint64_t frinfo, int64_t rel)
{
  const struct er_stack *st = er_experiment_stack(r->exp, frinfo);
  if (st == NULL || st->n == 0)
    return frinfo;
  uint64_t *pcs = NULL;
  for (size_t k = 0; k < st->n; k++) {
    const struct er_segment *then = segment_at(r, st->pcs[k], rel);
    if (then == NULL || then == er_experiment_segment(r->exp, st->pcs[k]))
      continue; /* what the address names without a time: nothing to tag */
    size_t index = (size_t)(then - r->exp->segments);
    if (index + 1 > TAG_MAX)
      continue;
    if (pcs == NULL && (pcs = malloc(st->n * sizeof *pcs)) != NULL)
      memcpy(pcs, st->pcs, st->n * sizeof *pcs);
    if (pcs != NULL)
      pcs[k] = ((uint64_t)(index + 1) << TAG_SHIFT) | st->pcs[k];
  }
  if (pcs == NULL)
    return frinfo;
  for (size_t i = 0; i < r->n_added; i++) /* one stack for all the packets of that era */
    if (r->added[i].n == st->n && memcmp(r->added[i].pcs, pcs, st->n * sizeof *pcs) == 0) {
      free(pcs);
      return r->added[i].frame_uid;
    }
  struct er_stack *more = realloc(r->added, (r->n_added + 1) * sizeof *more);
  if (more == NULL) {
    free(pcs);
    return frinfo;
  }
  r->added = more;
  r->added[r->n_added] = (struct er_stack){r->next_uid++, st->n, pcs, st->omp_state, st->user_uid, st->user_pcs, st->user_n};
  return r->added[r->n_added++].frame_uid;
}

static int by_uid(const void *a, const void *b)
{
  uint64_t x = ((const struct er_stack *)a)->frame_uid, y = ((const struct er_stack *)b)->frame_uid;
  return x < y ? -1 : x > y;
}

void er_experiment_resolve_reused_ranges(struct er_experiment *exp)
{
  size_t *reused;
  size_t n_reused = exp->n_stacks > 0 ? reused_segments(exp, &reused) : 0;
  if (n_reused == 0)
    return;
  struct resolver r = {exp, reused, n_reused, NULL, 0, exp->stacks[exp->n_stacks - 1].frame_uid + 1};
  int64_t run = exp->run_tstamp;
  for (size_t i = 0; i < exp->n_clock; i++)
    exp->clock[i].frinfo = resolve(&r, exp->clock[i].frinfo, exp->clock[i].tstamp - run);
  for (size_t i = 0; i < exp->n_hwc_samples; i++)
    exp->hwc_samples[i].frinfo = resolve(&r, exp->hwc_samples[i].frinfo, exp->hwc_samples[i].tstamp - run);
  for (size_t i = 0; i < exp->n_waits; i++)
    exp->waits[i].frinfo = resolve(&r, exp->waits[i].frinfo, exp->waits[i].start - run);
  for (size_t i = 0; i < exp->n_io_calls; i++)
    exp->io_calls[i].frinfo = resolve(&r, exp->io_calls[i].frinfo, exp->io_calls[i].start - run);
  for (size_t i = 0; i < exp->n_heap_events; i++)
    exp->heap_events[i].frinfo = resolve(&r, exp->heap_events[i].frinfo, exp->heap_events[i].tstamp - run);
  free(reused);
  if (r.n_added == 0)
    return;
  struct er_stack *all = realloc(exp->stacks, (exp->n_stacks + r.n_added) * sizeof *all);
  if (all == NULL) {
    for (size_t i = 0; i < r.n_added; i++)
      free(r.added[i].pcs);
    free(r.added);
    return;
  }
  memcpy(all + exp->n_stacks, r.added, r.n_added * sizeof *all);
  exp->stacks = all;
  exp->n_stacks += r.n_added; /* uids above every read one: still sorted */
  qsort(exp->stacks, exp->n_stacks, sizeof *exp->stacks, by_uid);
  free(r.added);
}
