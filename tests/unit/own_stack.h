/* The calling thread's own stack as a clock source would capture it, for
 * the unit tests that unwind it: its registers (perf's numbering) from a
 * getcontext the test made where it wants the sample, and the bytes from
 * SP up to the end of the thread's stack (at most ROOM). */
#ifndef OWN_STACK_H
#define OWN_STACK_H

#include <asm/perf_regs.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "core/capture.h"

/* The end of the calling thread's stack (its highest address). */
static inline uintptr_t own_stack_top(void)
{
  pthread_attr_t attr;
  void *lo;
  size_t size;
  pthread_getattr_np(pthread_self(), &attr);
  pthread_attr_getstack(&attr, &lo, &size);
  pthread_attr_destroy(&attr);
  return (uintptr_t)lo + size;
}

/* CAP from UC's registers, with COPY (ROOM bytes) holding the stack. */
static inline void own_stack_capture(const ucontext_t *uc, struct col_capture *cap, unsigned char *copy, size_t room)
{
  const greg_t *g = uc->uc_mcontext.gregs;
  static const struct { int perf, greg; } map[] = {
    {PERF_REG_X86_AX, REG_RAX}, {PERF_REG_X86_BX, REG_RBX}, {PERF_REG_X86_CX, REG_RCX},
    {PERF_REG_X86_DX, REG_RDX}, {PERF_REG_X86_SI, REG_RSI}, {PERF_REG_X86_DI, REG_RDI},
    {PERF_REG_X86_BP, REG_RBP}, {PERF_REG_X86_SP, REG_RSP}, {PERF_REG_X86_IP, REG_RIP},
    {PERF_REG_X86_R8, REG_R8},   {PERF_REG_X86_R9, REG_R9},   {PERF_REG_X86_R10, REG_R10},
    {PERF_REG_X86_R11, REG_R11}, {PERF_REG_X86_R12, REG_R12}, {PERF_REG_X86_R13, REG_R13},
    {PERF_REG_X86_R14, REG_R14}, {PERF_REG_X86_R15, REG_R15}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    cap->regs.r[map[i].perf] = (uint64_t)g[map[i].greg];
  uintptr_t sp = (uintptr_t)cap->regs.r[PERF_REG_X86_SP], top = own_stack_top();
  cap->stack_len = top - sp < room ? top - sp : room;
  memcpy(copy, (const void *)sp, cap->stack_len);
  cap->stack = copy;
}

#endif
