/* MPI tracing's function numbers: see er_mpi.h. */
#include "er/er_mpi.h"

#include <stddef.h>

const char *er_mpi_function_name(int id)
{
#define ER_MPI_NAME(id_, name, counting) [id_] = #name,
  static const char *const names[ER_MPI_N_FUNCTIONS] = {ER_MPI_FUNCTIONS(ER_MPI_NAME)};
#undef ER_MPI_NAME
  return id >= 0 && id < ER_MPI_N_FUNCTIONS ? names[id] : NULL;
}
