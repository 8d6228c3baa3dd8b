/* Text pieces of log.xml and map.xml: timestamps and XML escaping (whole
 * lines are written by er/er_recordfile.h). */
#ifndef ER_TEXT_H
#define ER_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* "SECONDS.NNNNNNNNN": the reader converts each half with atoi, so the
 * fraction must always have nine digits (§2.2). */
void er_format_tstamp(char *out, size_t out_len, int64_t ns);

/* Copies IN to OUT with &, <, >, " and ' escaped; truncates safely. */
void er_xml_escape(const char *in, char *out, size_t out_len);

#endif
