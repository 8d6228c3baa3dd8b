/* Test programs a test attaches to before they do their work: with
 * arguments "wait FILE" they say "ready", then wait until FILE exists
 * (the test creates it once GDB has attached and set up). */
#ifndef TEST_WAIT_FOR_GO_H
#define TEST_WAIT_FOR_GO_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void wait_for_go(int argc, char **argv)
{
  if (argc < 3 || strcmp(argv[1], "wait") != 0)
    return;
  printf("ready\n");
  fflush(stdout);
  struct timespec tick = {0, 10 * 1000 * 1000};
  while (access(argv[2], F_OK) != 0)
    nanosleep(&tick, NULL);
}

#endif
