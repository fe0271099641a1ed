/*
 * The structs the kernel and user tasks exchange through kernel calls, declared once: the
 * kernel, the protocol core and user/mosaic.h include this file. Their layout is the ABI:
 * fields keep their sizes and order, and new ones go at the end.
 */
#ifndef PORTABLE_ABI_TYPES_H
#define PORTABLE_ABI_TYPES_H

#include <stdint.h>

/* A message's status: filled by recv, tryrecv, probe, test and wait. */
struct mosaic_status {
	int source;
	int tag;
	uint32_t len; /* length of the matched message (also on -EOVERFLOW) */
	int error;
	uint32_t seq;
	uint32_t hops;
	uint64_t t_send_ns, t_deliver_ns, t_recv_ns, t_wait_ns;
};

/* The report of a job a task submitted (job_spawn), as job_wait gives it. */
struct mosaic_job_report {
	int32_t handle;        /* what job_spawn returned */
	uint32_t job;          /* the allocator's job id */
	uint16_t home, status; /* status: 0 every task exited with 0, 1 some task failed */
	uint32_t ntasks, failed_tasks;
	int32_t exit_code; /* the first non-zero exit code of a task (0 if none) */
	uint32_t nparts;   /* micro-kernels whose cores it ran on */
	uint64_t t_submit_ns, t_alloc_ns, t_start_ns, t_end_ns;
	uint64_t cores[2]; /* the cores it held, a mask */
};

/* A team member's end as its owner sees it (team_wait). */
struct mosaic_member_result {
	int32_t status; /* 0 ran to its end, -EFAULT killed, else why it could not start */
	int32_t value;  /* what its function returned (an int, like an exit code) */
	uint16_t core, pad[3];
	uint64_t t_start_ns, t_end_ns;
};

#endif
