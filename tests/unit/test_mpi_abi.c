/* The MPI ABIs the runtime serves without either's mpi.h (mpi_abi.h):
 * compiled once against Open MPI's mpi.h (MPI_ABI_OPEN_MPI) and once
 * against MPICH's, it checks that the constants, handle sizes and status
 * layout the runtime uses are that implementation's. */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi_abi.h"
#include "test_util.h"

__thread int col_tracing_here; /* the runtime's guard, which mpi_abi.c sets around its lookups */

int main(void)
{
#ifdef MPI_ABI_OPEN_MPI
  const struct col_mpi_abi *abi = &col_mpi_open_mpi_abi;
  CHECK(offsetof(MPI_Status, _ucount) == 16); /* where col_mpi_status_bytes reads the bytes */
  CHECK(sizeof(((MPI_Status *)0)->_ucount) == sizeof(size_t));
  MPI_Status s = {0};
  s._ucount = 123456789012ull;
  CHECK(offsetof(MPI_Status, _cancelled) == 12); /* where col_mpi_status_cancelled reads it */
  CHECK(!col_mpi_status_cancelled(abi, &s));
  MPI_Status cancelled = s;
  cancelled._cancelled = 1;
#else
  const struct col_mpi_abi *abi = &col_mpi_mpich_abi;
  CHECK((uintptr_t)MPI_COMM_WORLD == abi->comm_world);
  CHECK((uintptr_t)MPI_COMM_SELF == abi->comm_self);
  CHECK((uintptr_t)MPI_REQUEST_NULL == abi->request_null);
  CHECK(offsetof(MPI_Status, count_lo) == 0 && offsetof(MPI_Status, count_hi_and_cancelled) == 4);
  MPI_Status s = {0};
  s.count_lo = (int)(123456789012ull & 0xffffffffu);
  s.count_hi_and_cancelled = (int)((123456789012ull >> 32) << 1); /* bit 0: cancelled */
  CHECK(!col_mpi_status_cancelled(abi, &s));
  MPI_Status cancelled = s;
  cancelled.count_hi_and_cancelled |= 1;
#endif
  CHECK(col_mpi_status_cancelled(abi, &cancelled));
  CHECK(col_mpi_status_bytes(abi, &cancelled) == 123456789012ll); /* the flag is not part of the count */
  s.MPI_SOURCE = 7;
  CHECK(col_mpi_status_bytes(abi, &s) == 123456789012ll);
  CHECK(col_mpi_status_source(abi, &s) == 7);
  CHECK(sizeof(MPI_Status) == abi->status_bytes);
  CHECK(offsetof(MPI_Status, MPI_SOURCE) == abi->source_at);
  CHECK(sizeof(MPI_Request) == abi->handle_bytes && sizeof(MPI_Comm) <= sizeof(uintptr_t));
  CHECK((uintptr_t)MPI_STATUS_IGNORE == abi->status_ignore);
  CHECK((uintptr_t)MPI_STATUSES_IGNORE == abi->status_ignore);
  CHECK(MPI_ANY_SOURCE == abi->any_source);
  CHECK(MPI_PROC_NULL == abi->proc_null);
  /* Requests in an array, as Waitall gets them. */
  MPI_Request requests[3];
  for (int i = 0; i < 3; i++)
    memset(&requests[i], 0x10 + i, sizeof requests[i]);
  uintptr_t third = 0;
  memset(&third, 0x12, sizeof requests[2]);
  CHECK(col_mpi_handle_at(abi, requests, 2) == third);
  return TEST_EXIT();
}
