/* The table of data kinds: see er_data_kinds.h. */
#include "er/er_data_kinds.h"

#include <stdio.h>
#include <string.h>

#include "er/er_format.h"
#include "er/er_mpi.h"
#include "er/er_tha.h"

#define FIELD(type, member, name, uname, kind) {name, uname, (uint16_t)offsetof(type, member), kind}
/* The common header (§5.3): where each packet struct puts it. */
#define HEADER_FIELDS(type)                                                     \
  FIELD(type, lwpid, "LWPID", "Lightweight process id", "INT64"),              \
      FIELD(type, thrid, "THRID", "Thread number", "INT64"),                   \
      FIELD(type, cpuid, "CPUID", "CPU id", "INT32"),                          \
      FIELD(type, tstamp, "TSTAMP", "High resolution timestamp", "INT64"),     \
      FIELD(type, frinfo, "FRINFO", NULL, "INT64")

static const struct er_field_desc clock_fields[] = {
    HEADER_FIELDS(struct er_clock_packet),
    FIELD(struct er_clock_packet, mstate, "MSTATE", "Thread state", "INT32"),
    FIELD(struct er_clock_packet, ntick, "NTICK", "Duration", "INT32"),
};

static const struct er_field_desc sync_fields[] = {
    HEADER_FIELDS(struct er_sync_packet),
    FIELD(struct er_sync_packet, srqst, "SRQST", "Synchronization start time", "INT64"),
    FIELD(struct er_sync_packet, sobj, "SOBJ", "Synchronization object address", "INT64"),
};

static const struct er_field_desc io_fields[] = {
    HEADER_FIELDS(struct er_io_packet),
    FIELD(struct er_io_packet, iotype, "IOTYPE", "IO trace function type", "INT32"),
    FIELD(struct er_io_packet, iofd, "IOFD", "File descriptor", "INT32"),
    FIELD(struct er_io_packet, ionbyte, "IONBYTE", "Number of bytes", "INT64"),
    FIELD(struct er_io_packet, iorqst, "IORQST", "Time of IO requested", "INT64"),
    FIELD(struct er_io_packet, iofd_original, "IOOFD", "Original file descriptor", "INT32"),
    FIELD(struct er_io_packet, iofstype, "IOFSTYPE", "File system type", "INT32"),
    FIELD(struct er_io_packet, iofname, "IOFNAME", "File name", "STRING"),
};

static const struct er_field_desc heap_fields[] = {
    HEADER_FIELDS(struct er_heap_packet),
    FIELD(struct er_heap_packet, htype, "HTYPE", "Heap trace function type", "INT32"),
    FIELD(struct er_heap_packet, hsize, "HSIZE", "Memory size", "UINT64"),
    FIELD(struct er_heap_packet, hvaddr, "HVADDR", "Memory address", "UINT64"),
    FIELD(struct er_heap_packet, hovaddr, "HOVADDR", "Previous memory address", "UINT64"),
};

static const struct er_field_desc hwc_fields[] = {
    HEADER_FIELDS(struct er_hwc_packet),
    FIELD(struct er_hwc_packet, hwctag, "HWCTAG", "Hardware counter index", "INT32"),
    FIELD(struct er_hwc_packet, hwcint, "HWCINT", "Hardware counter interval", "INT64"),
};

/* gprofng reads them as I/O (er_mpi.h); the MPI fields become properties
 * it can filter on. */
static const struct er_field_desc mpi_fields[] = {
    HEADER_FIELDS(struct er_mpi_packet),
    FIELD(struct er_mpi_packet, iotype, "IOTYPE", "IO trace function type", "INT32"),
    FIELD(struct er_mpi_packet, iofd, "IOFD", "File descriptor", "INT32"),
    FIELD(struct er_mpi_packet, ionbyte, "IONBYTE", "Number of bytes", "INT64"),
    FIELD(struct er_mpi_packet, iorqst, "IORQST", "Time of IO requested", "INT64"),
    FIELD(struct er_mpi_packet, iofd_original, "IOOFD", "Original file descriptor", "INT32"),
    FIELD(struct er_mpi_packet, iofstype, "IOFSTYPE", "File system type", "INT32"),
    FIELD(struct er_mpi_packet, mpifunc, "MPIFUNC", "MPI function", "INT32"),
    FIELD(struct er_mpi_packet, mpipeer, "MPIPEER", "MPI peer rank", "INT32"),
    FIELD(struct er_mpi_packet, mpitag, "MPITAG", "MPI message tag", "INT32"),
    FIELD(struct er_mpi_packet, mpicomm, "MPICOMM", "MPI communicator", "INT32"),
    FIELD(struct er_mpi_packet, mpiscount, "MPISCOUNT", "MPI sends", "UINT32"),
    FIELD(struct er_mpi_packet, mpircount, "MPIRCOUNT", "MPI receives", "UINT32"),
    FIELD(struct er_mpi_packet, mpisbytes, "MPISBYTES", "MPI bytes sent", "INT64"),
    FIELD(struct er_mpi_packet, mpirbytes, "MPIRBYTES", "MPI bytes received", "INT64"),
    FIELD(struct er_mpi_packet, mpipart, "MPIPART", "MPI message of the call", "INT32"),
    FIELD(struct er_mpi_packet, iofname, "IOFNAME", "File name", "STRING"),
};

/* gprofng reads them as synchronization events of no length (er_tha.h);
 * DID, DTYPE, DLTYPE and DVADDR are names it predefines. */
static const struct er_field_desc lock_order_fields[] = {
    HEADER_FIELDS(struct er_lock_order_packet),
    FIELD(struct er_lock_order_packet, srqst, "SRQST", "Synchronization start time", "INT64"),
    FIELD(struct er_lock_order_packet, sobj, "SOBJ", "Synchronization object address", "INT64"),
    FIELD(struct er_lock_order_packet, did, "DID", "Lock order number", "INT32"),
    FIELD(struct er_lock_order_packet, dtype, "DTYPE", "Deadlock event type", "INT32"),
    FIELD(struct er_lock_order_packet, dltype, "DLTYPE", "Lock type", "INT32"),
    FIELD(struct er_lock_order_packet, heldtype, "HELDTYPE", "Held lock type", "INT32"),
    FIELD(struct er_lock_order_packet, dvaddr, "DVADDR", "Lock held", "UINT64"),
    FIELD(struct er_lock_order_packet, heldpc, "HELDPC", "Where the lock held was taken", "UINT64"),
    FIELD(struct er_lock_order_packet, dthread, "DTHREAD", "Thread", "INT64"),
};

/* The same for data races; RID, RTYPE, RVADDR and LEAFPC are gprofng's
 * names. */
static const struct er_field_desc race_fields[] = {
    HEADER_FIELDS(struct er_race_packet),
    FIELD(struct er_race_packet, srqst, "SRQST", "Synchronization start time", "INT64"),
    FIELD(struct er_race_packet, sobj, "SOBJ", "Synchronization object address", "INT64"),
    FIELD(struct er_race_packet, rid, "RID", "Race id", "INT32"),
    FIELD(struct er_race_packet, rtype, "RTYPE", "Race access type", "INT32"),
    FIELD(struct er_race_packet, rvaddr, "RVADDR", "Race address", "UINT64"),
    FIELD(struct er_race_packet, leafpc, "LEAFPC", "Leaf PC", "UINT64"),
    FIELD(struct er_race_packet, rsize, "RSIZE", "Bytes accessed", "INT32"),
    FIELD(struct er_race_packet, rtid, "RTID", "Sanitizer thread", "INT32"),
    FIELD(struct er_race_packet, ratomic, "RATOMIC", "Atomic access", "INT32"),
    FIELD(struct er_race_packet, rlocks, "RLOCKS", "Mutexes held", "INT32"),
};

#define FIELDS(array) array, sizeof array / sizeof array[0]

const struct er_kind_desc er_kinds[ER_N_KINDS] = {
    [ER_KIND_CLOCK] = {"profile", "GDBCOL_CLOCK_US", "profile", ER_PKT_CLOCK, sizeof(struct er_clock_packet), 0,
                       "Clock profiling data", FIELDS(clock_fields), 0, "Clock profiling", 0, NULL, NULL},
    [ER_KIND_SYNC] = {"synctrace", "GDBCOL_SYNCTRACE", "synctrace", ER_PKT_SYNC, sizeof(struct er_sync_packet), 0,
                      "Synchronization tracing data", FIELDS(sync_fields), 0, "Synchronization-wait tracing", 1, "synchronization wait", "synchronization waits"},
    [ER_KIND_IO] = {"iotrace", "GDBCOL_IOTRACE", "iotrace", ER_PKT_IOTRACE, sizeof(struct er_io_packet), 1,
                    "IO tracing data", FIELDS(io_fields), 0, "I/O tracing", 1, "I/O call", "I/O calls"},
    [ER_KIND_HEAP] = {"heaptrace", "GDBCOL_HEAPTRACE", "heaptrace", ER_PKT_HEAP, sizeof(struct er_heap_packet), 0,
                      "Heap tracing data", FIELDS(heap_fields), 0, "Heap tracing", 1, "allocation or free", "allocations and frees"},
    [ER_KIND_HWC] = {"hwcounters", "GDBCOL_HWC", "hwprofile", ER_PKT_HW, sizeof(struct er_hwc_packet), 0,
                     "Hardware counter profiling data", FIELDS(hwc_fields), 1, "Counter profiling", 0, "counter overflow sample", "counter overflow samples"},
    [ER_KIND_MPI] = {"mpitrace", "GDBCOL_MPITRACE", "mpitrace", ER_PKT_MPI, sizeof(struct er_mpi_packet), 1,
                     "MPI tracing data", FIELDS(mpi_fields), 0, "MPI tracing", 1, "MPI call", "MPI calls", "iotrace"},
    [ER_KIND_LOCK_ORDER] = {"deadlocktrace", "GDBCOL_THA_DEADLOCK", "tha", ER_PKT_LOCK_ORDER,
                            sizeof(struct er_lock_order_packet), 0, "Lock order data", FIELDS(lock_order_fields), 0,
                            "Deadlock detection (lock orders)", 1, "lock order", "lock orders", "synctrace"},
    [ER_KIND_RACE] = {"racetrace", "GDBCOL_THA_RACE", "tha", ER_PKT_RACE, sizeof(struct er_race_packet), 0,
                      "Data race data", FIELDS(race_fields), 0, "Data race detection (ThreadSanitizer)", 1,
                      "data race record", "data race records", "synctrace"},
};

const struct er_kind_desc *er_kind_named(const char *name)
{
  for (int k = 0; k < ER_N_KINDS; k++)
    if (strcmp(er_kinds[k].name, name) == 0)
      return &er_kinds[k];
  return NULL;
}

enum er_kind er_kind_file_owner(enum er_kind kind)
{
  const struct er_kind_desc *owner = er_kinds[kind].file != NULL ? er_kind_named(er_kinds[kind].file) : NULL;
  return owner != NULL ? (enum er_kind)(owner - er_kinds) : kind;
}

int er_kind_of_packet_type(unsigned type)
{
  for (int k = 0; k < ER_N_KINDS; k++)
    if (er_kinds[k].packet_type == type)
      return k;
  return -1;
}

int er_kind_profile_block(enum er_kind kind, const char *attributes, char *out, size_t len)
{
  const struct er_kind_desc *d = &er_kinds[kind];
  const char *file = d->file != NULL ? d->file : d->name;
  size_t at = 0;
#define ADD(...)                                                               \
  do {                                                                         \
    int n_ = snprintf(out + (at < len ? at : len), at < len ? len - at : 0, __VA_ARGS__); \
    at += n_ > 0 ? (size_t)n_ : 0;                                             \
  } while (0)
  if (d->counters)
    ADD("<profdata fname=\"%s\"/>\n  <profpckt kind=\"%u\" uname=\"%s\">\n", file, (unsigned)d->packet_type,
        d->packet_uname);
  else
    ADD("<profile name=\"%s\"%s%s>\n  <profdata fname=\"%s\"/>\n  <profpckt kind=\"%u\" uname=\"%s\">\n", file,
        attributes[0] != '\0' ? " " : "", attributes, file, (unsigned)d->packet_type, d->packet_uname);
  for (size_t i = 0; i < d->n_fields; i++) {
    const struct er_field_desc *f = &d->fields[i];
    ADD("    <field name=\"%s\"", f->name);
    if (f->uname != NULL)
      ADD(" uname=\"%s\"", f->uname);
    ADD(" offset=\"%u\" type=\"%s\"/>\n", (unsigned)f->offset, f->type);
  }
  if (d->counters)
    ADD("  </profpckt>\n%s", attributes);
  else
    ADD("  </profpckt>\n</profile>\n");
#undef ADD
  return (int)at;
}
