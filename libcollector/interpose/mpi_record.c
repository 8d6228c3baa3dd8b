/* MPI tracing's packets (mpi_record.h): a call's span and messages as
 * trace events, a channel named the first time it is used. */
#define _GNU_SOURCE
#include "mpi_record.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "er/er_data_kinds.h"
#include "er/er_mpi.h"

__thread int col_mpi_depth __attribute__((tls_model("initial-exec")));

/* The ABI, when this call is traced (else NULL). */
const struct col_mpi_abi *col_mpi_traced(void)
{
  struct col_trace_ring *t = col_trace;
  if (!col_trace_kind_on(t, ER_KIND_MPI) || col_mpi_depth != 0 || col_trace_here() == NULL)
    return NULL;
  const struct col_mpi_abi *abi = col_mpi_abi();
  return abi->name != NULL ? abi : NULL;
}

static void record_packet(const struct mpi_span *s, const struct mpi_message *m, int part, int fd,
                          const char *name)
{
  union {
    struct er_mpi_packet p;
    unsigned char bytes[ER_PACKET_HEADER_SIZE + 256];
  } u;
  memset(&u.p, 0, sizeof u.p);
  int64_t start = part == 0 ? s->start : s->end;
  u.p.iotype = m->iotype;
  u.p.iofd = fd;
  u.p.ionbyte = m->iotype == ER_MPI_AS_SEND ? m->sbytes : m->iotype == ER_MPI_AS_RECEIVE ? m->rbytes : 0;
  u.p.iorqst = start;
  u.p.iofd_original = -1;
  u.p.iofstype = ER_IO_UNKNOWN_FSTYPE;
  u.p.mpifunc = s->func;
  u.p.mpipeer = m->peer;
  u.p.mpitag = m->tag;
  u.p.mpicomm = m->comm_id;
  u.p.mpiscount = m->iotype == ER_MPI_AS_SEND;
  u.p.mpircount = m->iotype == ER_MPI_AS_RECEIVE;
  u.p.mpisbytes = m->iotype == ER_MPI_AS_SEND ? m->sbytes : 0;
  u.p.mpirbytes = m->iotype == ER_MPI_AS_RECEIVE ? m->rbytes : 0;
  u.p.mpipart = part;
  size_t at = offsetof(struct er_mpi_packet, iofname), end = sizeof u.bytes - 1;
  for (const char *c = name; c != NULL && *c != '\0' && at < end; c++)
    u.bytes[at++] = (unsigned char)*c;
  u.bytes[at++] = '\0';
  struct col_trace_fields f = COL_TRACE_PACKET(ER_KIND_MPI, start, s->end, &u, at);
  col_trace_record(&f, s->ip, s->sp, s->bp);
}

/* A message's channel, named by a packet of its own the first time. */
static int channel_of(const struct mpi_span *s, const struct mpi_message *m)
{
  if (m->peer < 0 || (m->iotype != ER_MPI_AS_SEND && m->iotype != ER_MPI_AS_RECEIVE))
    return -1;
  int first;
  int n = col_mpi_channel(m->comm_id, m->peer, &first);
  if (n < 0)
    return -1;
  int fd = ER_MPI_CHANNEL_FD_BASE + n;
  if (first) {
    char name[96];
    if (m->comm_id == 0)
      snprintf(name, sizeof name, "MPI rank %d (MPI_COMM_WORLD)", m->peer);
    else if (m->comm_id == 1)
      snprintf(name, sizeof name, "MPI rank %d (MPI_COMM_SELF)", m->peer);
    else
      snprintf(name, sizeof name, "MPI rank %d (communicator %d)", m->peer, m->comm_id);
    struct mpi_span naming = *s;
    naming.end = naming.start; /* before the call's own packet */
    struct mpi_message channel = {ER_MPI_AS_CHANNEL, m->peer, -1, m->comm_id, 0, 0};
    record_packet(&naming, &channel, 0, fd, name);
  }
  return fd;
}

void col_mpi_record_message(const struct mpi_span *s, const struct mpi_message *m, int part)
{
  record_packet(s, m, part, channel_of(s, m), NULL);
}

struct mpi_message col_mpi_sent(const struct col_mpi_abi *abi, int rc, int dest, int tag, int comm_id,
                                int64_t bytes)
{
  if (rc != 0 || dest == abi->proc_null)
    return (struct mpi_message){ER_MPI_AS_OTHER, -1, tag, comm_id, 0, 0};
  return (struct mpi_message){ER_MPI_AS_SEND, dest, tag, comm_id, bytes, 0};
}

void col_mpi_record_if_no_message(const struct mpi_span *s, int messages)
{
  if (messages == 0) {
    struct mpi_message m = {ER_MPI_AS_OTHER, -1, -1, -1, 0, 0};
    col_mpi_record_message(s, &m, 0);
  }
}

int64_t col_mpi_type_bytes(const struct col_mpi_abi *abi, col_mpi_handle datatype, int count)
{
  typedef int (*type_size_fn)(col_mpi_handle, int *);
  type_size_fn type_size = COL_REAL_OTHER(type_size_fn, "PMPI_Type_size");
  int size = 0;
  if (count <= 0 || type_size == NULL || type_size(datatype, &size) != 0 || size < 0)
    return 0;
  return (int64_t)count * size;
}
