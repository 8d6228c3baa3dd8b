/* The descendant-follow rule; see er/er_follow.h. */
#include "er/er_follow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int er_follow_parse(const char *text, struct er_follow_rule *rule, char *err, size_t err_len)
{
  memset(rule, 0, sizeof *rule);
  if (text == NULL || strcmp(text, "on") == 0 || text[0] == '\0') {
    rule->mode = ER_FOLLOW_ALL;
    return 0;
  }
  if (strcmp(text, "off") == 0) {
    rule->mode = ER_FOLLOW_NONE;
    return 0;
  }
  if (text[0] != '=' || text[1] == '\0') {
    snprintf(err, err_len, "\"%s\" is not a descendants setting: use on, off, or =REGEX (for example =cc1 or "
             "=\"(cc1|as)\")", text);
    return -1;
  }
  size_t len = strlen(text + 1);
  char *anchored = malloc(len + 5);
  if (anchored == NULL) {
    snprintf(err, err_len, "out of memory");
    return -1;
  }
  snprintf(anchored, len + 5, "^(%s)$", text + 1);
  int rc = regcomp(&rule->re, anchored, REG_EXTENDED | REG_NOSUB);
  free(anchored);
  if (rc != 0) {
    char why[200];
    regerror(rc, &rule->re, why, sizeof why);
    snprintf(err, err_len, "the regular expression \"%s\" is not valid: %s", text + 1, why);
    return -1;
  }
  rule->mode = ER_FOLLOW_MATCHING;
  rule->compiled = 1;
  return 0;
}

int er_follow_matches(const struct er_follow_rule *rule, const char *lineage, const char *program)
{
  if (rule->mode != ER_FOLLOW_MATCHING)
    return rule->mode == ER_FOLLOW_ALL;
  if (lineage != NULL && regexec(&rule->re, lineage, 0, NULL, 0) == 0)
    return 1;
  if (program == NULL || program[0] == '\0')
    return 0;
  const char *slash = strrchr(program, '/');
  return regexec(&rule->re, slash != NULL ? slash + 1 : program, 0, NULL, 0) == 0;
}

void er_follow_free(struct er_follow_rule *rule)
{
  if (rule->compiled)
    regfree(&rule->re);
  rule->compiled = 0;
}
