/* Every parsing rule of `collector profile timer VALUE`. */
#include <string.h>

#include "er/er_timer_spec.h"
#include "test_util.h"

static long parse(const char *v, int *raised, int *rounded)
{
  struct er_timer_spec s;
  char err[512];
  if (er_parse_timer_spec(v, &s, err, sizeof err) != 0)
    return -1;
  if (raised)
    *raised = s.raised_to_min;
  if (rounded)
    *rounded = s.rounded_down;
  return s.interval_us;
}

static int rejected_with(const char *v, const char *fragment)
{
  struct er_timer_spec s;
  char err[512] = "";
  return er_parse_timer_spec(v, &s, err, sizeof err) == -1 && strstr(err, fragment) != NULL &&
         strstr(err, "accepted forms") != NULL;
}

int main(void)
{
  int raised = 0, rounded = 0;
  CHECK(parse("on", NULL, NULL) == ER_TIMER_ON_US);
  CHECK(parse("hi", NULL, NULL) == ER_TIMER_HI_US);
  CHECK(parse("lo", NULL, NULL) == ER_TIMER_LO_US);
  CHECK(parse("10", NULL, NULL) == 10000);          /* milliseconds by default */
  CHECK(parse("10m", NULL, NULL) == 10000);
  CHECK(parse("2.5", NULL, NULL) == 2500);
  CHECK(parse("2.5m", NULL, NULL) == 2500);
  CHECK(parse("500u", NULL, NULL) == 500);
  CHECK(parse("+3", NULL, NULL) == 3000);
  CHECK(parse("1000", NULL, NULL) == 1000000);      /* the maximum itself */
  CHECK(parse("250.5u", &raised, &rounded) == 250 && rounded && !raised);
  CHECK(parse("0.0015", &raised, &rounded) == ER_TIMER_MIN_US && raised); /* 1.5 us */
  CHECK(parse("50u", &raised, NULL) == ER_TIMER_MIN_US && raised);
  CHECK(parse("1", &raised, &rounded) == 1000 && !raised && !rounded);
  CHECK(rejected_with("0", "greater than zero"));
  CHECK(rejected_with("0u", "greater than zero"));
  CHECK(rejected_with("-5", "positive"));
  CHECK(rejected_with("1001", "maximum"));
  CHECK(rejected_with("5s", "unknown unit"));
  CHECK(rejected_with("abc", "not an interval"));
  CHECK(rejected_with("", "missing"));
  CHECK(rejected_with("1.2.3", "unknown unit"));
  CHECK(rejected_with("nan", "not an interval"));
  CHECK(rejected_with("0x10", "unknown unit"));
  CHECK(rejected_with("ON", "not an interval"));
  return TEST_EXIT();
}
