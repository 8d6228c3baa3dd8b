/* A process whose only thread free to lend itself to GDB's calls has a
 * small stack: a 64 KiB thread naps (a call that holds no lock), while
 * the main thread waits in pthread_join (inside the C library, so not
 * chosen).  Prints "ready", naps SECONDS, prints "small stack done".
 *
 *   small_stack_sleeper [SECONDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *nap(void *arg)
{
  int tenths = *(int *)arg;
  for (int i = 0; i < tenths; i++)
    usleep(100000);
  return NULL;
}

int main(int argc, char **argv)
{
  int tenths = (int)((argc > 1 ? atof(argv[1]) : 5) * 10);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  if (pthread_create(&thread, &attr, nap, &tenths) != 0)
    return 2;
  printf("ready\n");
  fflush(stdout);
  pthread_join(thread, NULL);
  printf("small stack done\n");
  return 0;
}
