/* What MPI tracing remembers between calls, in fixed tables filled without
 * locks or allocation (any thread may call MPI): the communicators seen
 * (numbered for the packets), the channels (a communicator and a peer:
 * the "files" gprofng shows bytes per), the receives posted and not
 * yet completed (their bytes are known when a Wait or Test completes
 * them), and the persistent requests. */
#ifndef GDBCOL_MPI_REQUESTS_H
#define GDBCOL_MPI_REQUESTS_H

#include <stdint.h>

#include "mpi_abi.h"

/* COMM's number: 0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, 2.. others in the
 * order first seen (-1: the table is full). */
int col_mpi_comm_id(const struct col_mpi_abi *abi, uintptr_t comm);

/* The channel of PEER in communicator COMM_ID: its number from 0, and
 * *FIRST set when this call made it (the caller then names it); -1 when
 * the table is full. */
int col_mpi_channel(int comm_id, int peer, int *first);

/* A posted receive. */
struct col_mpi_receive {
  int source, tag, comm_id;
  int64_t capacity; /* bytes its buffer takes */
};
/* Remembers the receive REQUEST (a handle) until it completes; 0 when the
 * table is full (the caller counts it now). */
int col_mpi_receive_posted(uintptr_t request, const struct col_mpi_receive *r);
/* Takes the receive REQUEST out: 1 and *R when it was one. */
int col_mpi_receive_done(uintptr_t request, struct col_mpi_receive *r);

/* A persistent request (MPI_Send_init and its kin, MPI_Recv_init): what
 * each MPI_Start of it does, until MPI_Request_free. */
struct col_mpi_persistent {
  int sends; /* 1: a send; 0: a receive */
  int peer, tag, comm_id;
  int64_t bytes; /* a send's; a receive's buffer */
};
/* 0 when the table is full (its starts then count no message). */
int col_mpi_persistent_made(uintptr_t request, const struct col_mpi_persistent *p);
int col_mpi_persistent_of(uintptr_t request, struct col_mpi_persistent *p);
void col_mpi_persistent_freed(uintptr_t request);

#endif
