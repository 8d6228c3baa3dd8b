/* OpenMP waits with known lengths, measured by the program itself with
 * each thread's CPU clock (run with OMP_NUM_THREADS=2 and
 * OMP_WAIT_POLICY=active: every wait spins, so it is CPU time a clock
 * profile samples).
 *   - critical: both threads take a critical section ROUNDS times and hold
 *     it for one unit: each waits while the other holds it;
 *   - lock: the same with an omp_lock_t;
 *   - tasks: thread 0 makes two tasks (3 units and 1 unit) and waits for
 *     them at a taskwait, running what it takes of them there; thread 1
 *     runs the others at the region's end.  Each task's CPU counts for the
 *     thread that ran it; a wait's time is its CPU less the tasks run
 *     inside it;
 *   - nested: with two active levels, each of the two threads of an outer
 *     region starts an inner region of two threads that each work one
 *     unit in nested_work.
 * Prints the seconds of CPU time:
 *   truth critical_wait=C lock_wait=L task_work=T taskwait=W nested_work=N
 *
 *     omp_waits [ROUNDS] [UNIT_SECONDS] */
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
 * that a profile limited to user mode (an ordinary user's) sees the time. */
static void burn(double seconds)
{
  double end = thread_cpu() + seconds, x = 0;
  while (thread_cpu() < end)
    for (int i = 0; i < 50000; i++)
      x += i * 0.5;
  sink = x;
}

/* One function per phase, so that a profile tells them apart (noipa: not
 * folded into one, their code being the same). */
__attribute__((noipa)) static void held_work(double seconds) { burn(seconds); }
__attribute__((noipa)) static void task_work(double seconds) { burn(seconds); }
__attribute__((noipa)) static void nested_work(double seconds) { burn(seconds); }

static __thread double tasks_here; /* CPU of the tasks this thread ran */

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  double unit = argc > 2 ? atof(argv[2]) : 0.05;
  double critical_wait = 0, lock_wait = 0, tasks = 0, taskwait = 0, nested = 0;

#pragma omp parallel reduction(+ : critical_wait)
  for (int r = 0; r < rounds; r++) {
    double before = thread_cpu();
#pragma omp critical
    {
      critical_wait += thread_cpu() - before;
      held_work(unit);
    }
  }

  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel reduction(+ : lock_wait)
  for (int r = 0; r < rounds; r++) {
    double before = thread_cpu();
    omp_set_lock(&lock);
    lock_wait += thread_cpu() - before;
    held_work(unit);
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);

#pragma omp parallel reduction(+ : tasks, taskwait)
  {
    tasks_here = 0;
    if (omp_get_thread_num() == 0) {
      for (int t = 0; t < rounds; t++) {
#pragma omp task
        {
          double t0 = thread_cpu();
          task_work(3 * unit);
          tasks_here += thread_cpu() - t0;
        }
#pragma omp task
        {
          double t0 = thread_cpu();
          task_work(unit);
          tasks_here += thread_cpu() - t0;
        }
        double before = thread_cpu(), ran_before = tasks_here;
#pragma omp taskwait
        taskwait += (thread_cpu() - before) - (tasks_here - ran_before);
      }
    }
#pragma omp barrier
    tasks += tasks_here; /* thread 1 ran its tasks at that barrier */
  }

  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : nested)
  {
#pragma omp parallel num_threads(2) reduction(+ : nested)
    {
      double t0 = thread_cpu();
      nested_work(unit * rounds);
      nested += thread_cpu() - t0;
    }
  }

  printf("truth critical_wait=%.4f lock_wait=%.4f task_work=%.4f taskwait=%.4f nested_work=%.4f\n", critical_wait,
         lock_wait, tasks, taskwait, nested);
  return 0;
}
