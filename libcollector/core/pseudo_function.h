/* A pseudo-function of the runtime's: a frame some CPU time is recorded
 * under that says what the time is, not a function the program ran
 * (<Thread-never-sampled>, <Not-sampled-under-load>). */
#ifndef COL_CORE_PSEUDO_FUNCTION_H
#define COL_CORE_PSEUDO_FUNCTION_H

#include <stdint.h>

/* Defines the local function NAME (a string: angle brackets, as gprofng's
 * own <Truncated-stack>), two bytes, never called, with its size so every
 * tool maps an address in it to it (gprofng and our reader name it from
 * the runtime's symbol table); and ADDRESS_OF, returning its address in
 * this process. */
#define COL_PSEUDO_FUNCTION(NAME, ADDRESS_OF)                                               \
  __asm__(".text\n"                                                                         \
          ".type \"" NAME "\", @function\n"                                                 \
          "\"" NAME "\":\n"                                                                 \
          "  nop\n"                                                                         \
          "  ret\n"                                                                         \
          ".size \"" NAME "\", . - \"" NAME "\"\n");                                        \
  uint64_t ADDRESS_OF(void)                                                                 \
  {                                                                                         \
    uint64_t pc;                                                                            \
    __asm__("lea \"" NAME "\"(%%rip), %0" : "=r"(pc));                                      \
    return pc;                                                                              \
  }

#endif
