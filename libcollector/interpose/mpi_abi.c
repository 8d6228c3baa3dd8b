/* The MPI ABIs (mpi_abi.h).  Telling them apart: Open MPI exports its
 * predefined objects (ompi_mpi_comm_world, whose address is
 * MPI_COMM_WORLD); MPICH and the libraries of its ABI export what their
 * mpi.h refers to for MPI_UNWEIGHTED (MPIR_C_MPI_UNWEIGHTED up to MPICH
 * 4.1, the MPI_UNWEIGHTED object itself from 4.2), and up to 4.1 the
 * MPII_Version_ABI string (4.2 exports neither of those two: Debian 13's
 * MPICH was not traced at all).  A process with neither ABI's is not
 * traced. */
#define _GNU_SOURCE
#include "mpi_abi.h"

#include <dlfcn.h>
#include <string.h>

#include "trace_record.h"

const struct col_mpi_abi col_mpi_open_mpi_abi = {
    .name = "Open MPI",
    .handle_bytes = sizeof(void *),
    .status_ignore = 0,
    .any_source = -1,
    .proc_null = -2,
    .status_bytes = 24, /* MPI_SOURCE, MPI_TAG, MPI_ERROR, _cancelled, size_t _ucount */
    .source_at = 0,
    .count_layout = COL_MPI_COUNT_OPEN_MPI,
};

const struct col_mpi_abi col_mpi_mpich_abi = {
    .name = "MPICH",
    .handle_bytes = sizeof(int),
    .comm_world = 0x44000000,
    .comm_self = 0x44000001,
    .status_ignore = 1,
    .request_null = 0x2c000000,
    .any_source = -2,
    .proc_null = -1,
    .status_bytes = 20, /* count_lo, count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR */
    .source_at = 8,
    .count_layout = COL_MPI_COUNT_MPICH,
};

static struct col_mpi_abi open_mpi; /* with the addresses of this process's objects */
static const struct col_mpi_abi unknown;
static const struct col_mpi_abi *known;

static const struct col_mpi_abi *look(void)
{
  int was = col_tracing_here;
  col_tracing_here = 1; /* dlsym may allocate: not the program's */
  void *world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
  const struct col_mpi_abi *abi = &unknown;
  if (world != NULL) {
    open_mpi = col_mpi_open_mpi_abi;
    open_mpi.comm_world = (uintptr_t)world;
    open_mpi.comm_self = (uintptr_t)dlsym(RTLD_DEFAULT, "ompi_mpi_comm_self");
    open_mpi.request_null = (uintptr_t)dlsym(RTLD_DEFAULT, "ompi_request_null");
    abi = &open_mpi;
  } else if (dlsym(RTLD_DEFAULT, "MPIR_C_MPI_UNWEIGHTED") != NULL || dlsym(RTLD_DEFAULT, "MPI_UNWEIGHTED") != NULL ||
             dlsym(RTLD_DEFAULT, "MPII_Version_ABI") != NULL) {
    abi = &col_mpi_mpich_abi;
  }
  col_tracing_here = was;
  return abi;
}

const struct col_mpi_abi *col_mpi_abi(void)
{
  const struct col_mpi_abi *abi = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
  if (abi == NULL) {
    abi = look(); /* two threads may both look: they find the same */
    __atomic_store_n(&known, abi, __ATOMIC_RELEASE);
  }
  return abi;
}

uintptr_t col_mpi_handle_at(const struct col_mpi_abi *abi, const void *array, int i)
{
  if (abi->handle_bytes == 4) {
    uint32_t h;
    memcpy(&h, (const char *)array + (size_t)i * 4, 4);
    return h;
  }
  uintptr_t h;
  memcpy(&h, (const char *)array + (size_t)i * sizeof h, sizeof h);
  return h;
}

int col_mpi_status_source(const struct col_mpi_abi *abi, const void *status)
{
  int source;
  memcpy(&source, (const char *)status + abi->source_at, sizeof source);
  return source;
}

int col_mpi_status_cancelled(const struct col_mpi_abi *abi, const void *status)
{
  int32_t word;
  if (abi->count_layout == COL_MPI_COUNT_OPEN_MPI) {
    memcpy(&word, (const char *)status + 12, sizeof word); /* _cancelled */
    return word != 0;
  }
  memcpy(&word, (const char *)status + 4, sizeof word); /* count_hi_and_cancelled: bit 0 */
  return word & 1;
}

int64_t col_mpi_status_bytes(const struct col_mpi_abi *abi, const void *status)
{
  if (abi->count_layout == COL_MPI_COUNT_OPEN_MPI) {
    size_t count;
    memcpy(&count, (const char *)status + 16, sizeof count);
    return (int64_t)count;
  }
  int32_t lo, hi_and_cancelled;
  memcpy(&lo, status, sizeof lo);
  memcpy(&hi_and_cancelled, (const char *)status + 4, sizeof hi_and_cancelled);
  return (int64_t)((uint64_t)(uint32_t)lo | (uint64_t)((uint32_t)hi_and_cancelled >> 1) << 32);
}
