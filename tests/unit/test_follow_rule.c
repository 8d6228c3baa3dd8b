/* `collector descendants on|off|=REGEX`: parsing and matching (gprofng's
 * -F rule: anchored, against the lineage or the program's name). */
#include <string.h>

#include "er/er_follow.h"
#include "test_util.h"

int main(void)
{
  struct er_follow_rule rule;
  char err[300];
  CHECK(er_follow_parse("on", &rule, err, sizeof err) == 0 && er_follow_matches(&rule, "_f1", NULL));
  CHECK(er_follow_parse("off", &rule, err, sizeof err) == 0 && !er_follow_matches(&rule, "_f1", "cc1"));
  CHECK(er_follow_parse("=cc1", &rule, err, sizeof err) == 0);
  CHECK(er_follow_matches(&rule, "_f1_x1", "cc1"));
  CHECK(er_follow_matches(&rule, "_f1_x1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"));
  CHECK(!er_follow_matches(&rule, "_f1", NULL));        /* before its exec */
  CHECK(!er_follow_matches(&rule, "_f2_x1", "cc1plus")); /* anchored at the end */
  CHECK(!er_follow_matches(&rule, "_f2_x1", "xcc1"));    /* and at the start */
  er_follow_free(&rule);
  CHECK(er_follow_parse("=_f1.*", &rule, err, sizeof err) == 0);
  CHECK(er_follow_matches(&rule, "_f1_x1", "as") && !er_follow_matches(&rule, "_f2", NULL));
  er_follow_free(&rule);
  CHECK(er_follow_parse("=(cc1|as)", &rule, err, sizeof err) == 0 && er_follow_matches(&rule, "_f2_x1", "as"));
  er_follow_free(&rule);
  CHECK(er_follow_parse("maybe", &rule, err, sizeof err) == -1 && strstr(err, "on, off, or =REGEX") != NULL);
  CHECK(er_follow_parse("=", &rule, err, sizeof err) == -1);
  CHECK(er_follow_parse("=(cc1", &rule, err, sizeof err) == -1 && strstr(err, "is not valid") != NULL);
  return TEST_EXIT();
}
