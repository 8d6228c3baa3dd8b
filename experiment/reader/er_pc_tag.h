/* A PC tagged with the segment it ran in (er_reused_ranges.c makes them,
 * er_lookup.c reads them): the segment's index + 1 in the bits above the
 * address. */
#ifndef ER_PC_TAG_H
#define ER_PC_TAG_H

#define TAG_SHIFT 48
#define TAG_MAX 0x3FFFu /* 14 bits: below the special values' high bits */

#endif
