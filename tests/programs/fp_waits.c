/* Waits whose stacks are hard to read from outside (issue 30): code built
 * with frame pointers, blocked in a system call below frames that never
 * saved RBP, so that whoever reads the thread from outside (PC and SP
 * only) must find each frame's record on the stack.
 *   - leaf_wait: a function with a frame record that makes the read()
 *     system call itself (no libc frame below it), reached by a tail call
 *     from tail_caller (so no return address follows a call of it);
 *   - buffer_wait: read() from libc into an uninitialised 4 KiB buffer
 *     that still holds the frame records deep() left there just before
 *     (stale records that chain as well as real ones).
 * A helper thread writes to the pipe after SECONDS each time; the program
 * prints how long each wait took:
 *     leaf=0.501 buffer=0.500
 *     fp_waits [SECONDS]   (default 0.5)
 *     fp_waits wait FILE   (says "ready", waits until FILE exists) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "wait_for_go.h"

static int pipe_fds[2];
static double wait_seconds = 0.5;
static char byte;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *writer(void *arg)
{
  for (int i = 0; i < 2; i++) {
    struct timespec ts = {(time_t)wait_seconds, (long)((wait_seconds - (time_t)wait_seconds) * 1e9)};
    nanosleep(&ts, NULL);
    if (write(pipe_fds[1], "x", 1) != 1)
      break;
  }
  return arg;
}

/* long leaf_wait(int fd, char *into): read(FD, INTO, 1) as a system call
 * made under the function's own frame record (push rbp; mov rsp, rbp),
 * RBP-based CFA at the syscall; written out so that no compiler setting
 * leaves the record out of a leaf function. */
long leaf_wait(int fd, char *into);
__asm__(".text\n"
        ".globl leaf_wait\n"
        ".type leaf_wait, @function\n"
        "leaf_wait:\n"
        ".cfi_startproc\n"
        "  push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "  mov %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "  movslq %edi, %rdi\n"
        "  mov $1, %edx\n"
        "  xor %eax, %eax\n" /* SYS_read */
        "  syscall\n"
        "  pop %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size leaf_wait, .-leaf_wait\n");

__attribute__((noinline)) long tail_caller(int fd)
{
  return leaf_wait(fd, &byte); /* a sibling call: jmp, not call */
}

__attribute__((noinline)) int deep(int n)
{
  volatile char pad[48];
  pad[0] = (char)n;
  return n > 0 ? deep(n - 1) + pad[0] : 0;
}

__attribute__((noinline)) long buffer_wait(int fd)
{
  char buffer[4096]; /* not initialised: deep()'s old frames are in it */
  long got = read(fd, buffer, 1);
  __asm__ volatile("" : : "r"(buffer) : "memory");
  return got;
}

int main(int argc, char **argv)
{
  wait_for_go(argc, argv);
  if (argc == 2)
    wait_seconds = atof(argv[1]);
  if (pipe(pipe_fds) != 0)
    return 1;
  pthread_t thread;
  pthread_create(&thread, NULL, writer, NULL);
  double t = now();
  long a = tail_caller(pipe_fds[0]);
  double leaf = now() - t;
  deep(40);
  t = now();
  long b = buffer_wait(pipe_fds[0]);
  double buffer = now() - t;
  pthread_join(thread, NULL);
  printf("leaf=%.3f buffer=%.3f (%ld %ld)\n", leaf, buffer, a, b);
  return 0;
}
