/* Parsing `collector profile timer VALUE`; see er/er_timer_spec.h. */
#include "er/er_timer_spec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define ACCEPTED_FORMS                                                                           \
  "accepted forms: on, hi, lo, or a positive number of milliseconds such as 10, 2.5 or 2.5m, " \
  "or microseconds with the suffix u such as 500u"

static int fail(char *err, size_t err_len, const char *what, const char *value)
{
  snprintf(err, err_len, "%s \"%s\"; %s (between %ldu and %ldu).", what, value, ACCEPTED_FORMS,
           ER_TIMER_MIN_US, ER_TIMER_MAX_US);
  return -1;
}

/* Reads an unsigned decimal number with at most one '.' into INTEGER and
 * FRACTION (micro-units of the integer part scaled by SCALE).  Returns the
 * number of characters consumed, 0 when there is no number. */
static size_t scan_decimal(const char *s, long scale, double *value_out)
{
  size_t i = 0;
  int digits = 0, dot = 0;
  double value = 0.0, place = 1.0;
  for (;; i++) {
    if (isdigit((unsigned char)s[i])) {
      digits++;
      if (dot) {
        place /= 10.0;
        value += (s[i] - '0') * place;
      } else {
        value = value * 10.0 + (s[i] - '0');
      }
    } else if (s[i] == '.' && !dot) {
      dot = 1;
    } else {
      break;
    }
    if (digits > 15)
      return 0; /* absurdly long: reject rather than lose precision */
  }
  if (digits == 0)
    return 0;
  *value_out = value * (double)scale;
  return i;
}

int er_parse_timer_spec(const char *value, struct er_timer_spec *out, char *err, size_t err_len)
{
  memset(out, 0, sizeof *out);
  if (value == NULL || *value == '\0')
    return fail(err, err_len, "missing interval", "");
  /* dbx also spells hi and lo high and low. */
  if (strcmp(value, "on") == 0 || strcmp(value, "hi") == 0 || strcmp(value, "lo") == 0 ||
      strcmp(value, "high") == 0 || strcmp(value, "low") == 0) {
    out->interval_us = value[0] == 'o' ? ER_TIMER_ON_US : value[0] == 'h' ? ER_TIMER_HI_US : ER_TIMER_LO_US;
    return 0;
  }
  const char *p = value;
  if (*p == '-')
    return fail(err, err_len, "the interval must be positive, not", value);
  if (*p == '+')
    p++;
  double requested_ms = 0.0;
  size_t used = scan_decimal(p, 1, &requested_ms);
  if (used == 0)
    return fail(err, err_len, "not an interval:", value);
  const char *suffix = p + used;
  double requested_us;
  if (strcmp(suffix, "") == 0 || strcmp(suffix, "m") == 0 || strcmp(suffix, "ms") == 0)
    requested_us = requested_ms * 1000.0;
  else if (strcmp(suffix, "u") == 0 || strcmp(suffix, "us") == 0)
    requested_us = requested_ms;
  else
    return fail(err, err_len, "unknown unit in", value);
  if (requested_us <= 0.0)
    return fail(err, err_len, "the interval must be greater than zero, not", value);
  if (requested_us > (double)ER_TIMER_MAX_US)
    return fail(err, err_len, "the interval is above the maximum:", value);
  long whole = (long)requested_us;
  long effective = whole - whole % ER_TIMER_RESOLUTION_US;
  out->rounded_down = (double)effective != requested_us;
  if (effective < ER_TIMER_MIN_US) {
    effective = ER_TIMER_MIN_US;
    out->raised_to_min = 1;
    out->rounded_down = 0;
  }
  out->interval_us = effective;
  return 0;
}
