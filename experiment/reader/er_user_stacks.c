/* User-mode stacks (UID packets, experiment-format.md §6.1b): an OpenMP
 * program's samples name them from their frame packets' OMP2_INFO
 * records.  Kept by uid; each stack that names one gets a pointer to it.
 * Lengths are checked against the packet before use; a packet that
 * contradicts itself is counted damaged. */
#include <stdlib.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_reader.h"
#include "er_reader_parts.h"

void er_collect_user_stack(struct er_experiment *exp, const unsigned char *p, uint16_t size)
{
  struct er_uid_packet head;
  if (size < sizeof head || (size - sizeof head) % 8 != 0) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&head, p, sizeof head);
  if (head.uid == 0) {
    exp->damaged_packets++;
    return;
  }
  struct er_user_stack *more = realloc(exp->user_stacks, (exp->n_user_stacks + 1) * sizeof *more);
  size_t n = (size - sizeof head) / 8;
  uint64_t *pcs = malloc(n * 8 + 8);
  if (more == NULL || pcs == NULL) {
    free(pcs);
    if (more != NULL)
      exp->user_stacks = more;
    return;
  }
  memcpy(pcs, p + sizeof head, n * 8);
  exp->user_stacks = more;
  exp->user_stacks[exp->n_user_stacks++] = (struct er_user_stack){head.uid, n, pcs};
}

static int by_uid(const void *a, const void *b)
{
  uint64_t x = ((const struct er_user_stack *)a)->uid, y = ((const struct er_user_stack *)b)->uid;
  return x < y ? -1 : x > y;
}

void er_experiment_resolve_user_stacks(struct er_experiment *exp)
{
  if (exp->n_user_stacks == 0)
    return;
  qsort(exp->user_stacks, exp->n_user_stacks, sizeof *exp->user_stacks, by_uid);
  for (size_t i = 0; i < exp->n_stacks; i++) {
    struct er_stack *st = &exp->stacks[i];
    struct er_user_stack key = {st->user_uid, 0, NULL};
    const struct er_user_stack *u =
        st->user_uid != 0 ? bsearch(&key, exp->user_stacks, exp->n_user_stacks, sizeof key, by_uid) : NULL;
    st->user_pcs = u != NULL ? u->pcs : NULL;
    st->user_n = u != NULL ? u->n : 0;
  }
}

void er_free_user_stacks(struct er_experiment *exp)
{
  for (size_t i = 0; i < exp->n_user_stacks; i++)
    free(exp->user_stacks[i].pcs);
  free(exp->user_stacks);
  exp->user_stacks = NULL;
  exp->n_user_stacks = 0;
}
