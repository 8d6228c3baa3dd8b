/* The two MPI ABIs a program may use, told apart at its first traced call:
 * Open MPI's (handles are pointers to its objects) and MPICH's (handles
 * are ints; Intel MPI, MVAPICH and Cray MPI share it).  The constants and
 * status layouts are checked against both mpi.h by unit.test_mpi_abi. */
#ifndef GDBCOL_MPI_ABI_H
#define GDBCOL_MPI_ABI_H

#include <stddef.h>
#include <stdint.h>

struct col_mpi_abi {
  const char *name;    /* "Open MPI", "MPICH"; NULL: neither (nothing is traced) */
  size_t handle_bytes; /* of a request in an array: 8 or 4 */
  uintptr_t comm_world, comm_self;
  uintptr_t status_ignore; /* MPI_STATUS_IGNORE, also MPI_STATUSES_IGNORE */
  uintptr_t request_null;
  int any_source, proc_null;
  size_t status_bytes; /* sizeof(MPI_Status) */
  size_t source_at;    /* offsetof(MPI_Status, MPI_SOURCE) */
  int count_layout;    /* how a status holds the bytes received: COL_MPI_COUNT_* */
};
enum { COL_MPI_COUNT_OPEN_MPI, COL_MPI_COUNT_MPICH };

/* The ABIs as this runtime knows them (the unit test compares them with
 * each mpi.h). */
extern const struct col_mpi_abi col_mpi_open_mpi_abi, col_mpi_mpich_abi;

/* The process's MPI, looked at once (the first call may look symbols up;
 * later ones only load). */
const struct col_mpi_abi *col_mpi_abi(void);

/* A handle as the ABI compares it (an MPICH int arrives in a word whose
 * upper half is not defined). */
static inline uintptr_t col_mpi_handle_value(const struct col_mpi_abi *abi, uintptr_t h)
{
  return abi->handle_bytes == 4 ? (uint32_t)h : h;
}
/* The I-th handle of an array of them (requests). */
uintptr_t col_mpi_handle_at(const struct col_mpi_abi *abi, const void *array, int i);

/* A status's source rank and the bytes it says arrived. */
int col_mpi_status_source(const struct col_mpi_abi *abi, const void *status);
int64_t col_mpi_status_bytes(const struct col_mpi_abi *abi, const void *status);
/* Nonzero when the status is that of a request MPI_Cancel took back. */
int col_mpi_status_cancelled(const struct col_mpi_abi *abi, const void *status);

#endif
