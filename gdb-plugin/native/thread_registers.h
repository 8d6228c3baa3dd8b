/* A stopped thread's registers, for its tracer (thread_registers.c); the
 * plugin calls the stack pointer's through ctypes. */
#ifndef GDBCOL_THREAD_REGISTERS_H
#define GDBCOL_THREAD_REGISTERS_H

#include <stdint.h>
#include <sys/user.h>

/* 0 with *REGS set, or -1 (not a thread stopped for the calling thread). */
int gdbcol_thread_registers(int tid, struct user_regs_struct *regs);

/* 0 with *SP set, or -1 (not a thread stopped for the calling thread). */
int gdbcol_thread_stack_pointer(int tid, uint64_t *sp);
/* 0, or -1 (the same). */
int gdbcol_set_thread_stack_pointer(int tid, uint64_t sp);

#endif
