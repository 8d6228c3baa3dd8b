/* er-dump's MPI section: the seeds' MPI metrics for the whole rank, then
 * per function and per peer (er_mpi_summarize). */
#include <stdio.h>
#include <stdlib.h>

#include "er/er_mpi.h"
#include "er/er_mpi_calls.h"
#include "er_dump_mpi.h"

void er_dump_mpi(const struct er_experiment *exp)
{
  struct er_mpi_summary *s = malloc(sizeof *s);
  if (s == NULL)
    return;
  er_mpi_summarize(exp, s);
  const struct er_mpi_total *all = &s->all;
  printf("mpi_calls: %llu\nmpi_seconds: %.6f\nmpi_sends: %llu\nmpi_bytes_sent: %llu\nmpi_receives: %llu\n"
         "mpi_bytes_received: %llu\nmpi_other_calls: %llu\nmpi_channels: %llu\nmpi_messages_elsewhere: %llu\n",
         all->calls, all->seconds, all->sends, all->sbytes, all->receives, all->rbytes, s->other_calls, s->channels,
         s->elsewhere);
  for (int f = 0; f < ER_MPI_N_FUNCTIONS; f++) {
    const struct er_mpi_total *t = &s->functions[f];
    if (t->calls + t->sends + t->receives > 0)
      printf("mpi_function %s: calls %llu seconds %.6f sends %llu sbytes %llu receives %llu rbytes %llu\n",
             er_mpi_function_name(f), t->calls, t->seconds, t->sends, t->sbytes, t->receives, t->rbytes);
  }
  for (int p = 0; p < ER_MPI_MAX_PEERS; p++) {
    const struct er_mpi_total *t = &s->peers[p];
    if (t->sends + t->receives > 0)
      printf("mpi_peer %d: sends %llu sbytes %llu receives %llu rbytes %llu\n", p, t->sends, t->sbytes, t->receives,
             t->rbytes);
  }
  free(s);
}
