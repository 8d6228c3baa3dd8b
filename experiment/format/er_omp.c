/* OpenMP state names and gprofng's grouping of them (er/er_omp.h). */
#include "er/er_omp.h"

static const char *const names[ER_OMP_N_STATES] = {
    "", "overhead", "work", "implicit barrier", "explicit barrier", "idle", "serial", "reduction", "lock wait",
    "critical section wait", "ordered section wait", "atomic wait", "taskwait",
};

const char *er_omp_state_name(int state)
{
  return state > 0 && state < ER_OMP_N_STATES ? names[state] : "";
}

char er_omp_state_class(int state)
{
  switch (state) {
  case ER_OMP_WORK:
  case ER_OMP_SERIAL:
  case ER_OMP_REDUCTION:
    return 'w';
  case ER_OMP_OVERHEAD:
    return 'o';
  case ER_OMP_NONE:
    return 0;
  default:
    return state < ER_OMP_N_STATES ? 'W' : 0;
  }
}
