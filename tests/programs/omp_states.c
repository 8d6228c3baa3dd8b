/* Known OpenMP states, measured by the program itself with each thread's
 * CPU clock (run with OMP_NUM_THREADS=2 and OMP_WAIT_POLICY=active, so
 * that waiting threads spin and every wait is CPU time a clock profile
 * samples).  Each of ROUNDS rounds: a region where thread 1 works 3 units
 * and thread 0 one, then both meet at an explicit barrier (thread 0 waits
 * there), then thread 1 works 2 units and thread 0 one (thread 0, the
 * master, waits at the region's end); then the master works one unit
 * serially while the worker waits for the next region.  A last short
 * region closes the worker's wait.  Prints the seconds of CPU time:
 *   truth work=W explicit_barrier=E implicit_barrier=I idle=D serial=S
 * where I is the master's wait at each region's end and D the worker's
 * time between regions (it comes to the end barrier last: the region ends
 * as it arrives, and it idles while the master runs serial code).
 *
 *     omp_states [ROUNDS] [UNIT_SECONDS] [ready]   (ready: says so first) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

/* Burns SECONDS of this thread's CPU, in user mode nearly all: the thread
 * CPU clock is a system call, read every 50 000 steps (about 50 us), so
 * that a profile limited to user mode (an ordinary user's: the kernel's
 * part of a thread's time goes to its last sample at its end) sees the
 * time where it was spent. */
__attribute__((noinline)) static void work_for(double seconds)
{
  double end = thread_cpu() + seconds, x = 0;
  while (thread_cpu() < end)
    for (int i = 0; i < 50000; i++)
      x += i * 0.5;
  sink = x;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  double unit = argc > 2 ? atof(argv[2]) : 0.1;
  if (argc > 3) { /* "ready": a process to attach to */
    printf("ready\n");
    fflush(stdout);
  }
  double work = 0, explicit_barrier = 0, implicit_barrier = 0, idle = 0, serial = 0;
  double worker_left = -1; /* the worker's CPU clock when it left its last region's work */
  for (int r = 0; r <= rounds; r++) {
    double master_done = 0;
#pragma omp parallel reduction(+ : work, explicit_barrier, idle)
    {
      int me = omp_get_thread_num();
      double t = thread_cpu();
      if (me == 1 && worker_left >= 0)
        idle += t - worker_left; /* between regions */
      if (r < rounds) {
        work_for(me == 1 ? 3 * unit : unit);
        double before = thread_cpu();
        work += before - t;
#pragma omp barrier
        double after = thread_cpu();
        explicit_barrier += after - before;
        work_for(me == 1 ? 2 * unit : unit);
        double done = thread_cpu();
        work += done - after;
        if (me == 0)
          master_done = done;
        else
          worker_left = done;
      }
    }
    if (r < rounds) {
      double t = thread_cpu(); /* the master, after the region's end */
      implicit_barrier += t - master_done;
      work_for(unit);
      serial += thread_cpu() - t;
    }
  }
  printf("truth work=%.4f explicit_barrier=%.4f implicit_barrier=%.4f idle=%.4f serial=%.4f\n", work,
         explicit_barrier, implicit_barrier, idle, serial);
  return 0;
}
