/* Pointing loaded objects' GOT slots at the wrappers (after an attach). */
#ifndef COL_INTERPOSE_GOT_PATCH_H
#define COL_INTERPOSE_GOT_PATCH_H

#include <stdint.h>

/* Zero when our exported wrappers already win symbol lookup (preloaded). */
int col_got_interposition_needed(void);
/* Points the GOT slots of every loaded object at our wrappers, those
 * always needed and those of TRACED_KINDS (1 << enum er_kind each): how
 * many slots changed, in how many objects, how many were left as they
 * were (bound elsewhere than the wrapper's real function), and the
 * objects whose dynamic tables could not be read (their calls stay as
 * they are).  Preloaded (a later experiment in a launched process), the
 * call slots of the kinds that are off are bypassed as by
 * col_got_bypass_idle in the same walk. */
struct col_got_report {
  unsigned slots, objects, kept, unreadable;
  char first_unreadable[64];
};
void col_got_patch_all(uint32_t traced_kinds, struct col_got_report *report);
/* The same for objects loaded since the last walk (cheap when none were). */
void col_got_patch_new_objects(void);
/* Preloaded, at the start: the call slots (JUMP_SLOT) of every loaded
 * object that reach our wrappers of a traced kind not in TRACED_KINDS
 * call the real function directly (a kind that is off costs the
 * program's calls nothing).  How many slots changed. */
unsigned col_got_bypass_idle(uint32_t traced_kinds);
/* Puts the original addresses back (collection ends, process goes on). */
void col_got_restore_all(void);

#endif
