/* Frame rules shared with the program's threads, in the trace ring's file.
 *
 * A traced call's stack is walked where it happens when the frame rules of
 * every frame are known: the event then carries the call stack (a few
 * hundred bytes) instead of a copy of the stack (up to 8 KiB), and the
 * sampler process has nothing to unwind.  The rules come from the sampler:
 * each time it unwinds an event's stack copy with its cached rules
 * (unwind_rules.c, from the objects' .eh_frame), it publishes the rule of
 * every frame here, keyed by the code address and the address space the
 * event came from.  The program's threads only read: a lookup is a few
 * loads, allocates nothing, takes no lock, and so may run in a signal
 * handler.  An address with no rule sends that event the slow way (with
 * its stack copy), which publishes it for the next one.
 *
 * Entries are written once: the rule first, then the key with release
 * order; a reader that sees the key sees the rule.  A full table takes no
 * more (later stacks go the slow way).  A wrong rule (code unloaded and
 * other code loaded at its address) cannot make a walk read outside the
 * thread's stack: every read is bounded by it. */
#define _GNU_SOURCE
#include <stdint.h>

#include "unwind/unwind.h"
#include "trace_ring.h"

#define SPACE_SHIFT 48 /* user addresses are below 2^47 */

uint32_t col_trace_new_space(void)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL)
    return 0;
  uint32_t id;
  do
    id = __atomic_add_fetch(&t->next_space, 1, __ATOMIC_RELAXED) & 0xFFFF;
  while (id == 0);
  return id;
}

static uint64_t key_of(uint32_t space, uint64_t lookup_pc)
{
  return (lookup_pc & ((1ull << SPACE_SHIFT) - 1)) | (uint64_t)space << SPACE_SHIFT;
}

static size_t first_slot(uint64_t key)
{
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (COL_SHARED_RULE_SLOTS - 1);
}

void col_trace_publish_rule(uint32_t space, uint64_t lookup_pc, const struct col_frame_rule *rule)
{
  struct col_trace_ring *t = col_trace;
  if (t == NULL || space == 0 || (rule->kind != COL_RULE_SIMPLE && rule->kind != COL_RULE_OUTERMOST) ||
      rule->bp_offset != (int16_t)rule->bp_offset)
    return;
  uint64_t key = key_of(space, lookup_pc);
  size_t i = first_slot(key);
  for (size_t probes = 0; probes < 64; probes++, i = (i + 1) & (COL_SHARED_RULE_SLOTS - 1)) {
    struct col_shared_rule *slot = &t->rules[i];
    uint64_t there = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
    if (there == key)
      return; /* published already (by this process or another writer) */
    if (there != 0)
      continue;
    if (__atomic_load_n(&t->rules_published, __ATOMIC_RELAXED) >= COL_SHARED_RULE_SLOTS / 4 * 3)
      return; /* full enough: probes would grow long */
    /* Writers are the sampler and its descendants' writers: claim the
     * slot with a marker no lookup matches, then fill it. */
    uint64_t expected = 0;
    if (!__atomic_compare_exchange_n(&slot->key, &expected, UINT64_MAX, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      if (expected == key)
        return;
      continue;
    }
    slot->cfa_offset = rule->cfa_offset;
    slot->bp_offset = (int16_t)rule->bp_offset;
    slot->kind = rule->kind;
    slot->bases = (uint8_t)(rule->cfa_base | rule->bp << 4);
    __atomic_add_fetch(&t->rules_published, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
    return;
  }
}

int col_trace_published_rule(uint32_t space, uint64_t lookup_pc, struct col_frame_rule *out)
{
  struct col_trace_ring *t = col_trace;
  uint64_t key = key_of(space, lookup_pc);
  size_t i = first_slot(key);
  for (size_t probes = 0; probes < 64; probes++, i = (i + 1) & (COL_SHARED_RULE_SLOTS - 1)) {
    const struct col_shared_rule *slot = &t->rules[i];
    uint64_t there = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
    if (there == 0)
      return 0;
    if (there != key)
      continue; /* another address, or a slot being filled */
    out->kind = slot->kind;
    out->cfa_base = slot->bases & 0xF;
    out->bp = slot->bases >> 4;
    out->cfa_offset = slot->cfa_offset;
    out->bp_offset = slot->bp_offset;
    out->bx = COL_BP_LOST; /* (not published: a program's own walk knows no RBX) */
    out->bx_offset = 0;
    return 1;
  }
  return 0;
}
