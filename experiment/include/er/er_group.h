/* Experiment groups (`collector store group NAME`): a text file, the
 * Analyzer's .erg, whose first line is "#analyzer experiment group" and
 * whose other lines name one experiment each.  gprofng opens a group as it
 * opens an experiment and shows the experiments side by side. */
#ifndef ER_GROUP_H
#define ER_GROUP_H

#include <stddef.h>

#define ER_GROUP_HEADER "#analyzer experiment group"

/* NULL, or why NAME cannot name a group (it must end in .erg, with
 * something before it, and not end in a slash). */
const char *er_check_group_name(const char *name);

/* The default experiment name a group implies (gprofng's rule): the stem
 * of the group's file name, numbered: "runs.erg" -> "runs.1.er". */
int er_group_experiment_name(const char *group, char *out, size_t out_len);

/* Appends EXPERIMENT_PATH to the group file GROUP_PATH, creating it (with
 * the header, mode 0666 less the umask) when it does not exist.  A file
 * that exists but is not a group is left alone.  Several processes may
 * join at once (an exclusive flock orders them).  Returns 0, or a negative
 * errno with a message in ERR. */
int er_group_join(const char *group_path, const char *experiment_path, char *err, size_t err_len);
/* The same, with FIRST_PATH on the line after the header when this join
 * creates the group (a job's group: its founder, then each rank). */
int er_group_join_after(const char *group_path, const char *first_path, const char *experiment_path, char *err,
                        size_t err_len);

#endif
