/* OpenMP state names and gprofng's grouping of them (er/er_omp.h). */
#include "er/er_omp.h"

#include <stdio.h>

static const char *const names[ER_OMP_N_STATES] = {
    "", "overhead", "work", "implicit barrier", "explicit barrier", "idle", "serial", "reduction", "lock wait",
    "critical section wait", "ordered section wait", "atomic wait", "taskwait", "not sampled",
};

const char *er_omp_state_name(int state)
{
  return state > 0 && state < ER_OMP_N_STATES ? names[state] : "";
}

const char *er_omp_state_pseudo_function(int state)
{
  switch (state) {
  case ER_OMP_IDLE:
    return "<OMP-idle>";
  case ER_OMP_REDUCTION:
    return "<OMP-reduction>";
  case ER_OMP_IMPLICIT_BARRIER:
    return "<OMP-implicit_barrier>";
  case ER_OMP_EXPLICIT_BARRIER:
    return "<OMP-explicit_barrier>";
  case ER_OMP_LOCK_WAIT:
    return "<OMP-lock_wait>";
  case ER_OMP_CRITICAL_WAIT:
    return "<OMP-critical_section_wait>";
  case ER_OMP_ORDERED_WAIT:
    return "<OMP-ordered_section_wait>";
  case ER_OMP_ATOMIC_WAIT:
    return "<OMP-atomic_wait>";
  default:
    return NULL;
  }
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
  case ER_OMP_NOT_SAMPLED:
    return 0;
  default:
    return state < ER_OMP_N_STATES ? 'W' : 0;
  }
}

int er_omp_profile_block(char *out, size_t len)
{
#define COMMON_FIELDS                                                                        \
  "    <field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" type=\"INT64\"/>\n"  \
  "    <field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"          \
  "    <field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"                 \
  "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"32\" type=\"INT64\"/>\n" \
  "    <field name=\"FRINFO\" offset=\"40\" type=\"INT64\"/>\n"
#define DESC_FIELDS(id, id_uname, parent, parent_uname, pc_uname)                             \
  "    <field name=\"" id "\" uname=\"" id_uname "\" offset=\"8\" type=\"UINT64\"/>\n"          \
  "    <field name=\"" parent "\" uname=\"" parent_uname "\" offset=\"16\" type=\"UINT64\"/>\n" \
  "    <field name=\"PRPC\" uname=\"" pc_uname "\" offset=\"24\" type=\"UINT64\"/>\n"
  return snprintf(out, len,
                  "<profile name=\"omptrace\">\n  <profdata fname=\"omptrace\"/>\n"
                  "  <profpckt kind=\"%d\" uname=\"OpenMP enter parallel region events\">\n" COMMON_FIELDS
                  "    <field name=\"CPRID\" uname=\"Current parallel region id\" offset=\"48\" type=\"UINT64\"/>\n"
                  "  </profpckt>\n"
                  "  <profpckt kind=\"%d\" uname=\"OpenMP enter task events\">\n" COMMON_FIELDS
                  "    <field name=\"TSKID\" uname=\"Current task id\" offset=\"48\" type=\"UINT64\"/>\n"
                  "  </profpckt>\n"
                  "  <profpckt kind=\"%d\" uname=\"OpenMP parallel region descriptions\">\n"
                  DESC_FIELDS("CPRID", "Parallel region id", "PPRID", "Parent parallel region id", "Parallel region PC")
                  "  </profpckt>\n"
                  "  <profpckt kind=\"%d\" uname=\"OpenMP task descriptions\">\n"
                  DESC_FIELDS("TSKID", "Task id", "PTSKID", "Parent task id", "Task PC")
                  "  </profpckt>\n</profile>\n",
                  ER_PKT_OMP_REGION_EVENT, ER_PKT_OMP_TASK_EVENT, ER_PKT_OMP_REGION_DESC, ER_PKT_OMP_TASK_DESC);
#undef COMMON_FIELDS
#undef DESC_FIELDS
}
