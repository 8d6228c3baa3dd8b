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

/* The length of the well-formed UTF-8 sequence at S (1 to 4), or 0: an
 * overlong form, a surrogate, beyond U+10FFFF, cut short, or one of the
 * code points that stand for raw bytes here (U+F700-U+F7FF), which would
 * read back as bytes. */
static size_t utf8_sequence(const unsigned char *s)
{
  unsigned c = s[0];
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || c > 0xF4)
    return 0;
  unsigned cp = c & (0xFF >> (n + 1));
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF) ||
      (cp >= ER_XML_BYTE_BASE && cp <= ER_XML_BYTE_BASE + 0xFF))
    return 0;
  return n;
}

/* The bytes at P XML cannot hold as they are: a control character, or a
 * byte of no UTF-8 sequence (and the code points that stand for bytes).
 * *TAKE: how many bytes the character at P spans. */
static int byte_xml_cannot_hold(const unsigned char *p, size_t *take)
{
  *take = 1;
  if (*p == '\t' || *p == '\n' || *p == '\r')
    return 0;
  if (*p < 0x20)
    return 1;
  if (*p < 0x80)
    return 0;
  *take = utf8_sequence(p);
  if (*take == 0) {
    *take = 1;
    return 1;
  }
  return 0;
}

void er_xml_visible(const char *in, char *out, size_t out_len)
{
  size_t o = 0;
  if (out_len == 0)
    return;
  for (const unsigned char *p = (const unsigned char *)in; *p != '\0';) {
    size_t take;
    char ref[16] = "";
    /* gprofng decodes the named entities (&amp; ...) but leaves character
     * references as they are written: it sees "&#xF7FF;" for a byte 0xFF,
     * "&#xA;" for a newline. */
    int kept_white = *p == '\t' || *p == '\n' || *p == '\r';
    if (kept_white || byte_xml_cannot_hold(p, &take)) {
      snprintf(ref, sizeof ref, "&#x%X;", kept_white ? (unsigned)*p : ER_XML_BYTE_BASE + *p);
      take = 1;
    }
    size_t n = ref[0] != '\0' ? strlen(ref) : take;
    if (o + n >= out_len)
      break;
    memcpy(out + o, ref[0] != '\0' ? ref : (const char *)p, n);
    o += n;
    p += take;
  }
  out[o] = '\0';
}

void er_xml_escape(const char *in, char *out, size_t out_len)
{
  size_t o = 0;
  if (out_len == 0)
    return;
  for (const unsigned char *p = (const unsigned char *)in; *p != '\0';) {
    char rep[16];
    size_t take = 1, n;
    switch (*p) {
    case '&': snprintf(rep, sizeof rep, "&amp;"); break;
    case '<': snprintf(rep, sizeof rep, "&lt;"); break;
    case '>': snprintf(rep, sizeof rep, "&gt;"); break;
    case '"': snprintf(rep, sizeof rep, "&quot;"); break;
    case '\'': snprintf(rep, sizeof rep, "&apos;"); break;
    case '\t': case '\n': case '\r': /* kept: attribute values normalise them to spaces */
      snprintf(rep, sizeof rep, "&#x%X;", *p);
      break;
    default:
      if (byte_xml_cannot_hold(p, &take)) {
        /* A byte XML cannot hold (a control character, a byte of no UTF-8
         * sequence: Linux paths are bytes): a private-use code point that
         * the reader turns back into that byte. */
        snprintf(rep, sizeof rep, "&#x%X;", ER_XML_BYTE_BASE + *p);
      } else {
        rep[0] = '\0';
      }
    }
    n = rep[0] != '\0' ? strlen(rep) : take;
    if (o + n >= out_len)
      break;
    memcpy(out + o, rep[0] != '\0' ? rep : (const char *)p, n);
    o += n;
    p += take;
  }
  out[o] = '\0';
}

size_t er_xml_unescape_bytes(char *text)
{
  unsigned char *r = (unsigned char *)text, *w = r;
  while (*r != '\0') {
    unsigned cp = r[0] == 0xEF && (r[1] & 0xC0) == 0x80 && (r[2] & 0xC0) == 0x80
                      ? (0xFu << 12) | (unsigned)(r[1] & 0x3F) << 6 | (r[2] & 0x3F)
                      : 0;
    if (cp >= ER_XML_BYTE_BASE && cp <= ER_XML_BYTE_BASE + 0xFF) {
      *w++ = (unsigned char)(cp - ER_XML_BYTE_BASE);
      r += 3;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
  return (size_t)(w - (unsigned char *)text);
}

/* A value travels as is when it is plain printable ASCII, not starting
 * with "hex:" and without spaces at its ends (what GDB's `set environment`
 * and a "NAME=value" line carry unchanged). */
static int plain_value(const char *s)
{
  size_t n = strlen(s);
  if (strncmp(s, "hex:", 4) == 0 || (n > 0 && (s[0] == ' ' || s[n - 1] == ' ')))
    return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
    if (*p < 0x20 || *p > 0x7E)
      return 0;
  return 1;
}

void er_value_encode(const char *in, char *out, size_t out_len)
{
  if (out_len == 0)
    return;
  if (plain_value(in)) {
    snprintf(out, out_len, "%s", in);
    return;
  }
  static const char digits[] = "0123456789abcdef";
  size_t o = (size_t)snprintf(out, out_len, "hex:");
  for (const unsigned char *p = (const unsigned char *)in; *p != '\0' && o + 2 < out_len; p++) {
    out[o++] = digits[*p >> 4];
    out[o++] = digits[*p & 15];
  }
  out[o < out_len ? o : out_len - 1] = '\0';
}

static int hex_digit(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

const char *er_value_decode(const char *in, char *buf, size_t buf_len)
{
  if (in == NULL || strncmp(in, "hex:", 4) != 0)
    return in;
  size_t o = 0;
  const char *p = in + 4;
  for (; p[0] != '\0' && p[1] != '\0' && o + 1 < buf_len; p += 2) {
    int hi = hex_digit(p[0]), lo = hex_digit(p[1]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
      return NULL; /* not ours, or a NUL: no such value */
    buf[o++] = (char)(hi << 4 | lo);
  }
  if (*p != '\0' || buf_len == 0)
    return NULL; /* odd length, or too long for BUF */
  buf[o] = '\0';
  return buf;
}
