/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softib: P_Key tables and the P_Key match rule (IBTA 10.9).
 */
#ifndef SIB_PKEY_H
#define SIB_PKEY_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/bitmap.h>

#include "params.h"

#define SIB_PKEY_FULL		0x8000	/* membership bit: full member */
#define SIB_PKEY_BASE_MASK	0x7fff	/* the partition number */
#define SIB_PKEY_SPACE		0x8000	/* number of partition numbers */

/*
 * struct sib_pkey_tbl - one immutable version of a port's P_Key table
 * @pkey: entries by index; 0 marks an invalid (empty) entry
 * @member: partition numbers (low 15 bits) of the valid entries
 * @full: partition numbers of the valid full-member entries
 *
 * Replaced as a whole on every change and freed after an RCU grace
 * period, so a reader sees one consistent table.
 */
struct sib_pkey_tbl {
	struct rcu_head rcu;
	u16 pkey[SIB_MAX_PKEYS];
	DECLARE_BITMAP(member, SIB_PKEY_SPACE);
	DECLARE_BITMAP(full, SIB_PKEY_SPACE);
};

/*
 * struct sib_pkey_port - the P_Key table of one port
 * @lock: serializes writers (process context)
 * @tbl: current table; readers under rcu_read_lock(), any context
 */
struct sib_pkey_port {
	struct mutex lock;
	struct sib_pkey_tbl __rcu *tbl;
};

/**
 * sib_pkey_valid() - is @pkey a P_Key that may be in a table or on the wire?
 * @pkey: P_Key
 *
 * 0x0000 and 0x8000 (partition number 0) are invalid (IBTA 10.9.1.2).
 * Context: any. Return: true when valid.
 */
static inline bool sib_pkey_valid(u16 pkey)
{
	return (pkey & SIB_PKEY_BASE_MASK) != 0;
}

/**
 * sib_pkey_match() - P_Key match rule (IBTA 10.9.3)
 * @a: one P_Key (e.g. from the BTH)
 * @b: the other (e.g. a table entry)
 *
 * Two P_Keys match when both are valid, their partition numbers (low 15
 * bits) are equal and at least one of them is a full member (bit 15):
 * two limited members of a partition cannot talk to each other.
 * Context: any. Return: true on a match.
 */
static inline bool sib_pkey_match(u16 a, u16 b)
{
	return sib_pkey_valid(a) &&
	       !((a ^ b) & SIB_PKEY_BASE_MASK) &&
	       ((a | b) & SIB_PKEY_FULL);
}

int sib_pkey_port_init(struct sib_pkey_port *port);
void sib_pkey_port_destroy(struct sib_pkey_port *port);
u16 sib_pkey_at(struct sib_pkey_port *port, u32 index);
bool sib_pkey_port_accepts(struct sib_pkey_port *port, u16 pkey);
bool sib_pkey_loop_ok(struct sib_pkey_port *port, u32 sidx, u32 ridx);
u16 sib_pkey_find(struct sib_pkey_port *port, u16 pkey);
int sib_pkey_set(struct sib_pkey_port *port, u32 index, u16 pkey);
int sib_pkey_del(struct sib_pkey_port *port, u32 index);

#endif /* SIB_PKEY_H */
