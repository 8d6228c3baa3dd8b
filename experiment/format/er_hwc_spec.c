/* Counter-list parser; see er/er_hwc_spec.h. */
#define _GNU_SOURCE
#include "er/er_hwc_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE "[+]NAME[~ATTR=VALUE]...[/REGISTER][,on|hi|lo|NUMBER] (for example: cycles,on,insts)"

static int fail(char *err, size_t err_len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err, err_len, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < err_len)
    snprintf(err + n, err_len - (size_t)n, ". A counter is %s", USAGE);
  return -1;
}

/* A whole decimal or 0x-hexadecimal number in [S, END); 0 on success. */
static int parse_number(const char *s, const char *end, uint64_t *value)
{
  if (s == end || !isdigit((unsigned char)*s))
    return -1;
  char buf[32];
  if ((size_t)(end - s) >= sizeof buf)
    return -1;
  memcpy(buf, s, (size_t)(end - s));
  buf[end - s] = '\0';
  int hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
  for (const char *p = buf + (hex ? 2 : 0); *p; p++)
    if (hex ? !isxdigit((unsigned char)*p) : !isdigit((unsigned char)*p))
      return -1;
  if (hex && buf[2] == '\0')
    return -1;
  errno = 0;
  *value = strtoull(buf, NULL, 0);
  return errno == 0 ? 0 : -1;
}

static int is_interval_token(const char *s, size_t len)
{
  return isdigit((unsigned char)s[0]) || (len == 2 && (!strncmp(s, "on", 2) || !strncmp(s, "hi", 2) || !strncmp(s, "lo", 2)));
}

static int parse_interval(const char *s, size_t len, struct er_hwc_counter *c, char *err, size_t err_len)
{
  static const char *const words[] = {"on", "hi", "lo"};
  for (int i = 0; i < 3; i++)
    if (len == 2 && strncmp(s, words[i], 2) == 0) {
      c->rate = (enum er_hwc_rate)i;
      return 0;
    }
  uint64_t v;
  if (parse_number(s, s + len, &v) != 0 || v == 0)
    return fail(err, err_len, "invalid interval \"%.*s\" for counter %s: use on, hi, lo or a positive number "
                "(decimal or 0x hex)", (int)len, s, c->name);
  c->rate = ER_HWC_RATE_VALUE;
  c->interval = v;
  return 0;
}

static int name_char(int ch, int first)
{
  return isalpha(ch) || ch == '_' || (!first && (isdigit(ch) || ch == '.' || ch == ':' || ch == '-'));
}

/* [+]name[~attr=value]...[/reg] */
static int parse_definition(const char *s, size_t len, struct er_hwc_counter *c, char *err, size_t err_len)
{
  const char *p = s, *end = s + len;
  memset(c, 0, sizeof *c);
  c->reg = -1;
  if (*p == '+') {
    c->backtrack = 1;
    p++;
  }
  const char *name = p;
  while (p < end && name_char((unsigned char)*p, p == name))
    p++;
  if (p == name || (size_t)(p - name) >= sizeof c->name)
    return fail(err, err_len, "invalid counter name in \"%.*s\"", (int)len, s);
  memcpy(c->name, name, (size_t)(p - name));
  while (p < end && *p == '~') {
    const char *attr = ++p;
    while (p < end && name_char((unsigned char)*p, p == attr) && *p != '-' && *p != '.' && *p != ':')
      p++;
    if (p == attr || p >= end || *p != '=' || (size_t)(p - attr) >= sizeof c->attrs[0].name)
      return fail(err, err_len, "invalid attribute in \"%.*s\": write ~NAME=VALUE", (int)len, s);
    if (c->n_attrs == ER_HWC_MAX_ATTRS)
      return fail(err, err_len, "too many attributes on counter %s (at most %d)", c->name, ER_HWC_MAX_ATTRS);
    memcpy(c->attrs[c->n_attrs].name, attr, (size_t)(p - attr));
    const char *value = ++p;
    while (p < end && *p != '~' && *p != '/')
      p++;
    if (parse_number(value, p, &c->attrs[c->n_attrs].value) != 0)
      return fail(err, err_len, "invalid value \"%.*s\" for attribute %s of counter %s: use a decimal or 0x hex number",
                  (int)(p - value), value, c->attrs[c->n_attrs].name, c->name);
    c->n_attrs++;
  }
  if (p < end && *p == '/') {
    uint64_t reg;
    const char *r = ++p;
    p = end;
    if (parse_number(r, end, &reg) != 0 || reg > ER_HWC_MAX_REGISTER)
      return fail(err, err_len, "invalid register \"%.*s\" for counter %s: use a number from 0 to %d", (int)(end - r), r,
                  c->name, ER_HWC_MAX_REGISTER);
    c->reg = (int)reg;
  }
  if (p != end)
    return fail(err, err_len, "unexpected \"%.*s\" in counter \"%.*s\"", (int)(end - p), p, (int)len, s);
  return 0;
}

int er_parse_hwc_spec(const char *text, struct er_hwc_spec *spec, char *err, size_t err_len)
{
  memset(spec, 0, sizeof *spec);
  int interval_allowed = 0;
  const char *p = text;
  if (*p == '\0')
    return fail(err, err_len, "no counter given");
  for (;;) {
    size_t len = strcspn(p, ", ");
    if (len == 0)
      return fail(err, err_len, "empty item in \"%s\" (two separators in a row, or one at an end)", text);
    if (interval_allowed && is_interval_token(p, len)) {
      if (parse_interval(p, len, &spec->counters[spec->n - 1], err, err_len) != 0)
        return -1;
      interval_allowed = 0;
    } else if (is_interval_token(p, len)) {
      return fail(err, err_len, "interval \"%.*s\" does not follow a counter", (int)len, p);
    } else {
      if (spec->n == ER_HWC_MAX_COUNTERS)
        return fail(err, err_len, "too many counters (at most %d)", ER_HWC_MAX_COUNTERS);
      if (parse_definition(p, len, &spec->counters[spec->n], err, err_len) != 0)
        return -1;
      spec->n++;
      interval_allowed = 1;
    }
    p += len;
    if (*p == '\0')
      return 0;
    p++; /* the separator */
    if (*p == '\0')
      return fail(err, err_len, "empty item in \"%s\" (two separators in a row, or one at an end)", text);
  }
}

int er_format_hwc_spec(const struct er_hwc_spec *spec, char *out, size_t out_len)
{
  static const char *const rates[] = {"on", "hi", "lo"};
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < spec->n; i++) {
    const struct er_hwc_counter *c = &spec->counters[i];
    char item[512];
    int n = snprintf(item, sizeof item, "%s%s%s", i ? "," : "", c->backtrack ? "+" : "", c->name);
    for (int a = 0; a < c->n_attrs; a++)
      n += snprintf(item + n, sizeof item - (size_t)n, "~%s=0x%llx", c->attrs[a].name,
                    (unsigned long long)c->attrs[a].value);
    if (c->reg >= 0)
      n += snprintf(item + n, sizeof item - (size_t)n, "/%d", c->reg);
    if (c->rate == ER_HWC_RATE_VALUE)
      n += snprintf(item + n, sizeof item - (size_t)n, ",%llu", (unsigned long long)c->interval);
    else
      n += snprintf(item + n, sizeof item - (size_t)n, ",%s", rates[c->rate]);
    if (used + (size_t)n >= out_len)
      return -1;
    memcpy(out + used, item, (size_t)n + 1);
    used += (size_t)n;
  }
  return 0;
}
