/* What MPI tracing remembers between calls, in fixed tables filled without
 * locks or allocation (any thread may call MPI): the communicators seen
 * (numbered for the packets), the channels (a communicator and a peer:
 * the "files" gprofng shows bytes per), and the receives posted and not
 * yet completed (their bytes are known when a Wait or Test completes
 * them). */
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

#endif
