/* The load objects the Firefox export's functions come from
 * (er_firefox_libs.c): the profile's libs and resource tables, and each
 * function's resource, so that the profiler names a function with its
 * library ("compute_phase (offcpu_mix)") and can symbolicate by build id. */
#ifndef ER_FIREFOX_LIBS_H
#define ER_FIREFOX_LIBS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "er/er_reader.h"
#include "er_intern.h"

struct er_firefox_libs {
  struct er_id_table paths; /* load objects by their path's string index: lib i's */
  uint64_t *name;           /* lib i's base name (string index) */
  size_t name_room;
  int64_t *func_lib;        /* by function index: its lib's index + 1, 0 when not known */
  size_t func_room;
};

/* Function FUNC has code at PC of EXP: its library is PC's load object
 * (the first one met for a function of that name). */
void er_firefox_libs_note(struct er_firefox_libs *l, struct er_strings *strings, const struct er_experiment *exp,
                          uint64_t func, uint64_t pc);
/* "libs":[...], (each: name, path, debug name and path, breakpad and code
 * ids from the file's build id, arch). */
void er_firefox_libs_write(FILE *out, const struct er_firefox_libs *l, const struct er_strings *strings);
/* "resource":[...] for N_FUNCS functions (a comma after). */
void er_firefox_libs_write_func_resources(FILE *out, const struct er_firefox_libs *l, size_t n_funcs);
/* "resourceTable":{...}, (a library resource per lib). */
void er_firefox_libs_write_resources(FILE *out, const struct er_firefox_libs *l);
void er_firefox_libs_free(struct er_firefox_libs *l);

#endif
