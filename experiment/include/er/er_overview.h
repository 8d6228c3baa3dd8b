/* overview: one 504-byte getrusage record per sample point (§7). */
#ifndef ER_OVERVIEW_H
#define ER_OVERVIEW_H

#include <stdint.h>

#include "er/er_format.h"
#include "er/er_recordfile.h"

/* Fills REC for a sample taken at NOW (absolute hrtime); CREATE is the
 * hrtime of the first record.  Async-signal-safe (getrusage, getpid). */
void er_overview_fill(struct er_overview_record *rec, int64_t create_ns, int64_t now_ns);

/* The same for another process PID, from /proc/PID/stat and status (CPU
 * times at clock-tick resolution; no block or message counts). */
void er_overview_fill_proc(struct er_overview_record *rec, int pid, int64_t create_ns, int64_t now_ns);

/* Appends REC whole or not at all, so the file size is always a multiple
 * of 504 (a partial record makes gprofng drop call stacks, §13).  FINAL:
 * the closing sample, which may use the file's closing reserve.  0 or
 * -errno. */
int er_overview_append(struct er_recordfile *file, const struct er_overview_record *rec, int final);

#endif
