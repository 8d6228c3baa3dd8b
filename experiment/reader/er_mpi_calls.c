/* Reading MPI call packets (er_mpi.h) back: each call as the wrapper said
 * it, with the same checks as an I/O packet (a start after the end, a
 * negative count, an unterminated name: damaged, skipped and counted). */
#define _GNU_SOURCE
#include "er/er_mpi_calls.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "er/er_mpi.h"
#include "er/er_reader.h"

void er_collect_mpi(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_MPI)
    return;
  struct er_mpi_packet pk;
  size_t name_at = offsetof(struct er_mpi_packet, iofname);
  if (size < sizeof pk || size % 8 != 0 || memchr(p + name_at, '\0', size - name_at) == NULL) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  if (pk.iorqst > pk.tstamp || pk.iorqst < 0 || pk.ionbyte < 0 || pk.mpisbytes < 0 || pk.mpirbytes < 0 ||
      (pk.iotype != ER_MPI_AS_RECEIVE && pk.iotype != ER_MPI_AS_SEND && pk.iotype != ER_MPI_AS_CHANNEL &&
       pk.iotype != ER_MPI_AS_OTHER)) {
    exp->damaged_packets++;
    return;
  }
  const char *name = (const char *)p + name_at;
  struct er_mpi_call c = {pk.thrid,   pk.iorqst,   pk.tstamp,    pk.frinfo,    pk.iotype,    pk.iofd,
                          pk.mpifunc, pk.mpipeer,  pk.mpitag,    pk.mpicomm,   pk.mpiscount, pk.mpircount,
                          pk.mpisbytes, pk.mpirbytes, pk.mpipart,   name[0] != '\0' ? strdup(name) : NULL};
  struct er_mpi_call *grown = realloc(exp->mpi_calls, (exp->n_mpi_calls + 1) * sizeof *grown);
  if (grown == NULL) {
    free(c.channel);
    return;
  }
  exp->mpi_calls = grown;
  exp->mpi_calls[exp->n_mpi_calls++] = c;
}

void er_free_mpi_calls(struct er_experiment *exp)
{
  for (size_t i = 0; i < exp->n_mpi_calls; i++)
    free(exp->mpi_calls[i].channel);
  free(exp->mpi_calls);
  exp->mpi_calls = NULL;
  exp->n_mpi_calls = 0;
}

static void add(struct er_mpi_total *t, const struct er_mpi_call *c)
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

void er_mpi_summarize(const void *arg, struct er_mpi_summary *s)
{
  const struct er_experiment *exp = arg;
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < exp->n_mpi_calls; i++) {
    const struct er_mpi_call *c = &exp->mpi_calls[i];
    if (c->iotype == ER_MPI_AS_CHANNEL) {
      s->channels++;
      continue;
    }
    add(&s->all, c);
    if (c->func >= 0 && c->func < ER_MPI_N_FUNCTIONS)
      add(&s->functions[c->func], c);
    if (c->part == 0 && c->iotype == ER_MPI_AS_OTHER)
      s->other_calls++;
    if (c->peer >= 0 && c->peer < ER_MPI_MAX_PEERS && c->comm == 0)
      add(&s->peers[c->peer], c);
    else if (c->scount + c->rcount > 0)
      s->elsewhere++;
  }
}
