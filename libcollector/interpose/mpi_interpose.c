/* MPI tracing (`collector mpitrace`): every call of the table's MPI group
 * (interposed_mpi_table.h) becomes events on the trace ring while the kind
 * is on: the call's span and function, and the point-to-point messages it
 * started sending or completed receiving, each with its peer, tag,
 * communicator and bytes (count x the datatype's size; a receive's from
 * its status).  The packet is er_mpi.h's; how calls count is the seeds'
 * rule: collectives and the rest count as calls, not messages.
 *
 * The wrappers stand where the program's MPI_ calls bind (preloaded, or
 * after an attach through its GOT slots) and call the implementation's own
 * definition behind them; calls MPI makes inside another MPI call are not
 * traced (a thread's depth).  A receive posted with MPI_Irecv counts when
 * a Wait or Test completes it, with the bytes its status says arrived.
 * MPI_Pcontrol(0) pauses the experiment, MPI_Pcontrol(1) resumes it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "er/er_data_kinds.h"
#include "er/er_mpi.h"
#include "mpi_record.h"
#include "runtime_hooks.h"

/* ---- setup and teardown ---------------------------------------------- */

int col_wrap_MPI_Init(int *argc, char ***argv)
{
  TRACED_MPI(ER_MPI_Init, COL_REAL(MPI_Init)(argc, argv), OTHER(abi_->comm_world));
}

int col_wrap_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  TRACED_MPI(ER_MPI_Init_thread, COL_REAL(MPI_Init_thread)(argc, argv, required, provided),
             OTHER(abi_->comm_world));
}

int col_wrap_MPI_Finalize(void)
{
  TRACED_MPI(ER_MPI_Finalize, COL_REAL(MPI_Finalize)(), OTHER(abi_->comm_world));
}

int col_wrap_MPI_Abort(col_mpi_handle comm, int code)
{
  TRACED_MPI(ER_MPI_Abort, COL_REAL(MPI_Abort)(comm, code), OTHER(comm));
}

/* MPI_Pcontrol(0) pauses, any other level resumes; never a traced call. */
int col_wrap_MPI_Pcontrol(const int level, ...)
{
  if (col_trace_kind_on(col_trace, ER_KIND_MPI) && col_mpi_depth == 0) {
    if (level == 0)
      col_hooks.pause("MPI_Pcontrol(0)");
    else
      col_hooks.resume();
  }
  return COL_REAL(MPI_Pcontrol)(level);
}

/* ---- point to point -------------------------------------------------- */

#define SENT(dest, tag, comm, count, type)                                                                  \
  do {                                                                                                      \
    struct mpi_message m_ = col_mpi_sent(abi_, rc_, (dest), (tag), col_mpi_comm_id(abi_, (comm)),           \
                                         rc_ == 0 ? col_mpi_type_bytes(abi_, (type), (count)) : 0);         \
    col_mpi_record_message(&s_, &m_, 0);                                                                    \
  } while (0)

#define BLOCKING_SEND(name)                                                                                   \
  int col_wrap_##name(const void *buf, int count, col_mpi_handle type, int dest, int tag, col_mpi_handle comm) \
  {                                                                                                           \
    TRACED_MPI(ER_##name, COL_REAL(name)(buf, count, type, dest, tag, comm), SENT(dest, tag, comm, count, type)); \
  }
BLOCKING_SEND(MPI_Send)
BLOCKING_SEND(MPI_Ssend)
BLOCKING_SEND(MPI_Bsend)
BLOCKING_SEND(MPI_Rsend)

/* A nonblocking send counts when it starts (the seeds' "sends started"). */
#define NONBLOCKING_SEND(name)                                                                               \
  int col_wrap_##name(const void *buf, int count, col_mpi_handle type, int dest, int tag, col_mpi_handle comm, \
                      void *request)                                                                         \
  {                                                                                                          \
    TRACED_MPI(ER_##name, COL_REAL(name)(buf, count, type, dest, tag, comm, request),                        \
               SENT(dest, tag, comm, count, type));                                                          \
  }
NONBLOCKING_SEND(MPI_Isend)
NONBLOCKING_SEND(MPI_Issend)
NONBLOCKING_SEND(MPI_Ibsend)
NONBLOCKING_SEND(MPI_Irsend)

/* A status of our own where the program passed MPI_STATUS_IGNORE: the
 * source and the bytes come from it. */
union any_status {
  unsigned char bytes[64];
  uint64_t align;
};
#define STATUS_OR_OURS(status, ours)                                                              \
  (abi_ != NULL && (uintptr_t)(status) == abi_->status_ignore ? (col_mpi_status *)(void *)(ours).bytes \
                                                              : (status))

/* A completed receive, from its status. */
static struct mpi_message received(const struct col_mpi_abi *abi, const void *status, int tag, int comm_id)
{
  struct mpi_message m = {ER_MPI_AS_RECEIVE, col_mpi_status_source(abi, status), tag, comm_id, 0,
                          col_mpi_status_bytes(abi, status)};
  if (m.peer == abi->proc_null)
    m.iotype = ER_MPI_AS_OTHER, m.peer = -1, m.rbytes = 0;
  return m;
}

int col_wrap_MPI_Recv(void *buf, int count, col_mpi_handle type, int source, int tag, col_mpi_handle comm,
                      col_mpi_status *status)
{
  union any_status ours;
  TRACED_MPI(ER_MPI_Recv, COL_REAL(MPI_Recv)(buf, count, type, source, tag, comm, STATUS_OR_OURS(status, ours)), {
    struct mpi_message m = received(abi_, STATUS_OR_OURS(status, ours), tag, col_mpi_comm_id(abi_, comm));
    if (rc_ != 0)
      m.iotype = ER_MPI_AS_OTHER, m.peer = -1;
    col_mpi_record_message(&s_, &m, 0);
  });
}

/* Posting a receive is a call; the message counts when it completes. */
int col_wrap_MPI_Irecv(void *buf, int count, col_mpi_handle type, int source, int tag, col_mpi_handle comm,
                       void *request)
{
  TRACED_MPI(ER_MPI_Irecv, COL_REAL(MPI_Irecv)(buf, count, type, source, tag, comm, request), {
    struct col_mpi_receive r = {source, tag, col_mpi_comm_id(abi_, comm), col_mpi_type_bytes(abi_, type, count)};
    struct mpi_message m = {ER_MPI_AS_OTHER, -1, tag, r.comm_id, 0, 0};
    if (rc_ == 0 && !col_mpi_receive_posted(col_mpi_handle_at(abi_, request, 0), &r) && source >= 0) {
      /* The table is full: counted now, at the bytes its buffer takes. */
      m = (struct mpi_message){ER_MPI_AS_RECEIVE, source, tag, r.comm_id, 0, r.capacity};
    }
    col_mpi_record_message(&s_, &m, 0);
  });
}

/* A send and a receive: the call's packet is the send; the receive is the
 * call's second message. */
static void sent_and_received(const struct col_mpi_abi *abi, const struct mpi_span *s, int rc, int dest, int stag,
                              int64_t sbytes, const void *status, int rtag, int comm_id)
{
  struct mpi_message send = col_mpi_sent(abi, rc, dest, stag, comm_id, sbytes);
  col_mpi_record_message(s, &send, 0);
  struct mpi_message receive = received(abi, status, rtag, comm_id);
  if (rc == 0 && receive.iotype == ER_MPI_AS_RECEIVE)
    col_mpi_record_message(s, &receive, 1);
}

int col_wrap_MPI_Sendrecv(const void *sbuf, int scount, col_mpi_handle stype, int dest, int stag, void *rbuf,
                          int rcount, col_mpi_handle rtype, int source, int rtag, col_mpi_handle comm,
                          col_mpi_status *status)
{
  union any_status ours;
  TRACED_MPI(ER_MPI_Sendrecv,
             COL_REAL(MPI_Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                                    STATUS_OR_OURS(status, ours)),
             sent_and_received(abi_, &s_, rc_, dest, stag, col_mpi_type_bytes(abi_, stype, scount),
                               STATUS_OR_OURS(status, ours), rtag, col_mpi_comm_id(abi_, comm)));
}

int col_wrap_MPI_Sendrecv_replace(void *buf, int count, col_mpi_handle type, int dest, int stag, int source,
                                  int rtag, col_mpi_handle comm, col_mpi_status *status)
{
  union any_status ours;
  TRACED_MPI(ER_MPI_Sendrecv_replace,
             COL_REAL(MPI_Sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm,
                                            STATUS_OR_OURS(status, ours)),
             sent_and_received(abi_, &s_, rc_, dest, stag, col_mpi_type_bytes(abi_, type, count),
                               STATUS_OR_OURS(status, ours), rtag, col_mpi_comm_id(abi_, comm)));
}

int col_wrap_MPI_Probe(int source, int tag, col_mpi_handle comm, col_mpi_status *status)
{
  TRACED_MPI(ER_MPI_Probe, COL_REAL(MPI_Probe)(source, tag, comm, status), OTHER(comm));
}

int col_wrap_MPI_Iprobe(int source, int tag, col_mpi_handle comm, int *flag, col_mpi_status *status)
{
  TRACED_MPI(ER_MPI_Iprobe, COL_REAL(MPI_Iprobe)(source, tag, comm, flag, status), OTHER(comm));
}

/* ---- completions ------------------------------------------------------ */

/* Requests a completion call may complete: their handles before the call
 * (it sets them to MPI_REQUEST_NULL), the first MAX_WATCHED of them. */
#define MAX_WATCHED 256
#define MAX_OWN_STATUSES 64

struct watched {
  int n;
  uintptr_t handles[MAX_WATCHED];
};

static void watch(const struct col_mpi_abi *abi, struct watched *w, int count, const void *requests)
{
  w->n = count < 0 ? 0 : count > MAX_WATCHED ? MAX_WATCHED : count;
  for (int i = 0; i < w->n; i++)
    w->handles[i] = col_mpi_handle_at(abi, requests, i);
}

/* The handles of the COUNT REQUESTS a completion call may complete (into
 * W) when it is traced (WATCHING_, its ABI, then given to TRACED_MPI_AS:
 * one look decides both), and the messages it counted (MESSAGES). */
#define WATCHING(count, requests)                                          \
  const struct col_mpi_abi *watching_ = col_mpi_traced();                  \
  struct watched w;                                                        \
  int messages = 0;                                                        \
  w.n = 0; /* (read only when traced) */                                   \
  if (watching_ != NULL)                                                   \
  watch(watching_, &w, (count), (requests))

/* The statuses a call fills: the program's, or ours for up to
 * MAX_OWN_STATUSES requests when it passed MPI_STATUSES_IGNORE (beyond,
 * receives count at their buffer's size). */
struct statuses {
  union any_status own[MAX_OWN_STATUSES];
};
#define STATUSES_OR_OURS(statuses, count, ours)                                                              \
  (abi_ != NULL && (uintptr_t)(statuses) == abi_->status_ignore && (count) <= MAX_OWN_STATUSES              \
       ? (col_mpi_status *)(void *)(ours).own                                                                 \
       : (statuses))

/* Completion I of the call: when handle I was a receive we track, one
 * message (the call's first, else one more). */
static void completed(const struct col_mpi_abi *abi, const struct mpi_span *s, const struct watched *w, int i,
                      const void *statuses, int *messages)
{
  struct col_mpi_receive r;
  if (i < 0 || i >= w->n || !col_mpi_receive_done(w->handles[i], &r))
    return;
  struct mpi_message m = {ER_MPI_AS_RECEIVE, r.source, r.tag, r.comm_id, 0, r.capacity};
  if ((uintptr_t)statuses != abi->status_ignore) {
    const void *status = (const char *)statuses + (size_t)i * abi->status_bytes;
    if (col_mpi_status_cancelled(abi, status))
      return; /* MPI_Cancel took it back: no message */
    m = received(abi, status, r.tag, r.comm_id);
  }
  if (m.iotype == ER_MPI_AS_RECEIVE && m.peer >= 0)
    col_mpi_record_message(s, &m, (*messages)++);
}

int col_wrap_MPI_Wait(void *request, col_mpi_status *status)
{
  union any_status ours;
  WATCHING(1, request);
  TRACED_MPI_AS(watching_, ER_MPI_Wait, COL_REAL(MPI_Wait)(request, STATUS_OR_OURS(status, ours)), {
    if (rc_ == 0)
      completed(abi_, &s_, &w, 0, STATUS_OR_OURS(status, ours), &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

int col_wrap_MPI_Test(void *request, int *flag, col_mpi_status *status)
{
  union any_status ours;
  WATCHING(1, request);
  TRACED_MPI_AS(watching_, ER_MPI_Test, COL_REAL(MPI_Test)(request, flag, STATUS_OR_OURS(status, ours)), {
    if (rc_ == 0 && *flag)
      completed(abi_, &s_, &w, 0, STATUS_OR_OURS(status, ours), &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

int col_wrap_MPI_Waitall(int count, void *requests, col_mpi_status *statuses)
{
  struct statuses ours;
  WATCHING(count, requests);
  TRACED_MPI_AS(watching_, ER_MPI_Waitall, COL_REAL(MPI_Waitall)(count, requests, STATUSES_OR_OURS(statuses, count, ours)), {
    for (int i = 0; rc_ == 0 && i < count; i++)
      completed(abi_, &s_, &w, i, STATUSES_OR_OURS(statuses, count, ours), &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

int col_wrap_MPI_Testall(int count, void *requests, int *flag, col_mpi_status *statuses)
{
  struct statuses ours;
  WATCHING(count, requests);
  TRACED_MPI_AS(watching_, ER_MPI_Testall,
             COL_REAL(MPI_Testall)(count, requests, flag, STATUSES_OR_OURS(statuses, count, ours)), {
               for (int i = 0; rc_ == 0 && *flag && i < count; i++)
                 completed(abi_, &s_, &w, i, STATUSES_OR_OURS(statuses, count, ours), &messages);
               col_mpi_record_if_no_message(&s_, messages);
             });
}

int col_wrap_MPI_Waitany(int count, void *requests, int *index, col_mpi_status *status)
{
  union any_status ours;
  WATCHING(count, requests);
  TRACED_MPI_AS(watching_, ER_MPI_Waitany, COL_REAL(MPI_Waitany)(count, requests, index, STATUS_OR_OURS(status, ours)), {
    /* the one status is that of request *index */
    struct watched one = {1, {*index >= 0 && *index < w.n ? w.handles[*index] : 0}};
    if (rc_ == 0)
      completed(abi_, &s_, &one, 0, STATUS_OR_OURS(status, ours), &messages);
    col_mpi_record_if_no_message(&s_, messages);
  });
}

int col_wrap_MPI_Testany(int count, void *requests, int *index, int *flag, col_mpi_status *status)
{
  union any_status ours;
  WATCHING(count, requests);
  TRACED_MPI_AS(watching_, ER_MPI_Testany,
             COL_REAL(MPI_Testany)(count, requests, index, flag, STATUS_OR_OURS(status, ours)), {
               struct watched one = {1, {*index >= 0 && *index < w.n ? w.handles[*index] : 0}};
               if (rc_ == 0 && *flag)
                 completed(abi_, &s_, &one, 0, STATUS_OR_OURS(status, ours), &messages);
               col_mpi_record_if_no_message(&s_, messages);
             });
}

/* Waitsome and Testsome: the statuses are those of the requests named in
 * INDICES, in order. */
static void some_completed(const struct col_mpi_abi *abi, const struct mpi_span *s, const struct watched *w,
                           int outcount, const int *indices, const void *statuses, int *messages)
{
  for (int k = 0; k < outcount; k++) {
    int i = indices[k];
    struct watched one = {1, {i >= 0 && i < w->n ? w->handles[i] : 0}};
    const void *status = (uintptr_t)statuses == abi->status_ignore
                             ? statuses
                             : (const char *)statuses + (size_t)k * abi->status_bytes;
    completed(abi, s, &one, 0, status, messages);
  }
}

/* Waitsome and Testsome, alike. */
#define SOME_COMPLETED(name)                                                                                    \
  int col_wrap_##name(int count, void *requests, int *outcount, int *indices, col_mpi_status *statuses)        \
  {                                                                                                            \
    struct statuses ours;                                                                                      \
    WATCHING(count, requests);                                                                                 \
    TRACED_MPI_AS(watching_, ER_##name,                                                                        \
               COL_REAL(name)(count, requests, outcount, indices, STATUSES_OR_OURS(statuses, count, ours)), { \
                 if (rc_ == 0 && *outcount > 0)                                                                \
                   some_completed(abi_, &s_, &w, *outcount, indices, STATUSES_OR_OURS(statuses, count, ours),  \
                                  &messages);                                                                  \
                 col_mpi_record_if_no_message(&s_, messages);                                                               \
               });                                                                                             \
  }
SOME_COMPLETED(MPI_Waitsome)
SOME_COMPLETED(MPI_Testsome)

/* A request freed before it completed: it completes unseen, so no
 * message (a freed persistent request starts no more). */
int col_wrap_MPI_Request_free(void *request)
{
  const struct col_mpi_abi *abi = col_mpi_traced();
  if (abi != NULL) {
    struct col_mpi_receive r;
    uintptr_t handle = col_mpi_handle_at(abi, request, 0);
    col_mpi_receive_done(handle, &r);
    col_mpi_persistent_freed(handle);
  }
  TRACED_MPI_AS(abi, ER_MPI_Request_free, COL_REAL(MPI_Request_free)(request), OTHER_IN(-1));
}

/* A cancelled receive still completes in a Wait or Test, whose status says
 * it was cancelled (completed() then counts no message). */
int col_wrap_MPI_Cancel(void *request)
{
  TRACED_MPI(ER_MPI_Cancel, COL_REAL(MPI_Cancel)(request), OTHER_IN(-1));
}

/* ---- collectives and communicators: calls, no messages (the seeds' rule) -- */

int col_wrap_MPI_Barrier(col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Barrier, COL_REAL(MPI_Barrier)(comm), OTHER(comm));
}

int col_wrap_MPI_Bcast(void *buf, int count, col_mpi_handle type, int root, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Bcast, COL_REAL(MPI_Bcast)(buf, count, type, root, comm), OTHER(comm));
}

int col_wrap_MPI_Reduce(const void *sbuf, void *rbuf, int count, col_mpi_handle type, col_mpi_handle op, int root,
                        col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Reduce, COL_REAL(MPI_Reduce)(sbuf, rbuf, count, type, op, root, comm), OTHER(comm));
}

int col_wrap_MPI_Allreduce(const void *sbuf, void *rbuf, int count, col_mpi_handle type, col_mpi_handle op,
                           col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Allreduce, COL_REAL(MPI_Allreduce)(sbuf, rbuf, count, type, op, comm), OTHER(comm));
}

int col_wrap_MPI_Gather(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, int rcount,
                        col_mpi_handle rtype, int root, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Gather, COL_REAL(MPI_Gather)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm), OTHER(comm));
}

int col_wrap_MPI_Gatherv(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, const int *rcounts,
                         const int *displs, col_mpi_handle rtype, int root, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Gatherv, COL_REAL(MPI_Gatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
             OTHER(comm));
}

int col_wrap_MPI_Scatter(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, int rcount,
                         col_mpi_handle rtype, int root, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Scatter, COL_REAL(MPI_Scatter)(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
             OTHER(comm));
}

int col_wrap_MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, col_mpi_handle stype, void *rbuf,
                          int rcount, col_mpi_handle rtype, int root, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Scatterv, COL_REAL(MPI_Scatterv)(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
             OTHER(comm));
}

int col_wrap_MPI_Allgather(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, int rcount,
                           col_mpi_handle rtype, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Allgather, COL_REAL(MPI_Allgather)(sbuf, scount, stype, rbuf, rcount, rtype, comm),
             OTHER(comm));
}

int col_wrap_MPI_Allgatherv(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, const int *rcounts,
                            const int *displs, col_mpi_handle rtype, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Allgatherv, COL_REAL(MPI_Allgatherv)(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
             OTHER(comm));
}

int col_wrap_MPI_Alltoall(const void *sbuf, int scount, col_mpi_handle stype, void *rbuf, int rcount,
                          col_mpi_handle rtype, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Alltoall, COL_REAL(MPI_Alltoall)(sbuf, scount, stype, rbuf, rcount, rtype, comm), OTHER(comm));
}

int col_wrap_MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, col_mpi_handle stype,
                           void *rbuf, const int *rcounts, const int *rdispls, col_mpi_handle rtype,
                           col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Alltoallv,
             COL_REAL(MPI_Alltoallv)(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
             OTHER(comm));
}

int col_wrap_MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, col_mpi_handle type,
                                col_mpi_handle op, col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Reduce_scatter, COL_REAL(MPI_Reduce_scatter)(sbuf, rbuf, rcounts, type, op, comm),
             OTHER(comm));
}

int col_wrap_MPI_Scan(const void *sbuf, void *rbuf, int count, col_mpi_handle type, col_mpi_handle op,
                      col_mpi_handle comm)
{
  TRACED_MPI(ER_MPI_Scan, COL_REAL(MPI_Scan)(sbuf, rbuf, count, type, op, comm), OTHER(comm));
}

int col_wrap_MPI_Comm_split(col_mpi_handle comm, int color, int key, void *newcomm)
{
  TRACED_MPI(ER_MPI_Comm_split, COL_REAL(MPI_Comm_split)(comm, color, key, newcomm), OTHER(comm));
}

int col_wrap_MPI_Comm_dup(col_mpi_handle comm, void *newcomm)
{
  TRACED_MPI(ER_MPI_Comm_dup, COL_REAL(MPI_Comm_dup)(comm, newcomm), OTHER(comm));
}

int col_wrap_MPI_Comm_free(void *comm)
{
  TRACED_MPI(ER_MPI_Comm_free, COL_REAL(MPI_Comm_free)(comm), OTHER_IN(-1));
}

COL_PRELOAD_ALIASES(COL_MPI_MESSAGE_FUNCTIONS)
