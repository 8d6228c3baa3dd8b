/* Pointing loaded objects' GOT slots at the wrappers (after an attach). */
#ifndef COL_INTERPOSE_GOT_PATCH_H
#define COL_INTERPOSE_GOT_PATCH_H

/* Zero when our exported wrappers already win symbol lookup (preloaded). */
int col_got_interposition_needed(void);
/* Points the GOT slots of every loaded object at our wrappers: how many
 * slots changed, in how many objects, and the objects whose dynamic
 * tables could not be read (their calls stay as they are). */
struct col_got_report {
  unsigned slots, objects, unreadable;
  char first_unreadable[64];
};
void col_got_patch_all(struct col_got_report *report);
/* The same for objects loaded since the last walk (cheap when none were). */
void col_got_patch_new_objects(void);
/* Puts the original addresses back (collection ends, process goes on). */
void col_got_restore_all(void);

#endif
