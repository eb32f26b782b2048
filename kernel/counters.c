// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softib: device counters exported through `rdma statistic`; this file
 * also instantiates the tracepoints of trace.h.
 */
#include "softib.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

#define SIB_CNT_DESC(id, nm) [SIB_CNT_##id] = { .name = nm },
static const struct rdma_stat_desc sib_counter_descs[] = {
	SIB_COUNTER_LIST(SIB_CNT_DESC)
};
#undef SIB_CNT_DESC

/**
 * sib_counter_inc() - count an event
 * @dev: device
 * @c: counter
 *
 * Context: any.
 */
void sib_counter_inc(struct sib_dev *dev, enum sib_counter c)
{
	atomic64_inc(&dev->counters[c]);
}

/**
 * sib_alloc_hw_port_stats() - ib_device_ops.alloc_hw_port_stats
 * @ibdev: device
 * @port_num: port (1)
 *
 * Context: process. Return: the stats struct or NULL.
 */
struct rdma_hw_stats *sib_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(sib_counter_descs) != SIB_NUM_COUNTERS);
	return rdma_alloc_hw_stats_struct(sib_counter_descs, SIB_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * sib_get_hw_stats() - ib_device_ops.get_hw_stats
 * @ibdev: device
 * @stats: to fill
 * @port: port
 * @index: unused, all counters are filled
 *
 * Context: process. Return: number of counters.
 */
int sib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct sib_dev *dev = to_sib_dev(ibdev);
	int i;

	for (i = 0; i < SIB_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->counters[i]);
	return SIB_NUM_COUNTERS;
}
