/* Reading Thread Analyzer's packets (er_tha.h: lock orders, deadlocks,
 * data races) back from the synctrace file: a packet that is too short,
 * or names no lock or address, is damaged, skipped and counted. */
#include <stdlib.h>
#include <string.h>

#include "er/er_reader.h"
#include "er_reader_parts.h"
#include "er/er_tha.h"

void er_collect_lock_order(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_LOCK_ORDER)
    return;
  struct er_lock_order_packet pk;
  if (size < sizeof pk) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  if (pk.sobj == 0 || pk.dvaddr == 0 || pk.sobj == pk.dvaddr ||
      (pk.dtype != ER_LOCK_ORDER && pk.dtype != ER_LOCK_DEADLOCK)) {
    exp->damaged_packets++;
    return;
  }
  struct er_lock_order *grown = realloc(exp->lock_orders, (exp->n_lock_orders + 1) * sizeof *grown);
  if (grown == NULL)
    return;
  exp->lock_orders = grown;
  exp->lock_orders[exp->n_lock_orders++] = (struct er_lock_order){
      pk.dthread, pk.tstamp, pk.frinfo, pk.sobj, pk.dvaddr, pk.heldpc, pk.did, pk.dltype, pk.heldtype, pk.dtype};
}

void er_collect_race(const unsigned char *p, uint16_t type, uint16_t size, void *arg)
{
  struct er_experiment *exp = arg;
  if (type != ER_PKT_RACE)
    return;
  struct er_race_packet pk;
  if (size < sizeof pk) {
    exp->damaged_packets++;
    return;
  }
  memcpy(&pk, p, sizeof pk);
  if (pk.rvaddr == 0 || pk.rid <= 0 ||
      (pk.rtype != ER_RACE_WRITE && pk.rtype != ER_RACE_READ && pk.rtype != ER_RACE_ALLOCATION)) {
    exp->damaged_packets++;
    return;
  }
  if (pk.rtype == ER_RACE_ALLOCATION) {
    /* The heap block of the accesses just read (the same race number). */
    for (size_t k = exp->n_races; k > 0 && exp->races[k - 1].number == pk.rid; k--) {
      exp->races[k - 1].alloc_frinfo = pk.frinfo;
      exp->races[k - 1].alloc_tid = pk.rtid;
    }
    return;
  }
  struct er_race_access *grown = realloc(exp->races, (exp->n_races + 1) * sizeof *grown);
  if (grown == NULL)
    return;
  exp->races = grown;
  struct er_race_access a = {pk.thrid,  pk.tstamp,  pk.frinfo, pk.rid,    pk.rtype == ER_RACE_WRITE, pk.rsize,
                            pk.rtid,   pk.ratomic, pk.rvaddr, pk.leafpc, pk.rlocstart,             pk.rlocsize,
                            0,         {0},        0,                         0};
  for (int i = 0; i < pk.rlocks && i < ER_RACE_LOCKS; i++)
    if (pk.rlock[i] != 0)
      a.locks[a.n_locks++] = pk.rlock[i];
  exp->races[exp->n_races++] = a;
}
