/* The MPI calls of an experiment as the reader gives them back (er_mpi.h
 * for the packet). */
#ifndef ER_MPI_CALLS_H
#define ER_MPI_CALLS_H

#include <stdint.h>

struct er_mpi_call {
  uint64_t thrid;
  int64_t start, end; /* absolute; 0 <= start <= end */
  uint64_t frinfo;
  int32_t iotype; /* enum er_mpi_iotype: a channel's naming is not a call */
  int32_t fd;     /* the channel, or -1 */
  int32_t func, peer, tag, comm;
  uint32_t scount, rcount;
  int64_t sbytes, rbytes;
  int32_t part; /* 0: the call itself; n: its n-th more message (er_mpi.h) */
  char *channel; /* a channel's name (ER_MPI_AS_CHANNEL); NULL otherwise */
};

/* The reader's collector for the iotrace file's MPI packets (ARG: the
 * struct er_experiment being read); others are left alone. */
void er_collect_mpi(const unsigned char *packet, uint16_t type, uint16_t size, void *arg);
/* Frees what er_collect_mpi gathered in EXP (a struct er_experiment *). */
void er_free_mpi_calls(void *exp);

#endif
