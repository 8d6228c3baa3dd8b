/* The runtime's own calls to the C library's memory functions and clock,
 * bound inside libcollector.so, past any other interposer.
 *
 * A sanitizer's runtime defines memcpy, memmove, memset, memcmp, kill,
 * sigaction and clock_gettime itself (ThreadSanitizer's stays behind ours in the
 * program's scope, AddressSanitizer's comes before it): through the PLT,
 * every such call the runtime makes would enter it.  From our timer
 * signal's handler that is a call into a runtime the signal may have
 * interrupted in the middle of its own state (ThreadSanitizer delivers
 * the signals it knows of only at its safe points for that reason); on
 * the recording path it is its cost and its view of our buffers
 * (ThreadSanitizer's memcpy updates the shadow of every byte copied: a
 * heap-traced churn loop spent 0.19 s of its 0.58 s there).
 *
 * Definitions of those names here win inside the library (the version
 * script keeps them out of the dynamic symbol table: the program's own
 * calls still reach libc, or its sanitizer).  The memory functions are
 * written out, kill is its system call; the clock is libc's own
 * clock_gettime (the vDSO's, no system call), looked up in libc itself at
 * the runtime's start, a system call until then.  sigaction is not
 * shadowed (the program's calls reach our wrapper, which forwards them):
 * the timer signal's own handler is set with col_own_sigaction, libc's.
 *
 * (Built with -fno-tree-loop-distribute-patterns: the compiler must not
 * turn these loops back into calls to the names they define.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <gnu/lib-names.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "interpose/own_calls.h"

/* Longer copies: the CPU's string instructions (fast on every x86-64 with
 * ERMS); shorter ones pay their start-up, the loops below do not. */
#define STRING_INSN_FROM 256

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn libc_clock_gettime;
static col_sigaction_fn libc_sigaction;

void col_own_calls_start(void)
{
  if (__atomic_load_n(&libc_clock_gettime, __ATOMIC_ACQUIRE) != NULL)
    return;
  void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
  if (libc == NULL)
    return;
  col_sigaction_fn action = (col_sigaction_fn)dlvsym(libc, "sigaction", "GLIBC_2.2.5");
  __atomic_store_n(&libc_sigaction, action != NULL ? action : (col_sigaction_fn)dlsym(libc, "sigaction"), __ATOMIC_RELEASE);
  clock_gettime_fn clock = (clock_gettime_fn)dlvsym(libc, "clock_gettime", "GLIBC_2.17");
  if (clock == NULL)
    clock = (clock_gettime_fn)dlsym(libc, "clock_gettime");
  dlclose(libc); /* (RTLD_NOLOAD: only our reference to it) */
  __atomic_store_n(&libc_clock_gettime, clock, __ATOMIC_RELEASE);
}

col_sigaction_fn col_own_sigaction(void)
{
  return __atomic_load_n(&libc_sigaction, __ATOMIC_ACQUIRE);
}

__attribute__((visibility("hidden"))) int kill(pid_t pid, int sig)
{
  return (int)syscall(SYS_kill, pid, sig);
}

__attribute__((visibility("hidden"))) int clock_gettime(clockid_t clock, struct timespec *ts)
{
  clock_gettime_fn libc = __atomic_load_n(&libc_clock_gettime, __ATOMIC_ACQUIRE);
  if (libc != NULL)
    return libc(clock, ts);
  return (int)syscall(SYS_clock_gettime, clock, ts);
}

static inline void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
#if defined(__x86_64__)
  if (n >= STRING_INSN_FROM) {
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return;
  }
#endif
  for (; n >= 16; n -= 16, d += 16, s += 16) {
    uint64_t a, b;
    __builtin_memcpy(&a, s, 8); /* both loaded before either is stored */
    __builtin_memcpy(&b, s + 8, 8);
    __builtin_memcpy(d, &a, 8);
    __builtin_memcpy(d + 8, &b, 8);
  }
  for (; n > 0; n--)
    *d++ = *s++;
}

__attribute__((visibility("hidden"))) void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
  copy_forward(dst, src, n);
  return dst;
}

__attribute__((visibility("hidden"))) void *memmove(void *dst, const void *src, size_t n)
{
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d <= s || d >= s + n) { /* a forward copy reads each byte before it is written */
    copy_forward(d, s, n);
    return dst;
  }
  /* Backward, from the end: each 16 bytes loaded before they are stored
   * (byte by byte, the walk memo's move of 13 frames was 39 % of a
   * heap-traced thread's CPU). */
  for (; n >= 16; n -= 16) {
    uint64_t a, b;
    __builtin_memcpy(&a, s + n - 16, 8);
    __builtin_memcpy(&b, s + n - 8, 8);
    __builtin_memcpy(d + n - 8, &b, 8);
    __builtin_memcpy(d + n - 16, &a, 8);
  }
  while (n > 0) {
    n--;
    d[n] = s[n];
  }
  return dst;
}

__attribute__((visibility("hidden"))) void *memset(void *dst, int c, size_t n)
{
  unsigned char *d = dst;
#if defined(__x86_64__)
  if (n >= STRING_INSN_FROM) {
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return dst;
  }
#endif
  uint64_t fill = (uint64_t)(unsigned char)c * 0x0101010101010101ull;
  for (; n >= 8; n -= 8, d += 8)
    __builtin_memcpy(d, &fill, 8);
  for (; n > 0; n--)
    *d++ = (unsigned char)c;
  return dst;
}

__attribute__((visibility("hidden"))) int memcmp(const void *a, const void *b, size_t n)
{
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}
