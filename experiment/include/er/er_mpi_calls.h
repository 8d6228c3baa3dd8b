/* The MPI calls of an experiment as the reader gives them back (er_mpi.h
 * for the packet). */
#ifndef ER_MPI_CALLS_H
#define ER_MPI_CALLS_H

#include <stdint.h>

#include "er/er_mpi.h"

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
struct er_experiment;
void er_free_mpi_calls(struct er_experiment *exp);

/* The seeds' MPI metrics over some calls: MPI Time (seconds in calls),
 * calls, and the point-to-point messages sent and received with their
 * bytes.  A call is its first packet (part 0); its further packets are
 * more messages it completed; a channel's naming is no call. */
struct er_mpi_total {
  unsigned long long calls, sends, receives, sbytes, rbytes;
  double seconds;
};
#define ER_MPI_MAX_PEERS 1024
struct er_mpi_summary {
  struct er_mpi_total all;
  struct er_mpi_total functions[ER_MPI_N_FUNCTIONS];
  struct er_mpi_total peers[ER_MPI_MAX_PEERS]; /* by rank in MPI_COMM_WORLD */
  unsigned long long other_calls; /* calls that neither send nor receive (the seeds' "Other MPI Calls") */
  unsigned long long channels;    /* peers named */
  unsigned long long elsewhere;   /* messages in other communicators (their ranks are their own) */
};
/* Sums EXP's MPI calls (EXP: a struct er_experiment *) into *S. */
void er_mpi_summarize(const void *exp, struct er_mpi_summary *s);

#endif
