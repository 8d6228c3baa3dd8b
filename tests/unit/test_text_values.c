/* Values and paths as bytes (experiment/format/er_text.c): what GDB passes through
 * the environment, "NAME=value" lines and the status file comes back with
 * its bytes (a newline, bytes that are not UTF-8, "hex:" itself, spaces at
 * the ends), and every byte a path can hold survives log.xml's escaping and
 * our reader's unescaping. */
#include <stdio.h>
#include <string.h>

#include "er/er_text.h"
#include "test_util.h"

static void roundtrip_value(const char *value, int expect_plain)
{
  char encoded[1024], decoded[512];
  er_value_encode(value, encoded, sizeof encoded);
  CHECK((strcmp(encoded, value) == 0) == expect_plain);
  CHECK(strchr(encoded, '\n') == NULL);
  const char *back = er_value_decode(encoded, decoded, sizeof decoded);
  CHECK(back != NULL && strcmp(back, value) == 0);
}

/* Every byte from 1 to 255, alone and around ASCII, through the escape and
 * back; the escaped text holds only what XML 1.0 allows. */
static void every_byte_through_xml(void)
{
  for (int b = 1; b < 256; b++) {
    char in[8] = {'a', (char)b, 'z', '\0'}, escaped[64];
    er_xml_escape(in, escaped, sizeof escaped);
    for (const unsigned char *p = (const unsigned char *)escaped; *p; p++)
      CHECK(*p >= 0x20 || b < 0x20); /* control bytes only as references */
    CHECK(strchr(escaped, '\n') == NULL && strchr(escaped, '\t') == NULL);
    /* What libxml2 gives back for the references: code points in UTF-8. */
    char decoded[64];
    size_t o = 0;
    for (const char *p = escaped; *p;) {
      unsigned cp;
      int used;
      if (sscanf(p, "&#x%X;%n", &cp, &used) == 1) {
        if (cp < 0x80)
          decoded[o++] = (char)cp;
        else {
          decoded[o++] = (char)(0xE0 | cp >> 12);
          decoded[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
          decoded[o++] = (char)(0x80 | (cp & 0x3F));
        }
        p += used;
      } else if (strncmp(p, "&amp;", 5) == 0) { decoded[o++] = '&'; p += 5; }
      else if (strncmp(p, "&lt;", 4) == 0) { decoded[o++] = '<'; p += 4; }
      else if (strncmp(p, "&gt;", 4) == 0) { decoded[o++] = '>'; p += 4; }
      else if (strncmp(p, "&quot;", 6) == 0) { decoded[o++] = '"'; p += 6; }
      else if (strncmp(p, "&apos;", 6) == 0) { decoded[o++] = '\''; p += 6; }
      else decoded[o++] = *p++;
    }
    decoded[o] = '\0';
    er_xml_unescape_bytes(decoded);
    if (strcmp(decoded, in) != 0)
      fprintf(stderr, "  byte 0x%02x: escaped %s\n", b, escaped);
    CHECK(strcmp(decoded, in) == 0);
  }
  /* Well-formed UTF-8 stays as it is (é, €, an emoji). */
  const char *utf8 = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
  char escaped[64];
  er_xml_escape(utf8, escaped, sizeof escaped);
  CHECK(strcmp(escaped, utf8) == 0);
}

int main(void)
{
  roundtrip_value("/tmp/plain/path.er", 1);
  roundtrip_value("with inner spaces", 1);
  roundtrip_value("d\nshell touch M #", 0);
  roundtrip_value("/tmp/cwd\xff\xfe", 0);
  roundtrip_value("hex:6162", 0);
  roundtrip_value(" leading", 0);
  roundtrip_value("trailing ", 0);
  char buf[16];
  CHECK(er_value_decode("hex:zz", buf, sizeof buf) == NULL);
  CHECK(er_value_decode("hex:616", buf, sizeof buf) == NULL);
  CHECK(er_value_decode("hex:6100", buf, sizeof buf) == NULL);
  CHECK(er_value_decode("hex:61616161616161616161616161616161", buf, sizeof buf) == NULL); /* too long */
  every_byte_through_xml();
  return TEST_EXIT();
}
