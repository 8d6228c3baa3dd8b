/* Looking up what a read experiment holds: a stack by its frame uid, the
 * segment or generated-code region a PC ran in (a tagged PC: the segment
 * it was tagged with, er_pc_tag.h), the heap block an address was in. */
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_reader.h"
#include "er_pc_tag.h"

int er_stack_by_frame_uid(const void *a, const void *b)
{
  uint64_t x = ((const struct er_stack *)a)->frame_uid, y = ((const struct er_stack *)b)->frame_uid;
  return x < y ? -1 : x > y;
}

const struct er_stack *er_experiment_stack(const struct er_experiment *exp, uint64_t frame_uid)
{
  struct er_stack key = {frame_uid, 0, NULL, 0, 0, NULL, 0};
  if (exp->n_stacks == 0)
    return NULL;
  return bsearch(&key, exp->stacks, exp->n_stacks, sizeof key, er_stack_by_frame_uid);
}

const struct er_code_region *er_experiment_code_region(const struct er_experiment *exp, uint64_t pc)
{
  for (size_t i = exp->n_code_regions; i-- > 0;) {
    const struct er_code_region *r = &exp->code_regions[i];
    if (pc >= r->vaddr && pc - r->vaddr < r->size)
      return r;
  }
  return NULL;
}

const struct er_segment *er_experiment_segment(const struct er_experiment *exp, uint64_t pc)
{
  const struct er_segment *tagged = er_pc_segment_tag(exp, pc);
  if (tagged != NULL)
    return tagged;
  for (size_t i = exp->n_segments; i-- > 0;) {
    const struct er_segment *s = &exp->segments[i];
    if (pc >= s->vaddr && pc - s->vaddr < s->size)
      return s;
  }
  return NULL;
}

int er_pc_in_runtime(const struct er_experiment *exp, uint64_t pc)
{
  const struct er_segment *seg = er_experiment_segment(exp, pc);
  const char *file = seg != NULL && seg->name != NULL ? strrchr(seg->name, '/') : NULL;
  return file != NULL && strcmp(file, "/" ER_RUNTIME_FILE) == 0;
}

uint64_t er_pc_address(uint64_t pc)
{
  uint64_t tag = pc >> TAG_SHIFT;
  return tag != 0 && tag <= TAG_MAX ? pc & ((1ULL << TAG_SHIFT) - 1) : pc;
}

const struct er_segment *er_pc_segment_tag(const struct er_experiment *exp, uint64_t pc)
{
  uint64_t tag = pc >> TAG_SHIFT;
  return tag != 0 && tag <= TAG_MAX && tag <= exp->n_segments ? &exp->segments[tag - 1] : NULL;
}

const struct er_heap_event *er_experiment_heap_block(const struct er_experiment *exp, uint64_t addr, int64_t when)
{
  const struct er_heap_event *found = NULL;
  for (size_t i = 0; i < exp->n_heap_events; i++) {
    const struct er_heap_event *e = &exp->heap_events[i];
    if (e->tstamp > when)
      continue;
    if ((e->htype == ER_HEAP_MALLOC || e->htype == ER_HEAP_REALLOC) && addr >= e->addr && addr - e->addr < e->size &&
        (found == NULL || e->tstamp >= found->tstamp))
      found = e;
  }
  /* Freed (or moved by a realloc) before WHEN: not that block any more. */
  for (size_t i = 0; found != NULL && i < exp->n_heap_events; i++) {
    const struct er_heap_event *e = &exp->heap_events[i];
    if (e->tstamp >= found->tstamp && e->tstamp <= when && e != found &&
        ((e->htype == ER_HEAP_FREE && e->addr == found->addr) ||
         (e->htype == ER_HEAP_REALLOC && e->old_addr == found->addr)))
      found = NULL;
  }
  return found;
}
