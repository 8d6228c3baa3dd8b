/* The table of data kinds (er_data_kinds.h): every field lies inside its
 * packet, names are unique and found by name, and the <profile> blocks
 * are those gprofng's collector writes (the clock block below is the text
 * gprofng 2.40 read in every earlier experiment, before the table). */
#include <string.h>

#include "er/er_data_kinds.h"
#include "test_util.h"

static size_t width(const char *type)
{
  return strcmp(type, "INT32") == 0 || strcmp(type, "UINT32") == 0 ? 4
         : strcmp(type, "INT64") == 0 || strcmp(type, "UINT64") == 0 ? 8
                                                                                                       : 1; /* STRING: at least its NUL */
}

static const char clock_block[] =
    "<profile name=\"profile\" ptimer=\"997\" numstates=\"1\">\n"
    "  <profdata fname=\"profile\"/>\n"
    "  <profpckt kind=\"8\" uname=\"Clock profiling data\">\n"
    "    <field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" type=\"INT64\"/>\n"
    "    <field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"
    "    <field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"
    "    <field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"28\" type=\"INT64\"/>\n"
    "    <field name=\"FRINFO\" offset=\"36\" type=\"INT64\"/>\n"
    "    <field name=\"MSTATE\" uname=\"Thread state\" offset=\"44\" type=\"INT32\"/>\n"
    "    <field name=\"NTICK\" uname=\"Duration\" offset=\"48\" type=\"INT32\"/>\n"
    "  </profpckt>\n"
    "</profile>\n";

int main(void)
{
  for (int k = 0; k < ER_N_KINDS; k++) {
    const struct er_kind_desc *d = &er_kinds[k];
    CHECK(er_kind_named(d->name) == d);
    CHECK(strncmp(d->setting, "GDBCOL_", 7) == 0);
    CHECK(d->n_fields >= 5 && strcmp(d->fields[0].name, "LWPID") == 0);
    for (size_t i = 0; i < d->n_fields; i++) {
      CHECK(d->fields[i].offset >= 8 && d->fields[i].offset + width(d->fields[i].type) <= d->packet_size);
      for (size_t j = 0; j < i; j++)
        CHECK(strcmp(d->fields[i].name, d->fields[j].name) != 0);
    }
    for (int j = 0; j < k; j++)
      CHECK(strcmp(er_kinds[j].name, d->name) != 0 && strcmp(er_kinds[j].setting, d->setting) != 0);
  }
  CHECK(er_kind_named("no such kind") == NULL);
  /* MPI calls are written in the I/O kind's file and <profile> (gprofng has
   * no MPI reader), as packets of their own type. */
  CHECK(er_kind_file_owner(ER_KIND_MPI) == ER_KIND_IO && er_kind_file_owner(ER_KIND_IO) == ER_KIND_IO);
  CHECK(er_kind_of_packet_type(6) == ER_KIND_MPI && er_kind_of_packet_type(19) == ER_KIND_IO);
  CHECK(er_kind_of_packet_type(11) == -1);
  char block[4096];
  int n = er_kind_profile_block(ER_KIND_CLOCK, "ptimer=\"997\" numstates=\"1\"", block, sizeof block);
  CHECK(n == (int)strlen(clock_block) && strcmp(block, clock_block) == 0);
  n = er_kind_profile_block(ER_KIND_MPI, "", block, sizeof block);
  const char *mpi_head = "<profile name=\"iotrace\">\n  <profdata fname=\"iotrace\"/>\n  <profpckt kind=\"6\" ";
  CHECK(n > 0 && strncmp(block, mpi_head, strlen(mpi_head)) == 0);
  CHECK(strstr(block, "<field name=\"MPIPEER\" uname=\"MPI peer rank\" offset=\"84\" type=\"INT32\"/>") != NULL);
  n = er_kind_profile_block(ER_KIND_IO, "", block, sizeof block);
  CHECK(strncmp(block, "<profile name=\"iotrace\">\n", 25) == 0);
  CHECK(strstr(block, "<field name=\"IOFNAME\" uname=\"File name\" offset=\"80\" type=\"STRING\"/>") != NULL);
  CHECK(strstr(block, "<field name=\"IORQST\" uname=\"Time of IO requested\" offset=\"64\" type=\"INT64\"/>") != NULL);
  n = er_kind_profile_block(ER_KIND_SYNC, "threshold=\"-1\" scope=\"1\"", block, sizeof block);
  CHECK(strstr(block, "<field name=\"SOBJ\" uname=\"Synchronization object address\" offset=\"56\" type=\"INT64\"/>"));
  /* gprofng's own heaptrace block: unsigned sizes and addresses */
  n = er_kind_profile_block(ER_KIND_HEAP, "", block, sizeof block);
  CHECK(strstr(block, "<profpckt kind=\"5\" uname=\"Heap tracing data\">") != NULL);
  CHECK(strstr(block, "<field name=\"HTYPE\" uname=\"Heap trace function type\" offset=\"48\" type=\"INT32\"/>"));
  CHECK(strstr(block, "<field name=\"HOVADDR\" uname=\"Previous memory address\" offset=\"72\" type=\"UINT64\"/>"));
  /* Counters: gprofng's own shape (the data description at the top level,
   * then one empty <profile name="hwcounter"/> per counter); gprofng 2.40
   * showed "Excl. page-faults Events" for a synthetic experiment in it. */
  const char *counter = "<profile name=\"hwcounter\" cpuver=\"-1\" hwcname=\"page-faults\" int_name=\"page-faults\" "
                        "interval=\"100\" tag=\"0\" memop=\"0\"/>\n";
  n = er_kind_profile_block(ER_KIND_HWC, counter, block, sizeof block);
  const char *head = "<profdata fname=\"hwcounters\"/>\n  <profpckt kind=\"3\"";
  CHECK(strncmp(block, head, strlen(head)) == 0);
  CHECK(strstr(block, "<field name=\"HWCTAG\" uname=\"Hardware counter index\" offset=\"48\" type=\"INT32\"/>"));
  CHECK(strstr(block, "<field name=\"HWCINT\" uname=\"Hardware counter interval\" offset=\"56\" type=\"INT64\"/>"));
  CHECK(strstr(block, "</profpckt>\n<profile name=\"hwcounter\"") != NULL && strstr(block, "<profile name=\"hwcounters\"") == NULL);
  CHECK(n == (int)strlen(block) && strcmp(block + n - strlen(counter), counter) == 0);
  char small[16]; /* cut short, never past the buffer; the length says how much was wanted */
  CHECK(er_kind_profile_block(ER_KIND_CLOCK, "", small, sizeof small) > (int)sizeof small && strlen(small) == 15);
  return TEST_EXIT();
}
