/* Text pieces of log.xml and map.xml: timestamps, XML escaping, and
 * whole-line writes (a reader of a live experiment never sees half a line). */
#ifndef ER_TEXT_H
#define ER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* "SECONDS.NNNNNNNNN": the reader converts each half with atoi, so the
 * fraction must always have nine digits (§2.2). */
void er_format_tstamp(char *out, size_t out_len, int64_t ns);

/* Copies IN to OUT with &, <, >, " and ' escaped; truncates safely. */
void er_xml_escape(const char *in, char *out, size_t out_len);

/* Formats one or more complete lines and writes them with one write(2). */
int er_text_printf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
