/* er-dump's OpenMP section: clock time per OpenMP state (the frame
 * packets' OMP2_INFO, experiment-format.md §6.1a). */
#include <stdio.h>

#include "er/er_omp.h"
#include "er_dump_omp.h"

void er_dump_omp(const struct er_experiment *exp)
{
  double seconds[ER_OMP_N_STATES] = {0}, tick = exp->ptimer_us / 1e6;
  int any = 0;
  for (size_t i = 0; i < exp->n_clock; i++) {
    const struct er_stack *st = er_experiment_stack(exp, exp->clock[i].frinfo);
    if (st != NULL && st->omp_state > 0 && st->omp_state < ER_OMP_N_STATES) {
      seconds[st->omp_state] += exp->clock[i].ntick * tick;
      any = 1;
    }
  }
  if (!any)
    return;
  double work = 0, wait = 0, overhead = 0;
  for (int s = 1; s < ER_OMP_N_STATES; s++) {
    printf("omp_state %s: %.3f\n", er_omp_state_name(s), seconds[s]);
    char c = er_omp_state_class(s);
    work += c == 'w' ? seconds[s] : 0;
    wait += c == 'W' ? seconds[s] : 0;
    overhead += c == 'o' ? seconds[s] : 0;
  }
  printf("omp_work_seconds: %.3f\nomp_wait_seconds: %.3f\nomp_overhead_seconds: %.3f\n", work, wait, overhead);
}
