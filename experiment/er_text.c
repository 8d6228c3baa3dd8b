/* Text helpers for log.xml and map.xml; see er/er_text.h. */
#include "er/er_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "er/er_fileutil.h"

void er_format_tstamp(char *out, size_t out_len, int64_t ns)
{
  const char *sign = "";
  if (ns < 0) {
    sign = "-";
    ns = -ns;
  }
  snprintf(out, out_len, "%s%lld.%09lld", sign, (long long)(ns / 1000000000), (long long)(ns % 1000000000));
}

void er_xml_escape(const char *in, char *out, size_t out_len)
{
  size_t o = 0;
  if (out_len == 0)
    return;
  for (; *in != '\0'; in++) {
    const char *rep = NULL;
    switch (*in) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&apos;"; break;
    }
    size_t n = rep ? strlen(rep) : 1;
    if (o + n >= out_len)
      break;
    if (rep)
      memcpy(out + o, rep, n);
    else
      out[o] = *in;
    o += n;
  }
  out[o] = '\0';
}

int er_text_printf(int fd, const char *fmt, ...)
{
  char line[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0)
    return -1;
  if ((size_t)n >= sizeof line) {
    /* Never write a truncated tag: that is a fatal parse error (§13). */
    return -1;
  }
  return er_write_all(fd, line, (size_t)n);
}
