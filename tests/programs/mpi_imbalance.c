/* An MPI job with a known split of each rank's CPU time inside and outside
 * MPI calls: per round, rank R computes (R + 1) x WORK_MS outside MPI, then
 * every rank meets in MPI_Barrier, so the others wait there (MPI
 * implementations spin while they wait: CPU time in MPI).  Each rank
 * measures its own thread CPU time inside its MPI calls and outside them
 * and prints "cpu rank=R in_mpi=S outside=S".
 *
 *   mpi_imbalance [ROUNDS [WORK_MS]] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static volatile double sink;

static void compute(double seconds)
{
  double until = thread_cpu() + seconds;
  while (thread_cpu() < until)
    for (int i = 0; i < 1000; i++)
      sink += i * 0.5;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, rounds = argc > 1 ? atoi(argv[1]) : 50, work_ms = argc > 2 ? atoi(argv[2]) : 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double in_mpi = 0, outside = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = thread_cpu();
    compute((rank + 1) * work_ms / 1000.0);
    double t1 = thread_cpu();
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = thread_cpu();
    outside += t1 - t0;
    in_mpi += t2 - t1;
  }
  printf("cpu rank=%d in_mpi=%.4f outside=%.4f\n", rank, in_mpi, outside);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
