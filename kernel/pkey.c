// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the P_Key table of a port (IBTA 10.9). Writers (the "softib"
 * generic netlink family) build a new table and publish it with RCU;
 * the receive path answers "does any entry match this BTH P_Key?" in
 * constant time from two bitmaps indexed by the partition number, the
 * engines read the entry of a QP's pkey_index for every packet they
 * build, so a change applies to existing QPs from their next packet on.
 */
#include <linux/slab.h>

#include "pkey.h"

static void sib_pkey_tbl_index(struct sib_pkey_tbl *t)
{
	unsigned int i;

	bitmap_zero(t->member, SIB_PKEY_SPACE);
	bitmap_zero(t->full, SIB_PKEY_SPACE);
	for (i = 0; i < SIB_MAX_PKEYS; i++) {
		if (!sib_pkey_valid(t->pkey[i]))
			continue;
		__set_bit(t->pkey[i] & SIB_PKEY_BASE_MASK, t->member);
		if (t->pkey[i] & SIB_PKEY_FULL)
			__set_bit(t->pkey[i] & SIB_PKEY_BASE_MASK, t->full);
	}
}

/**
 * sib_pkey_port_init() - a table with only the default P_Key at index 0
 * @port: the port's table, not yet in use
 *
 * Index 0 holds 0xFFFF (the default partition, full member), as a port
 * without a subnet manager has it (IBTA 10.9.1.1).
 * Context: process. Return: 0 or -ENOMEM.
 */
int sib_pkey_port_init(struct sib_pkey_port *port)
{
	struct sib_pkey_tbl *t = kzalloc(sizeof(*t), GFP_KERNEL);

	mutex_init(&port->lock);
	if (!t)
		return -ENOMEM;
	t->pkey[0] = SIB_DEFAULT_PKEY;
	sib_pkey_tbl_index(t);
	RCU_INIT_POINTER(port->tbl, t);
	return 0;
}

/**
 * sib_pkey_port_destroy() - free the table
 * @port: table no reader can reach any more (device being freed)
 *
 * Context: process.
 */
void sib_pkey_port_destroy(struct sib_pkey_port *port)
{
	kfree(rcu_dereference_protected(port->tbl, true));
	RCU_INIT_POINTER(port->tbl, NULL);
	mutex_destroy(&port->lock);
}

/**
 * sib_pkey_at() - the P_Key at @index
 * @port: table
 * @index: P_Key index (untrusted: any value)
 *
 * Context: any. Return: the entry, 0 when @index is out of range or the
 * entry is invalid.
 */
u16 sib_pkey_at(struct sib_pkey_port *port, u32 index)
{
	struct sib_pkey_tbl *t;
	u16 pkey = 0;

	if (index >= SIB_MAX_PKEYS)
		return 0;
	rcu_read_lock();
	t = rcu_dereference(port->tbl);
	if (t)
		pkey = t->pkey[index];
	rcu_read_unlock();
	return pkey;
}

/* the port check of sib_pkey_port_accepts() against one table version */
static bool sib_pkey_tbl_accepts(const struct sib_pkey_tbl *t, u16 pkey)
{
	return sib_pkey_valid(pkey) &&
	       test_bit(pkey & SIB_PKEY_BASE_MASK,
			(pkey & SIB_PKEY_FULL) ? t->member : t->full);
}

/**
 * sib_pkey_port_accepts() - the port-level P_Key check (IBTA 10.9.3)
 * @port: table of the receiving port
 * @pkey: P_Key from a packet's BTH
 *
 * True when some valid entry matches @pkey under sib_pkey_match(): same
 * partition number and at least one of the two a full member.
 * Context: any (softirq on receive). Return: true to accept.
 */
bool sib_pkey_port_accepts(struct sib_pkey_port *port, u16 pkey)
{
	struct sib_pkey_tbl *t;
	bool ok = false;

	rcu_read_lock();
	t = rcu_dereference(port->tbl);
	if (t)
		ok = sib_pkey_tbl_accepts(t, pkey);
	rcu_read_unlock();
	return ok;
}

/**
 * sib_pkey_loop_ok() - the P_Key checks between two QPs of the port
 * @port: the port's table
 * @sidx: pkey_index of the sending QP (untrusted: any value)
 * @ridx: pkey_index of the receiving QP (untrusted)
 *
 * What a packet from the QP using entry @sidx to the QP using entry
 * @ridx meets on its way (IBTA 10.9.3): a valid P_Key in its BTH (the
 * entry at @sidx), the port's check (sib_pkey_port_accepts()) and the
 * destination QP's (sib_pkey_match() with the entry at @ridx), all read
 * from one version of the table. Context: any. Return: true to accept.
 */
bool sib_pkey_loop_ok(struct sib_pkey_port *port, u32 sidx, u32 ridx)
{
	struct sib_pkey_tbl *t;
	bool ok = false;
	u16 pkey;

	if (sidx >= SIB_MAX_PKEYS || ridx >= SIB_MAX_PKEYS)
		return false;
	rcu_read_lock();
	t = rcu_dereference(port->tbl);
	if (t) {
		pkey = t->pkey[sidx];
		ok = sib_pkey_tbl_accepts(t, pkey) &&
		     sib_pkey_match(pkey, t->pkey[ridx]);
	}
	rcu_read_unlock();
	return ok;
}

/**
 * sib_pkey_find() - index of the entry a received P_Key matched
 * @port: table
 * @pkey: P_Key from a BTH that passed sib_pkey_port_accepts()
 *
 * Among the entries that match @pkey (sib_pkey_match()), the one equal
 * to it, else the first (for the pkey_index of a QP1 completion).
 * Context: any. Return: the index, 0 when nothing matches.
 */
u16 sib_pkey_find(struct sib_pkey_port *port, u16 pkey)
{
	struct sib_pkey_tbl *t;
	u16 i, found = SIB_MAX_PKEYS;

	rcu_read_lock();
	t = rcu_dereference(port->tbl);
	for (i = 0; t && i < SIB_MAX_PKEYS; i++) {
		if (!sib_pkey_match(pkey, t->pkey[i]))
			continue;
		if (t->pkey[i] == pkey) {
			found = i;
			break;
		}
		if (found == SIB_MAX_PKEYS)
			found = i;
	}
	rcu_read_unlock();
	return found == SIB_MAX_PKEYS ? 0 : found;
}

/* replace the table by a copy with @pkey (0: invalid) at @index; lock held */
static int sib_pkey_write(struct sib_pkey_port *port, u32 index, u16 pkey)
{
	struct sib_pkey_tbl *old, *t;

	lockdep_assert_held(&port->lock);
	old = rcu_dereference_protected(port->tbl, lockdep_is_held(&port->lock));
	t = kmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	memcpy(t->pkey, old->pkey, sizeof(t->pkey));
	t->pkey[index] = pkey;
	sib_pkey_tbl_index(t);
	rcu_assign_pointer(port->tbl, t);
	kfree_rcu(old, rcu);
	return 0;
}

/**
 * sib_pkey_set() - add or change the entry at @index
 * @port: table
 * @index: P_Key index, < SIB_MAX_PKEYS
 * @pkey: the P_Key; bit 15 set for full, clear for limited membership
 *
 * Context: process, sleeps. Return: 0, -EINVAL (index out of range,
 * partition number 0), -EEXIST (@pkey is already at another index),
 * -ENOMEM.
 */
int sib_pkey_set(struct sib_pkey_port *port, u32 index, u16 pkey)
{
	struct sib_pkey_tbl *t;
	unsigned int i;
	int err = 0;

	if (index >= SIB_MAX_PKEYS || !sib_pkey_valid(pkey))
		return -EINVAL;
	mutex_lock(&port->lock);
	t = rcu_dereference_protected(port->tbl, lockdep_is_held(&port->lock));
	for (i = 0; i < SIB_MAX_PKEYS; i++)
		if (i != index && t->pkey[i] == pkey)
			err = -EEXIST;
	if (!err && t->pkey[index] != pkey)
		err = sib_pkey_write(port, index, pkey);
	mutex_unlock(&port->lock);
	return err;
}

/**
 * sib_pkey_del() - invalidate the entry at @index
 * @port: table
 * @index: P_Key index
 *
 * Context: process, sleeps. Return: 0, -EINVAL (index out of range),
 * -ENOENT (the entry is not valid), -ENOMEM.
 */
int sib_pkey_del(struct sib_pkey_port *port, u32 index)
{
	struct sib_pkey_tbl *t;
	int err;

	if (index >= SIB_MAX_PKEYS)
		return -EINVAL;
	mutex_lock(&port->lock);
	t = rcu_dereference_protected(port->tbl, lockdep_is_held(&port->lock));
	err = sib_pkey_valid(t->pkey[index]) ? sib_pkey_write(port, index, 0) :
					      -ENOENT;
	mutex_unlock(&port->lock);
	return err;
}
