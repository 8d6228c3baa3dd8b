/* The Collector API for generated code: functions loaded and unloaded. */
#ifndef COL_RUNTIME_DYNAMIC_FUNCTIONS_H
#define COL_RUNTIME_DYNAMIC_FUNCTIONS_H

/* Oracle's Lineno: a code offset and its source line. */
struct col_lineno {
  unsigned int offset, lineno;
};
/* collector_func_load: SIZE bytes of code at VADDR named NAME (NULL: its
 * address), from SOURCE with N_LINES line entries: a map.xml function
 * record (the sampler's, or the runtime thread's) and a dyntext entry with
 * the code bytes.  collector_func_unload: its unmap record. */
void col_func_load(const char *name, const char *source, const void *vaddr, int size, int n_lines,
                   const struct col_lineno *lines);
void col_func_unload(const void *vaddr);

#endif
