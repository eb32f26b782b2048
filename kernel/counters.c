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
 * sib_counters_alloc() - give a device its counters, all 0
 * @dev: device being set up (before anything can count)
 *
 * The counters are per CPU: the data path counts several events per
 * packet, and one shared atomic per event made every CPU that moved
 * data fight over the same cache lines.
 * Context: process. Return: 0 or -ENOMEM.
 */
int sib_counters_alloc(struct sib_dev *dev)
{
	dev->counters = alloc_percpu(struct sib_counters);
	return dev->counters ? 0 : -ENOMEM;
}

/**
 * sib_counters_free() - free what sib_counters_alloc() gave
 * @dev: device nothing counts on any more (or that never got counters)
 *
 * Context: process.
 */
void sib_counters_free(struct sib_dev *dev)
{
	free_percpu(dev->counters);
	dev->counters = NULL;
}

/**
 * sib_counter_read() - a counter's value, the sum of every CPU's share
 * @dev: device
 * @c: counter
 *
 * Context: any. Events counted meanwhile may or may not be in the sum.
 * Return: the count.
 */
u64 sib_counter_read(struct sib_dev *dev, enum sib_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(dev->counters, cpu)->c[c];
	return sum;
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
		stats->value[i] = sib_counter_read(dev, i);
	return SIB_NUM_COUNTERS;
}
