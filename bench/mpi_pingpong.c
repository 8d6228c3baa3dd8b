/* The program of bench/mpi_cost.py: ranks 0 and 1 bounce an 8-byte
 * message ROUND_TRIPS times (after a warm-up); rank 0 prints the half
 * round trip (the one-way latency) and the MPI calls per second each rank
 * made (two per round trip).  With "self", one rank sends to itself
 * (MPI_Sendrecv, CALLS times): the time and the thread's own CPU per
 * call, with no other rank to wait for.
 *
 *   mpi_pingpong [ROUND_TRIPS] | mpi_pingpong CALLS self */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void bounce(int rank, int trips)
{
  char buf[8] = {0};
  for (int i = 0; i < trips; i++) {
    if (rank == 0) {
      MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
}

static double thread_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void to_self(int calls)
{
  char out[8] = {0}, in[8];
  for (int i = 0; i < calls; i++)
    MPI_Sendrecv(out, 8, MPI_CHAR, 0, 0, in, 8, MPI_CHAR, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, trips = argc > 1 ? atoi(argv[1]) : 200000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 2 && strcmp(argv[2], "self") == 0) {
    to_self(trips / 10);
    double start = MPI_Wtime(), cpu = thread_cpu();
    to_self(trips);
    double seconds = MPI_Wtime() - start;
    cpu = thread_cpu() - cpu;
    printf("self_ns_per_call=%.1f thread_cpu_ns_per_call=%.1f\n", seconds / trips * 1e9, cpu / trips * 1e9);
    MPI_Finalize();
    return 0;
  }
  bounce(rank, trips / 10);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  bounce(rank, trips);
  double seconds = MPI_Wtime() - start;
  if (rank == 0)
    printf("latency_us=%.3f calls_per_s=%.0f\n", seconds / trips / 2 * 1e6, 2.0 * trips / seconds);
  MPI_Finalize();
  return 0;
}
