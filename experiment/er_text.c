/* Text helpers for log.xml and map.xml; see er/er_text.h. */
#include "er/er_text.h"

#include <stdio.h>
#include <string.h>


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
