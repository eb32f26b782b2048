// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: the InfiniBand link layer, sma.c's part (see ib.h). Being written.
 */
#include "softib.h"
#include "ib.h"

/* placeholder until sma.c is written (the "sma" engineer's) */
int sib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	return IB_MAD_RESULT_FAILURE;
}
