/* er-dump's MPI section: the seeds' MPI metrics (MPI Time, Sends, Bytes
 * Sent, Receives, Bytes Received, Other MPI Calls) for the whole rank,
 * then per function and per peer.  A call is its first packet (part 0);
 * its further packets are more messages it completed; a channel's naming
 * is no call. */
#include <stdio.h>

#include "er/er_mpi.h"
#include "er/er_mpi_calls.h"
#include "er_dump_mpi.h"

struct mpi_total {
  unsigned long long calls, sends, receives, sbytes, rbytes;
  double seconds;
};

static void add(struct mpi_total *t, const struct er_mpi_call *c)
{
  if (c->part == 0) {
    t->calls++;
    t->seconds += (c->end - c->start) / 1e9;
  }
  t->sends += c->scount;
  t->receives += c->rcount;
  t->sbytes += (unsigned long long)c->sbytes;
  t->rbytes += (unsigned long long)c->rbytes;
}

#define MAX_PEERS 1024

void er_dump_mpi(const struct er_experiment *exp)
{
  static struct mpi_total functions[ER_MPI_N_FUNCTIONS], peers[MAX_PEERS];
  struct mpi_total all = {0};
  unsigned long long other = 0, channels = 0, elsewhere = 0;
  for (size_t i = 0; i < exp->n_mpi_calls; i++) {
    const struct er_mpi_call *c = &exp->mpi_calls[i];
    if (c->iotype == ER_MPI_AS_CHANNEL) {
      channels++;
      continue;
    }
    add(&all, c);
    if (c->func >= 0 && c->func < ER_MPI_N_FUNCTIONS)
      add(&functions[c->func], c);
    if (c->part == 0 && c->iotype == ER_MPI_AS_OTHER)
      other++;
    if (c->peer >= 0 && c->peer < MAX_PEERS && c->comm == 0)
      add(&peers[c->peer], c);
    else if (c->scount + c->rcount > 0)
      elsewhere++; /* another communicator's (its peers' numbers are its own) */
  }
  printf("mpi_calls: %llu\nmpi_seconds: %.6f\nmpi_sends: %llu\nmpi_bytes_sent: %llu\nmpi_receives: %llu\n"
         "mpi_bytes_received: %llu\nmpi_other_calls: %llu\nmpi_channels: %llu\nmpi_messages_elsewhere: %llu\n",
         all.calls, all.seconds, all.sends, all.sbytes, all.receives, all.rbytes, other, channels, elsewhere);
  for (int f = 0; f < ER_MPI_N_FUNCTIONS; f++)
    if (functions[f].calls + functions[f].sends + functions[f].receives > 0)
      printf("mpi_function %s: calls %llu seconds %.6f sends %llu sbytes %llu receives %llu rbytes %llu\n",
             er_mpi_function_name(f), functions[f].calls, functions[f].seconds, functions[f].sends,
             functions[f].sbytes, functions[f].receives, functions[f].rbytes);
  for (int p = 0; p < MAX_PEERS; p++)
    if (peers[p].sends + peers[p].receives > 0)
      printf("mpi_peer %d: sends %llu sbytes %llu receives %llu rbytes %llu\n", p, peers[p].sends, peers[p].sbytes,
             peers[p].receives, peers[p].rbytes);
}
