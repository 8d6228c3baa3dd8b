/* GDB's refused writes of a thread's extended register state, completed
 * (xstate_writes.c). */
#ifndef GDBCOL_XSTATE_WRITES_H
#define GDBCOL_XSTATE_WRITES_H

/* Points GDB's GOT slots of ptrace at the completing wrapper: how many
 * (0 where GDB calls ptrace some other way). */
int gdbcol_complete_xstate_writes(void);
/* How many writes were completed so far. */
unsigned gdbcol_xstate_writes_completed(void);

#endif
