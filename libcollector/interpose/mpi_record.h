/* What every MPI wrapper shares (mpi_record.c): whether this call is
 * traced, its span, and its packets (er_mpi.h) with their channels. */
#ifndef GDBCOL_MPI_RECORD_H
#define GDBCOL_MPI_RECORD_H

#include <errno.h>
#include <stdint.h>

#include "core/hrtime.h"
#include "interposed.h"
#include "mpi_abi.h"
#include "mpi_requests.h"
#include "trace_record.h"

/* MPI calls this thread is inside: those MPI makes itself are not traced. */
extern __thread int col_mpi_depth __attribute__((tls_model("initial-exec")));

/* The ABI, when this call is traced (else NULL). */
const struct col_mpi_abi *col_mpi_traced(void);

/* One packet of a call: the call itself (PART 0) or one more message it
 * completed. */
struct mpi_message {
  int iotype; /* enum er_mpi_iotype */
  int peer, tag, comm_id;
  int64_t sbytes, rbytes;
};

struct mpi_span {
  uint64_t ip, sp, bp;
  int64_t start, end;
  int func;
};

/* M as packet PART of the call S (with its channel's naming first, the
 * first time it is used). */
void col_mpi_record_message(const struct mpi_span *s, const struct mpi_message *m, int part);
/* COUNT elements of DATATYPE, in bytes (0 when MPI cannot say). */
int64_t col_mpi_type_bytes(const struct col_mpi_abi *abi, col_mpi_handle datatype, int count);

/* A message the call sent to DEST: none (the call alone) when the call
 * failed or DEST is MPI_PROC_NULL. */
struct mpi_message col_mpi_sent(const struct col_mpi_abi *abi, int rc, int dest, int tag, int comm_id,
                                int64_t bytes);
/* After a call that may complete or start messages (MESSAGES of them were
 * recorded): the call alone when there were none. */
void col_mpi_record_if_no_message(const struct mpi_span *s, int messages);

/* The call's span around CALL, then the statements that follow it (which
 * record its packets from rc_, s_ and abi_); untraced calls go straight
 * through.  TRACED_MPI_AS: with ABI, the caller's col_mpi_traced(), for a
 * wrapper that looked before the call. */
#define TRACED_MPI(id, call, ...) TRACED_MPI_AS(col_mpi_traced(), id, call, __VA_ARGS__)
#define TRACED_MPI_AS(abi, id, call, ...)               \
  do {                                                  \
    const struct col_mpi_abi *abi_ = (abi);             \
    if (__builtin_expect(abi_ == NULL, 1))              \
      return call;                                      \
    struct mpi_span s_ = {.func = (id)};                \
    HERE(s_.ip, s_.sp, s_.bp);                          \
    col_mpi_depth++;                                    \
    s_.start = col_hrtime();                            \
    int rc_ = call;                                     \
    s_.end = col_hrtime();                              \
    int err_ = errno;                                   \
    __VA_ARGS__;                                        \
    col_mpi_depth--;                                    \
    errno = err_;                                       \
    return rc_;                                         \
  } while (0)

/* A call that moves no message of its own, in COMM_ID's communicator (-1:
 * none). */
#define OTHER_IN(comm_id)                                                       \
  do {                                                                          \
    struct mpi_message m_ = {ER_MPI_AS_OTHER, -1, -1, (comm_id), 0, 0};         \
    col_mpi_record_message(&s_, &m_, 0);                                        \
  } while (0)
#define OTHER(comm) OTHER_IN(col_mpi_comm_id(abi_, (comm)))

#endif
