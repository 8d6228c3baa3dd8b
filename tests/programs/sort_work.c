/* Sorting with the C library's qsort for about SECONDS of CPU: most of the
 * time is inside libc's internal (static) merge sort, msort_with_tmp,
 * which Debian's stripped libc names only through its separate debug
 * info (libc6-dbg).
 *
 *   sort_work [SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 200000

static int by_value(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static double cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  int *values = malloc(N * sizeof *values);
  if (values == NULL)
    return 1;
  unsigned seed = 1;
  long sorts = 0;
  while (cpu_seconds() < seconds) {
    for (int i = 0; i < N; i++)
      values[i] = (int)(rand_r(&seed) % 1000000);
    qsort(values, N, sizeof *values, by_value);
    sorts++;
  }
  printf("sorts=%ld first=%d\n", sorts, values[0]);
  free(values);
  return 0;
}
