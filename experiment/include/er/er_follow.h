/* Which descendant processes are recorded: `collector descendants
 * on|off|=REGEX` (gprofng's `collect -F on|off|=regex`). */
#ifndef ER_FOLLOW_H
#define ER_FOLLOW_H

#include <regex.h>
#include <stddef.h>

enum er_follow_mode { ER_FOLLOW_ALL, ER_FOLLOW_NONE, ER_FOLLOW_MATCHING };

struct er_follow_rule {
  enum er_follow_mode mode;
  int compiled; /* RE holds a compiled expression */
  regex_t re;
};

/* "on", "off" or "=REGEX" (a POSIX extended expression, anchored at both
 * ends).  0, or -1 with a message naming the problem in ERR. */
int er_follow_parse(const char *text, struct er_follow_rule *rule, char *err, size_t err_len);
/* Is a descendant of lineage LINEAGE ("_f1_x1") running PROGRAM (NULL or
 * "" before it execs) recorded?  With a regex: when it matches the whole
 * lineage or the whole program name (its last path component). */
int er_follow_matches(const struct er_follow_rule *rule, const char *lineage, const char *program);
void er_follow_free(struct er_follow_rule *rule);

#endif
