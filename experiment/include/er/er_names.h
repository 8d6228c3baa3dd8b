/* Function names for reports (er_names.c): libdwfl, with separate debug
 * info found by build id, so stripped libraries are named as perf names
 * them. */
#ifndef ER_NAMES_H
#define ER_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "er/er_reader.h"

struct er_names;

/* Names for EXP's PCs (EXP stays open while they are used); NULL when out
 * of memory. */
struct er_names *er_names_open(const struct er_experiment *exp);
/* The function containing PC, or "<static>@0xOFFSET (file)" when no table
 * names it, or "<Unknown>@0xPC" outside every load object; for the
 * writer's markers (er_format.h's ER_PC_TRUNCATED, ER_PC_UNWIND_FAILED)
 * gprofng's "<Truncated-stack>", "<Stack-unwind-failed>".  Valid until
 * er_names_close. */
const char *er_names_function(struct er_names *names, uint64_t pc);
/* The frames at PC, innermost first: the functions the debug info says
 * are inlined there, then the function itself (er_names_function's name;
 * a marker alone); at most MAX, the count.  Valid until er_names_close. */
size_t er_names_frames(struct er_names *names, uint64_t pc, const char **frames, size_t max);
/* The global variable at data address ADDR, "name (file)" or
 * "name+OFFSET (file)", into OUT; NULL when no load object's symbols name
 * one there (heap, stack, a stripped object). */
/* The source file and line of PC, from the debug info's line table (the
 * file valid until er_names_close); 0, or -1 where none says. */
int er_names_line(struct er_names *names, uint64_t pc, const char **file, int *line);
const char *er_names_data(struct er_names *names, uint64_t addr, char *out, size_t len);
/* The load objects named from separate debug info so far: *PATHS (free
 * the array, not its strings) and their count. */
size_t er_names_debug_info_found(const struct er_names *names, char ***paths);
void er_names_close(struct er_names *names);

#endif
