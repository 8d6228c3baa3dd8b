/* JSON writing shared by the exports (the Firefox file and its libraries). */
#include "er_json.h"

#include <inttypes.h>

/* TEXT as a JSON string: UTF-8 kept, any other byte as the code point of
 * its value (paths and names are bytes). */
void json_string(FILE *out, const char *text)
{
  const unsigned char *p = (const unsigned char *)text;
  fputc('"', out);
  while (*p) {
    size_t len = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
    for (size_t k = 1; k < len; k++)
      if ((p[k] & 0xC0) != 0x80)
        len = 0;
    if (len == 1 && (*p == '"' || *p == '\\'))
      fprintf(out, "\\%c", *p);
    else if (len == 1 && *p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else if (len >= 1)
      fwrite(p, 1, len, out);
    else
      fprintf(out, "\\u%04x", *p), len = 1;
    p += len;
  }
  fputc('"', out);
}

void json_u64_column(FILE *out, const char *name, const uint64_t *v, size_t n, int last)
{
  fprintf(out, "\"%s\":[", name);
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
  fprintf(out, "]%s", last ? "" : ",");
}

void json_repeat_column(FILE *out, const char *name, const char *value, size_t n, int last)
{
  fprintf(out, "\"%s\":[", name);
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%s%s", i ? "," : "", value);
  fprintf(out, "]%s", last ? "" : ",");
}
