/* Every data writer (clock packets, traced events) at once, behind the
 * stack store they share. */
#ifndef COL_CORE_DATA_WRITERS_H
#define COL_CORE_DATA_WRITERS_H

/* Started with an experiment after the stack store, flushed after their
 * stacks (and their counts updated), given up when a stack could not be
 * written. */
int col_data_writers_start(void);
void col_data_writers_flush(void);
void col_data_writers_abandon(int err);

#endif
