/* Text pieces of log.xml and map.xml: timestamps and XML escaping (whole
 * lines are written by er/er_recordfile.h). */
#ifndef ER_TEXT_H
#define ER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* "SECONDS.NNNNNNNNN": the reader converts each half with atoi, so the
 * fraction must always have nine digits (§2.2). */
void er_format_tstamp(char *out, size_t out_len, int64_t ns);

/* Bytes XML cannot hold (control characters, bytes of no UTF-8 sequence:
 * a path's, a command line's) are written as the private-use code points
 * U+F700 + byte, and read back as that byte. */
#define ER_XML_BYTE_BASE 0xF700u

/* Copies IN to OUT with &, <, >, " and ' escaped, tab, newline and return
 * as character references, and bytes XML cannot hold as above; truncates
 * safely (at a whole character).  gprofng reads the result. */
void er_xml_escape(const char *in, char *out, size_t out_len);
/* IN as gprofng reads it back from er_xml_escape's text: it decodes the
 * named entities but not character references, so a byte XML cannot hold
 * stays "&#xF7NN;" and a newline "&#xA;" (gprofng names the archived copy
 * of a load object, and opens it, by that text). */
void er_xml_visible(const char *in, char *out, size_t out_len);
/* In place: each U+F700 + byte back into that byte; the new length. */
size_t er_xml_unescape_bytes(char *text);

/* Values GDB passes through the program's environment or as "NAME=value"
 * lines, and the status file's: plain printable ASCII as is, anything else
 * (a newline, bytes that are not UTF-8, spaces at the ends) as "hex:" and
 * its bytes in hex, so that no value becomes a second GDB command or line
 * and every path arrives with its bytes.  Decode: IN itself when plain,
 * else its bytes in BUF; NULL when malformed or longer than BUF. */
void er_value_encode(const char *in, char *out, size_t out_len);
const char *er_value_decode(const char *in, char *buf, size_t buf_len);

#endif
