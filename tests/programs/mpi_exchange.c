/* An MPI job whose messages are known: each rank prints, per peer, the
 * point-to-point messages it sent and received and their bytes (what MPI
 * tracing must find), counting only what it did outside its
 * MPI_Pcontrol(0) section.
 *
 *   mpi_exchange [ROUNDS [SLEEP_MS]]
 *
 * SLEEP_MS (default 0): each rank sleeps that long after each round, and
 * says "ready rank=R pid=P" first (a rank to attach to while it runs).
 *
 * Per round: a ping-pong between ranks 0 and 1 (MPI_Send / MPI_Recv with
 * MPI_STATUS_IGNORE, 8 bytes out, 8 back); a ring (MPI_Irecv from the left,
 * MPI_Isend to the right, MPI_Waitall; 100 ints); the same ring through
 * persistent requests (MPI_Recv_init, MPI_Send_init, then MPI_Startall and
 * MPI_Waitall each round; 5 doubles); an exchange with the partner rank ^ 1
 * through MPI_Sendrecv (3 doubles); MPI_Barrier and MPI_Allreduce (calls,
 * not messages).  Before the rounds, a receive no one sends to is posted,
 * cancelled and waited for: no message either.  Then, paused, 5 more ring rounds
 * that must not be recorded.  Prints "truth rank=R peer=P sends=N
 * sbytes=B receives=M rbytes=C" lines and "calls rank=R barrier=N". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 64

static long sends[MAX_RANKS], sbytes[MAX_RANKS], receives[MAX_RANKS], rbytes[MAX_RANKS];

static void ring(int rank, int size, int counted)
{
  int out[100], in[100];
  memset(out, 0, sizeof out);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request requests[2];
  MPI_Irecv(in, 100, MPI_INT, left, 2, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, 100, MPI_INT, right, 2, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  if (counted) {
    sends[right]++, sbytes[right] += sizeof out;
    receives[left]++, rbytes[left] += sizeof in;
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 20, sleep_ms = argc > 2 ? atoi(argv[2]) : 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (sleep_ms > 0) {
    printf("ready rank=%d pid=%d\n", rank, (int)getpid());
    fflush(stdout);
  }
  if (size > MAX_RANKS)
    MPI_Abort(MPI_COMM_WORLD, 2);
  char ping[8] = "ping";
  int barriers = 0;
  double persistent_out[5] = {0}, persistent_in[5];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Request persistent[2];
  MPI_Recv_init(persistent_in, 5, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &persistent[0]);
  MPI_Send_init(persistent_out, 5, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &persistent[1]);
  /* A receive no one sends to, cancelled: no message. */
  int never;
  MPI_Request cancelled;
  MPI_Status cancelled_status;
  MPI_Irecv(&never, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &cancelled);
  MPI_Cancel(&cancelled);
  MPI_Wait(&cancelled, &cancelled_status);
  for (int r = 0; r < rounds; r++) {
    if (rank == 0 && size > 1) {
      MPI_Send(ping, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(ping, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      sends[1]++, sbytes[1] += 8, receives[1]++, rbytes[1] += 8;
    } else if (rank == 1) {
      MPI_Status status;
      MPI_Recv(ping, 8, MPI_CHAR, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &status);
      MPI_Send(ping, 8, MPI_CHAR, status.MPI_SOURCE, 1, MPI_COMM_WORLD);
      sends[0]++, sbytes[0] += 8, receives[0]++, rbytes[0] += 8;
    }
    ring(rank, size, 1);
    MPI_Startall(2, persistent);
    MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE);
    sends[right]++, sbytes[right] += sizeof persistent_out;
    receives[left]++, rbytes[left] += sizeof persistent_in;
    int partner = rank ^ 1;
    if (partner < size) {
      double out[3] = {1, 2, 3}, in[3];
      MPI_Sendrecv(out, 3, MPI_DOUBLE, partner, 3, in, 3, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      sends[partner]++, sbytes[partner] += sizeof out, receives[partner]++, rbytes[partner] += sizeof in;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    barriers++;
    long mine = r, total;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sleep_ms > 0) {
      struct timespec pause = {sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000};
      nanosleep(&pause, NULL);
    }
  }
  MPI_Request_free(&persistent[0]);
  MPI_Request_free(&persistent[1]);
  MPI_Pcontrol(0);
  for (int r = 0; r < 5; r++)
    ring(rank, size, 0);
  MPI_Pcontrol(1);
  for (int p = 0; p < size; p++)
    if (sends[p] || receives[p])
      printf("truth rank=%d peer=%d sends=%ld sbytes=%ld receives=%ld rbytes=%ld\n", rank, p, sends[p], sbytes[p],
             receives[p], rbytes[p]);
  printf("calls rank=%d barrier=%d\n", rank, barriers);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
