/* The data kinds an experiment holds, in one table shared by the writer
 * (the runtime and the sampler process), the reader and the GDB plugin:
 * each kind's <profile> name in log.xml (also its data file's name), the
 * runtime setting that turns it on, the collector subcommand, its packet
 * type and size, and the fields its <profpckt> declares, with offsets
 * taken from the packet structs (er_format.h).  A new kind is one entry
 * here, its packet struct, its source and its reader. */
#ifndef GDBCOL_ER_DATA_KINDS_H
#define GDBCOL_ER_DATA_KINDS_H

#include <stddef.h>
#include <stdint.h>

enum er_kind {
  ER_KIND_CLOCK,
  ER_KIND_SYNC,
  ER_KIND_IO,
  ER_KIND_HEAP,
  ER_KIND_HWC,
  ER_KIND_MPI,
  ER_KIND_LOCK_ORDER,
  ER_KIND_RACE,
  ER_N_KINDS
};

struct er_field_desc {
  const char *name;  /* gprofng's property name */
  const char *uname; /* its display name, or NULL */
  uint16_t offset;
  const char *type; /* INT32, INT64, UINT64, STRING */
};

struct er_kind_desc {
  const char *name;     /* <profile name=…> and the data file (unless FILE), the status's key */
  const char *setting;  /* the runtime's GDBCOL_ variable for it */
  const char *command;  /* the collector subcommand that sets it */
  uint16_t packet_type; /* ER_PKT_… */
  uint16_t packet_size; /* fixed size, or the least size of a variable one */
  int variable_size;    /* packets end with a string, rounded up to 8 */
  const char *packet_uname;
  const struct er_field_desc *fields;
  size_t n_fields;
  /* gprofng's hardware-counter shape (§3.5): the data file and packet at
   * the top level of log.xml, then one empty <profile name="hwcounter" …/>
   * per counter, which the caller gives as the block's ATTRIBUTES. */
  int counters;
  const char *title; /* what log.xml's comments and messages call it */
  /* Recorded by the runtime's wrappers as events on the trace ring (its
   * setting: on unless empty or "off"), not sampled by the kernel. */
  int traced;
  /* What one of its packets stands for, and many (GDB's closing line:
   * "12 allocations and frees"); NULL for the clock (said in seconds). */
  const char *event_one, *event_many;
  /* The <profile> name and data file when they are another kind's (a kind
   * gprofng has no reader for, written in the shape of one it has); NULL:
   * NAME. */
  const char *file;
};

extern const struct er_kind_desc er_kinds[ER_N_KINDS];

/* The <profile> name of each counter of the hardware-counter kind. */
#define ER_HWC_PROFILE_NAME "hwcounter"
/* The kind named NAME, or NULL. */
const struct er_kind_desc *er_kind_named(const char *name);
/* The kind whose data file holds KIND's packets (KIND itself, unless its
 * FILE is another kind's name). */
enum er_kind er_kind_file_owner(enum er_kind kind);
/* The kind whose packets have type TYPE, or -1. */
int er_kind_of_packet_type(unsigned type);
/* KIND's <profile> block for log.xml, with ATTRIBUTES (already formatted,
 * may be "") in its opening tag: the data file and the packet's fields.
 * For a kind with counters, ATTRIBUTES are the counters' own <profile/>
 * elements, written after the packet.  Returns the length written (as
 * snprintf). */
int er_kind_profile_block(enum er_kind kind, const char *attributes, char *out, size_t len);

#endif
