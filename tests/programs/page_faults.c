/* Waits in page faults (issue 30), with a known length: the main thread
 * touches a page whose fault a helper thread resolves after SECONDS
 * (userfaultfd: the kernel holds the faulting thread until the page is
 * given), first a data page (data_fault_wait), then a code page it calls
 * into (code_fault_wait: the page then holds a `ret`).  It prints how
 * long each took:
 *     data=0.500 code=0.501
 * or, where userfaultfd is not allowed, "userfaultfd: REASON".
 *     page_faults [SECONDS]   (default 0.5) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int uffd;
static long page_size;
static double wait_seconds = 0.5;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Each fault: waits, then gives the page (all `ret` instructions). */
static void *resolver(void *arg)
{
  static unsigned char source[65536];
  memset(source, 0xc3, sizeof source);
  for (int i = 0; i < 2; i++) {
    struct pollfd in = {uffd, POLLIN, 0};
    struct uffd_msg msg;
    if (poll(&in, 1, -1) != 1 || read(uffd, &msg, sizeof msg) != sizeof msg || msg.event != UFFD_EVENT_PAGEFAULT)
      break;
    struct timespec ts = {(time_t)wait_seconds, (long)((wait_seconds - (time_t)wait_seconds) * 1e9)};
    nanosleep(&ts, NULL);
    struct uffdio_copy copy = {.dst = msg.arg.pagefault.address & ~(unsigned long long)(page_size - 1),
                               .src = (unsigned long)source, .len = (unsigned long long)page_size};
    if (ioctl(uffd, UFFDIO_COPY, &copy) != 0)
      break;
  }
  return arg;
}

static void *watched_page(int prot)
{
  void *page = mmap(NULL, (size_t)page_size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct uffdio_register reg = {.range = {(unsigned long)page, (unsigned long long)page_size},
                                .mode = UFFDIO_REGISTER_MODE_MISSING};
  return page != MAP_FAILED && ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 ? page : NULL;
}

__attribute__((noinline)) int data_fault_wait(volatile unsigned char *page)
{
  return page[100];
}

__attribute__((noinline)) void code_fault_wait(void (*code)(void))
{
  code();
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

int main(int argc, char **argv)
{
  if (argc > 1)
    wait_seconds = atof(argv[1]);
  page_size = sysconf(_SC_PAGESIZE);
  /* User-mode faults only: what an ordinary user may watch. */
  uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
  struct uffdio_api api = {.api = UFFD_API};
  if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0) {
    printf("userfaultfd: %s\n", strerror(errno));
    return 0;
  }
  unsigned char *data = watched_page(PROT_READ | PROT_WRITE);
  void *code = watched_page(PROT_READ | PROT_EXEC);
  if (data == NULL || code == NULL) {
    printf("userfaultfd: %s\n", strerror(errno));
    return 0;
  }
  pthread_t thread;
  pthread_create(&thread, NULL, resolver, NULL);
  double t = now();
  int value = data_fault_wait(data);
  double data_wait = now() - t;
  t = now();
  code_fault_wait((void (*)(void))code);
  double code_wait = now() - t;
  pthread_join(thread, NULL);
  printf("data=%.3f code=%.3f (%d)\n", data_wait, code_wait, value);
  return 0;
}
