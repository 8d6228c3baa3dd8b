/* Whether this process records: the runtime's state, which every wrapper
 * reads on its fast path.  A module of its own at the bottom: the wrappers
 * read it, the runtime's start and end (collector_main.c) set it. */
#ifndef COL_RUNTIME_COLLECTION_STATE_H
#define COL_RUNTIME_COLLECTION_STATE_H

enum col_collection_state { COL_STATE_INERT, COL_STATE_COLLECTING, COL_STATE_CLOSED };

/* Nonzero while an experiment is open in this process (not a fork child). */
int col_collecting(void);
/* Collecting, in this process or the one it was forked from (no system
 * call: for the wrappers' fast paths). */
int col_active(void);

/* The runtime's side. */
void col_state_set(enum col_collection_state state);
/* Collecting, whichever process owns the experiment. */
int col_state_collecting_anywhere(void);
/* COLLECTING becomes CLOSED: nonzero for the one caller that did it. */
int col_state_close(void);
/* This process owns the experiment from now on (it started it, or it is a
 * recorded fork child); nonzero when it does. */
void col_state_own(void);
int col_state_owned_here(void);

#endif
