/* JSON pieces the exports write (er_json.c). */
#ifndef ER_JSON_H
#define ER_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* TEXT as a JSON string: UTF-8 kept, any other byte as the code point of
 * its value (paths and names are bytes). */
void json_string(FILE *out, const char *text);
/* "NAME":[V...] (a comma after unless LAST). */
void json_u64_column(FILE *out, const char *name, const uint64_t *v, size_t n, int last);
/* "NAME":[VALUE repeated N times]. */
void json_repeat_column(FILE *out, const char *name, const char *value, size_t n, int last);

#endif
