/* mpi_interpose.c: the MPI functions MPI tracing wraps (interposed_table.h
 * for what the table gives).  Handles are spelled col_mpi_handle (a word:
 * Open MPI's handles are pointers, MPICH's ints, passed the same way on
 * x86-64) and statuses col_mpi_status, so that one runtime serves both
 * ABIs without either's mpi.h (mpi_abi.c tells them apart). */
#ifndef GDBCOL_INTERPOSED_MPI_TABLE_H
#define GDBCOL_INTERPOSED_MPI_TABLE_H

#define COL_MPI_MESSAGE_FUNCTIONS(X)                                                                                   \
  X(MPI_Init, NULL, int, (int *, char ***))                                                                    \
  X(MPI_Init_thread, NULL, int, (int *, char ***, int, int *))                                                 \
  X(MPI_Finalize, NULL, int, (void))                                                                           \
  X(MPI_Abort, NULL, int, (col_mpi_handle, int))                                                               \
  X(MPI_Pcontrol, NULL, int, (const int, ...))                                                                 \
  X(MPI_Send, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle))                        \
  X(MPI_Ssend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle))                       \
  X(MPI_Bsend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle))                       \
  X(MPI_Rsend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle))                       \
  X(MPI_Isend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))               \
  X(MPI_Issend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))              \
  X(MPI_Ibsend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))              \
  X(MPI_Irsend, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))              \
  X(MPI_Recv, NULL, int, (void *, int, col_mpi_handle, int, int, col_mpi_handle, col_mpi_status *))            \
  X(MPI_Irecv, NULL, int, (void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))                     \
  X(MPI_Sendrecv, NULL, int,                                                                                   \
    (const void *, int, col_mpi_handle, int, int, void *, int, col_mpi_handle, int, int, col_mpi_handle,       \
     col_mpi_status *))                                                                                        \
  X(MPI_Sendrecv_replace, NULL, int,                                                                           \
    (void *, int, col_mpi_handle, int, int, int, int, col_mpi_handle, col_mpi_status *))                       \
  X(MPI_Probe, NULL, int, (int, int, col_mpi_handle, col_mpi_status *))                                        \
  X(MPI_Iprobe, NULL, int, (int, int, col_mpi_handle, int *, col_mpi_status *))                                \
  X(MPI_Wait, NULL, int, (void *, col_mpi_status *))                                                           \
  X(MPI_Waitall, NULL, int, (int, void *, col_mpi_status *))                                                   \
  X(MPI_Waitany, NULL, int, (int, void *, int *, col_mpi_status *))                                            \
  X(MPI_Waitsome, NULL, int, (int, void *, int *, int *, col_mpi_status *))                                    \
  X(MPI_Test, NULL, int, (void *, int *, col_mpi_status *))                                                    \
  X(MPI_Testall, NULL, int, (int, void *, int *, col_mpi_status *))                                            \
  X(MPI_Testany, NULL, int, (int, void *, int *, int *, col_mpi_status *))                                     \
  X(MPI_Testsome, NULL, int, (int, void *, int *, int *, col_mpi_status *))                                    \
  X(MPI_Request_free, NULL, int, (void *))                                                                     \
  X(MPI_Cancel, NULL, int, (void *))                                                                           \
  X(MPI_Barrier, NULL, int, (col_mpi_handle))                                                                  \
  X(MPI_Bcast, NULL, int, (void *, int, col_mpi_handle, int, col_mpi_handle))                                  \
  X(MPI_Reduce, NULL, int, (const void *, void *, int, col_mpi_handle, col_mpi_handle, int, col_mpi_handle))   \
  X(MPI_Allreduce, NULL, int, (const void *, void *, int, col_mpi_handle, col_mpi_handle, col_mpi_handle))     \
  X(MPI_Gather, NULL, int,                                                                                     \
    (const void *, int, col_mpi_handle, void *, int, col_mpi_handle, int, col_mpi_handle))                     \
  X(MPI_Gatherv, NULL, int,                                                                                    \
    (const void *, int, col_mpi_handle, void *, const int *, const int *, col_mpi_handle, int, col_mpi_handle)) \
  X(MPI_Scatter, NULL, int,                                                                                    \
    (const void *, int, col_mpi_handle, void *, int, col_mpi_handle, int, col_mpi_handle))                     \
  X(MPI_Scatterv, NULL, int,                                                                                   \
    (const void *, const int *, const int *, col_mpi_handle, void *, int, col_mpi_handle, int, col_mpi_handle)) \
  X(MPI_Allgather, NULL, int, (const void *, int, col_mpi_handle, void *, int, col_mpi_handle, col_mpi_handle)) \
  X(MPI_Allgatherv, NULL, int,                                                                                 \
    (const void *, int, col_mpi_handle, void *, const int *, const int *, col_mpi_handle, col_mpi_handle))      \
  X(MPI_Alltoall, NULL, int, (const void *, int, col_mpi_handle, void *, int, col_mpi_handle, col_mpi_handle))  \
  X(MPI_Alltoallv, NULL, int,                                                                                  \
    (const void *, const int *, const int *, col_mpi_handle, void *, const int *, const int *, col_mpi_handle,  \
     col_mpi_handle))                                                                                          \
  X(MPI_Reduce_scatter, NULL, int, (const void *, void *, const int *, col_mpi_handle, col_mpi_handle,         \
                                    col_mpi_handle))                                                           \
  X(MPI_Scan, NULL, int, (const void *, void *, int, col_mpi_handle, col_mpi_handle, col_mpi_handle))          \
  X(MPI_Comm_split, NULL, int, (col_mpi_handle, int, int, void *))                                             \
  X(MPI_Comm_dup, NULL, int, (col_mpi_handle, void *))                                                         \
  X(MPI_Comm_free, NULL, int, (void *))

/* mpi_calls_interpose.c: persistent requests. */
#define COL_MPI_PERSISTENT_FUNCTIONS(X) \
  X(MPI_Send_init, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))           \
  X(MPI_Bsend_init, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))          \
  X(MPI_Rsend_init, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))          \
  X(MPI_Ssend_init, NULL, int, (const void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))          \
  X(MPI_Recv_init, NULL, int, (void *, int, col_mpi_handle, int, int, col_mpi_handle, void *))                 \
  X(MPI_Start, NULL, int, (void *))                                                                            \
  X(MPI_Startall, NULL, int, (int, void *))

#include "interposed_mpi_calls_table.h"

#define COL_MPI_FUNCTIONS(X)   \
  COL_MPI_MESSAGE_FUNCTIONS(X) \
  COL_MPI_PERSISTENT_FUNCTIONS(X) \
  COL_MPI_CALL_FUNCTIONS(X)

#endif
