/* The kernel calls of user tasks: every argument checked, then served (see utask.h). */
#include "kernel/task/utask.h"
#include "kernel/task/utask_internal.h"
#include "kernel/core/hart.h"
#include "kernel/time/vtime.h"
#include "drivers/noc/mesh.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "kernel/kcall/kcall.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/alloc/alloc.h"
#include "lib/string.h"
#include "kernel/alloc/invasive.h"
#include "kernel/task/share/share.h"
#include "kernel/alloc/user_job.h"
#include "kernel/console/shell.h"
#include "kernel/task/uargs.h"

/* ---- kernel calls from U-mode ---- */

/*
 * Every argument of a kernel call comes from a hostile program. The rules, in one
 * place: a buffer is checked with user_range or user_array before the kernel
 * touches it, over exactly the bytes it will touch; a length is never computed by
 * arithmetic that can wrap (user_array divides instead of multiplying); a value
 * narrowed to a smaller type (a core id, a tag, a count) is checked to fit first;
 * and what the kernel reads twice (alltoallv's count arrays) is copied in once.
 * docs/microkernel.md lists what each call checks.
 */

/* True if [va, va + len) lies in the task's own mapped pages, writable if asked (its own
 * region, the i-let stacks and the shared windows above it). Such a length is below
 * 3 * USER_SPAN (6 MiB), so it fits any uint32_t it is narrowed to. */
static bool user_range(struct utask *t, uint64_t va, uint64_t len, bool write)
{
	if (len == 0)
		return true;
	if (va + len < va || va < USER_BASE || va + len > SHM_BASE + USER_SPAN)
		return false;
	for (uint64_t p = va & ~(PAGE_SIZE - 1); p < va + len; p += PAGE_SIZE) {
		const uint64_t *pte = as_pte(&t->as, p);
		if (!pte || !(*pte & PTE_V) || !(*pte & PTE_U) || !(*pte & PTE_R) || (write && !(*pte & PTE_W)))
			return false;
	}
	return true;
}

/* The user buffer of n elements of `size` bytes at va: n * size is never formed if it
 * would wrap, so a huge count cannot shrink the checked length. */
static bool user_array(struct utask *t, uint64_t va, uint64_t n, uint64_t size, bool write)
{
	if (size && n > UINT64_MAX / size)
		return false;
	return user_range(t, va, n * size, write);
}

/* A register that must hold an int (a core id, a tag, a wildcard): it is sign-extended
 * by the calling convention, so anything else did not come from an int. */
static bool fits_int(uint64_t v) { return (int64_t)v == (int32_t)v; }

#define USER_WRITE_MAX 4096

/* Copies the NUL-terminated user string at va into buf (cap bytes, its NUL included), each
 * byte checked before it is read: its length, -EFAULT, or -EINVAL if it does not fit. */
static int64_t user_string(struct utask *t, uint64_t va, char *buf, uint32_t cap)
{
	for (uint32_t i = 0; i < cap; i++) {
		if (!user_range(t, va + i, 1, false))
			return -EFAULT;
		buf[i] = *(const char *)(va + i);
		if (!buf[i])
			return i;
	}
	return -EINVAL;
}

/*
 * KC_SHM_OPEN (name, bytes): maps the job's window `name` (made by the first task of the job
 * that opens it, zeroed) and returns its address; a task opening it again gets the same
 * address. -EPERM outside a job or in an i-let (its page tables are its owner's), -EINVAL
 * for an empty or too long name, 0 or more than SHM_MAX_BYTES, or a size other than the
 * window's (in pages); -EFAULT for a bad name; -ENOSPC past SHM_PER_TASK or SHM_WINDOWS.
 */
static int64_t shm_open(struct utask *t, uint64_t name_va, uint64_t bytes)
{
	uint32_t job = alloc_job_ctx(this_cpu())->job;
	if (!job || t->ilet)
		return -EPERM;
	char name[SHM_NAME_MAX];
	int64_t len = user_string(t, name_va, name, sizeof name);
	if (len < 0)
		return len;
	if (len == 0 || bytes == 0 || bytes > SHM_MAX_BYTES)
		return -EINVAL;
	uint64_t pa;
	uint32_t pages;
	int e = shm_attach(job, name, bytes, &pa, &pages);
	if (e)
		return e;
	for (unsigned i = 0; i < t->nshm; i++)
		if (t->shm[i].pa == pa) {
			shm_detach(pa); /* mapped already: one reference per task */
			return (int64_t)t->shm[i].va;
		}
	uint64_t va = t->nshm ? t->shm[t->nshm - 1].va + t->shm[t->nshm - 1].pages * PAGE_SIZE : SHM_BASE;
	if (t->nshm == SHM_PER_TASK || va + pages * PAGE_SIZE > SHM_BASE + USER_SPAN) {
		shm_detach(pa);
		return -ENOSPC;
	}
	for (uint32_t p = 0; p < pages; p++)
		if (!as_map(&t->as, va + p * PAGE_SIZE, pa + p * PAGE_SIZE, PTE_R | PTE_W)) {
			/* unmap what was mapped: the pages are the window's, not the task's */
			for (uint32_t q = 0; q < p; q++)
				*as_pte(&t->as, va + q * PAGE_SIZE) = 0;
			__asm__ volatile("sfence.vma" ::: "memory");
			shm_detach(pa);
			return -ENOMEM;
		}
	t->shm[t->nshm++] = (struct shm_mapping){.pa = pa, .va = va, .pages = pages};
	return (int64_t)va;
}

/*
 * KC_JOB_SPAWN (program, length, ntasks, cores, arg, mode): the name is exactly `length` bytes,
 * 1..ALLOC_PROGRAM_MAX - 1 with no NUL among them (-EINVAL), all readable (-EFAULT); the rest
 * is checked by user_job_spawn. The caller's core must be its own: a time-sliced one refuses
 * the call before (share_call_allowed). KC_JOB_SPAWNV (program, length, ntasks, cores, args, mode):
 * the same, with argument 4 a struct uargs_user instead of the integer: the tasks' arguments and
 * environment (kernel/task/uargs.h), -E2BIG beyond UARGS_MAX strings or UARGS_BYTES bytes,
 * -EFAULT for an unreadable block or text, -EINVAL for strings that do not match their counts
 * or an environment entry that is not NAME=VALUE; the integer argument is argv[1] if a number.
 */
static int64_t job_spawn(struct utask *t, const uint64_t *a, bool args)
{
	if (a[1] == 0 || a[1] >= ALLOC_PROGRAM_MAX)
		return -EINVAL;
	if (!user_range(t, a[0], a[1], false))
		return -EFAULT;
	char name[ALLOC_PROGRAM_MAX];
	memcpy(name, (const void *)a[0], a[1]);
	name[a[1]] = 0;
	if (strlen(name) != a[1])
		return -EINVAL;
	if (!args)
		return user_job_spawn(name, a[2], a[3], a[4], 0, a[5]);
	/* KC_JOB_SPAWNV: a[4] points at a struct uargs_user; it and its text are copied once, then
	 * only the kernel's copies are read (another task may write the user's memory meanwhile) */
	struct uargs_user u;
	if (!user_range(t, a[4], sizeof u, false))
		return -EFAULT;
	memcpy(&u, (const void *)a[4], sizeof u);
	if (u.len > UARGS_BYTES || u.argc > UARGS_MAX || u.envc > UARGS_MAX || u.argc + u.envc > UARGS_MAX)
		return -E2BIG;
	if (u.len && !user_range(t, u.text, u.len, false))
		return -EFAULT;
	char text[UARGS_BYTES];
	memcpy(text, (const void *)u.text, u.len);
	const char *why;
	struct uargs *b = uargs_new(text, u.len, u.argc, u.envc, &why);
	if (!b && why)
		return why == uargs_no_memory ? -ENOMEM : -EINVAL;
	int64_t r = user_job_spawn(name, a[2], a[3], uargs_int(b, 0), b, a[5]);
	if (r < 0)
		uargs_free(b);
	return r;
}

static int open_request(struct utask *t)
{
	for (int i = 0; i < UTASK_REQUESTS; i++)
		if (!t->req_open[i])
			return i;
	return -EBUSY; /* too many open requests: wait for some first */
}

static struct msg_request *request_of(struct utask *t, uint64_t h)
{
	return h < UTASK_REQUESTS && t->req_open[h] ? &t->reqs[h] : 0;
}

static struct msg_group *group_of(struct utask *t, uint64_t g)
{
	return g < UTASK_GROUPS ? t->groups[g] : 0;
}

/* The user's argument block of alltoallv (user/mosaic.h: struct mosaic_alltoallv). */
struct user_alltoallv {
	uint64_t in, sendcounts, sdispls, out, recvcounts, rdispls;
};

/* Highest end (displacement + count) over n ranks; 64-bit sums of 32-bit values cannot wrap. */
static uint64_t extent(const uint32_t *counts, const uint32_t *displs, unsigned n)
{
	uint64_t end = 0;
	for (unsigned r = 0; r < n; r++)
		if ((uint64_t)displs[r] + counts[r] > end)
			end = (uint64_t)displs[r] + counts[r];
	return end;
}

/* A group of the given cores in a free handle of the task: the handle, or an error. */
static int make_group(struct utask *t, const uint16_t *cores, unsigned n)
{
	int slot = -1;
	for (int i = 0; i < UTASK_GROUPS && slot < 0; i++)
		if (!t->groups[i])
			slot = i;
	if (slot < 0)
		return -EBUSY;
	struct msg_group *ng = kmalloc(sizeof *ng);
	if (!ng)
		return -ENOMEM;
	int e = msg_group_init(ng, cores, n);
	if (e) {
		kfree(ng);
		return e;
	}
	ng->type = MSG_TYPE_USER_COLL; /* the user channel, in the task's session */
	t->groups[slot] = ng;
	return slot;
}

/* alltoallv: the count and displacement arrays are copied in before anything is checked,
 * so a receive into an overlapping buffer cannot change them after the check. */
static int64_t user_alltoallv(struct utask *t, struct msg_group *g, unsigned how, uint64_t arg)
{
	struct user_alltoallv v;
	if (!user_range(t, arg, sizeof v, false))
		return -EFAULT;
	memcpy(&v, (const void *)arg, sizeof v);
	/* per call, too big for the stack: a task time-sliced with others may give the core
	 * away inside the collective, so nothing per core would do */
	uint32_t(*k)[MOSAIC_MAX_HARTS] = kmalloc(4 * sizeof *k);
	if (!k)
		return -ENOMEM;
	const uint64_t from[4] = {v.sendcounts, v.sdispls, v.recvcounts, v.rdispls};
	int64_t e = 0;
	for (unsigned i = 0; i < 4 && !e; i++) {
		if (!user_array(t, from[i], g->n, sizeof(uint32_t), false))
			e = -EFAULT;
		else
			memcpy(k[i], (const void *)from[i], g->n * sizeof(uint32_t));
	}
	if (!e && (!user_range(t, v.in, extent(k[0], k[1], g->n), false) ||
		   !user_range(t, v.out, extent(k[2], k[3], g->n), true)))
		e = -EFAULT;
	if (!e)
		e = msg_alltoallv(g, how, (const void *)v.in, k[0], k[1], (void *)v.out, k[2], k[3]);
	kfree(k);
	return e;
}

/* The non-blocking message calls and the collectives, for user tasks (the user channel). */
static int64_t user_msg_kcall(struct utask *t, uint64_t nr, uint64_t *a)
{
	struct msg_group *g;
	switch (nr) {
	case KC_ISEND:
	case KC_IRECV: {
		if (!fits_int(a[0]) || !fits_int(a[1]))
			return -EINVAL;
		if (!user_range(t, a[2], a[3], nr == KC_IRECV))
			return -EFAULT;
		int h = open_request(t);
		if (h < 0)
			return h;
		int e = nr == KC_ISEND ? msg_isend_typed(MSG_TYPE_USER, (int)a[0], (int)a[1], (const void *)a[2],
							 (uint32_t)a[3], false, &t->reqs[h])
				       : msg_irecv_typed(MSG_TYPE_USER, (int)a[0], (int)a[1], (void *)a[2], (uint32_t)a[3],
							 &t->reqs[h]);
		if (e)
			return e;
		t->req_open[h] = true;
		return h;
	}
	case KC_TEST:
	case KC_WAIT: {
		struct msg_request *r = request_of(t, a[0]);
		if (!r)
			return -EINVAL;
		if (a[1] && !user_range(t, a[1], sizeof(struct mosaic_status), true))
			return -EFAULT;
		struct mosaic_status st;
		int done = 1, e;
		if (nr == KC_TEST) {
			e = msg_test(r, &done, &st);
			if (!done)
				return 0;
			r->state = MSG_REQ_IDLE;
		} else {
			e = msg_wait(r, &st);
			if (e == -EINTR)
				return e; /* the task is being killed; its request was withdrawn */
		}
		t->req_open[a[0]] = false;
		if (a[1])
			memcpy((void *)a[1], &st, sizeof st);
		return nr == KC_TEST ? (e ? e : 1) : e;
	}
	case KC_XSEND:
		if (!fits_int(a[0]) || !fits_int(a[1]))
			return -EINVAL;
		if (!user_range(t, a[2], a[3], false))
			return -EFAULT;
		return msg_xsend_typed(MSG_TYPE_USER, (int)a[0], (int)a[1], (const void *)a[2], (uint32_t)a[3]);
	case KC_JOB_GROUP: {
		const struct job_ctx *jc = alloc_job_ctx(this_cpu());
		if (!jc->job)
			return -EINVAL;
		if (t->job_group)
			return t->job_group - 1;
		int h = make_group(t, jc->cores, jc->size);
		if (h >= 0)
			t->job_group = h + 1;
		return h;
	}
	case KC_GROUP_INIT:
		if (a[1] == 0 || a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		if (!user_array(t, a[0], a[1], sizeof(uint16_t), false))
			return -EFAULT;
		return make_group(t, (const uint16_t *)a[0], (unsigned)a[1]);
	}
	/* a[0]: the group handle in bits 0..7, the collective's `how` (mode | algorithm) above it */
	if (!(g = group_of(t, a[0] & 0xff)))
		return -EINVAL;
	if (a[0] >> 8 > MSG_HOW_MASK)
		return -EINVAL;
	unsigned how = (unsigned)(a[0] >> 8);
	switch (nr) {
	case KC_BARRIER:
		return msg_barrier(g, how);
	case KC_BCAST:
		if (a[1] >= g->n || a[3] > NOC_MAX_BODY)
			return a[1] >= g->n ? -EINVAL : -EMSGSIZE;
		if (!user_range(t, a[2], a[3], true))
			return -EFAULT;
		return msg_bcast(g, how, (unsigned)a[1], (void *)a[2], (uint32_t)a[3]);
	case KC_REDUCE:
		if (a[1] >= g->n || a[5] > MSG_OP_MAX)
			return -EINVAL;
		if (a[4] > NOC_MAX_BODY / 8)
			return -EMSGSIZE;
		if (!user_array(t, a[2], a[4], 8, false) || (g->rank == a[1] && !user_array(t, a[3], a[4], 8, true)))
			return -EFAULT;
		return msg_reduce(g, how, (unsigned)a[1], (const int64_t *)a[2], (int64_t *)a[3], (unsigned)a[4],
				  (enum msg_op)a[5]);
	case KC_ALLREDUCE:
		if (a[4] > MSG_OP_MAX)
			return -EINVAL;
		if (a[3] > NOC_MAX_BODY / 8)
			return -EMSGSIZE;
		if (!user_array(t, a[1], a[3], 8, false) || !user_array(t, a[2], a[3], 8, true))
			return -EFAULT;
		return msg_allreduce(g, how, (const int64_t *)a[1], (int64_t *)a[2], (unsigned)a[3], (enum msg_op)a[4]);
	case KC_GATHER:
	case KC_SCATTER: {
		/* gather: every member's in (a[2]) is one block, the root's out (a[4]) n blocks; scatter the reverse */
		bool gather = nr == KC_GATHER, root = g->rank == a[1];
		if (a[1] >= g->n)
			return -EINVAL;
		if (a[3] > NOC_MAX_BODY)
			return -EMSGSIZE;
		bool in_ok = gather ? user_array(t, a[2], 1, a[3], false) : !root || user_array(t, a[2], g->n, a[3], false);
		bool out_ok = gather ? !root || user_array(t, a[4], g->n, a[3], true) : user_array(t, a[4], 1, a[3], true);
		if (!in_ok || !out_ok)
			return -EFAULT;
		return gather ? msg_gather(g, how, (unsigned)a[1], (const void *)a[2], (uint32_t)a[3], (void *)a[4])
			      : msg_scatter(g, how, (unsigned)a[1], (const void *)a[2], (uint32_t)a[3], (void *)a[4]);
	}
	case KC_ALLGATHER:
	case KC_ALLTOALL:
		if (a[2] > NOC_MAX_BODY)
			return -EMSGSIZE;
		if (!user_array(t, a[1], nr == KC_ALLTOALL ? g->n : 1, a[2], false) || !user_array(t, a[3], g->n, a[2], true))
			return -EFAULT;
		return nr == KC_ALLGATHER ? msg_allgather(g, how, (const void *)a[1], (uint32_t)a[2], (void *)a[3])
					  : msg_alltoall(g, how, (const void *)a[1], (uint32_t)a[2], (void *)a[3]);
	case KC_ALLTOALLV:
		return user_alltoallv(t, g, how, a[1]);
	default:
		return -ENOSYS;
	}
}

/* The blocking point-to-point calls, on the user channel in the task's session. */
static int64_t user_p2p_kcall(struct utask *t, uint64_t nr, uint64_t *a)
{
	/* a length that passes user_range is below 3 * USER_SPAN, so it fits the uint32_t it becomes */
	if (!fits_int(a[0]) || !fits_int(a[1]))
		return -EINVAL;
	int peer = (int)a[0], tag = (int)a[1];
	switch (nr) {
	case KC_SEND:
	case KC_TRYSEND:
		if (!user_range(t, a[2], a[3], false))
			return -EFAULT;
		return nr == KC_SEND ? msg_send_typed(MSG_TYPE_USER, peer, tag, (const void *)a[2], (uint32_t)a[3])
				     : msg_trysend_typed(MSG_TYPE_USER, peer, tag, (const void *)a[2], (uint32_t)a[3]);
	case KC_RECV:
	case KC_TRYRECV:
		if (!user_range(t, a[2], a[3], true) || (a[4] && !user_range(t, a[4], sizeof(struct mosaic_status), true)))
			return -EFAULT;
		return nr == KC_RECV
			       ? msg_recv_typed(MSG_TYPE_USER, peer, tag, (void *)a[2], (uint32_t)a[3], (struct mosaic_status *)a[4])
			       : msg_tryrecv_typed(MSG_TYPE_USER, peer, tag, (void *)a[2], (uint32_t)a[3],
						   (struct mosaic_status *)a[4]);
	default: /* KC_PROBE */
		if (!a[3] || !user_range(t, a[3], sizeof(struct mosaic_status), true))
			return -EFAULT;
		return msg_probe_typed(MSG_TYPE_USER, peer, tag, a[2] != 0, (struct mosaic_status *)a[3]);
	}
}

/* What stops a sleep: its task's kill, or typed input for the shell on its core. */
static bool sleep_stops(void) { return hart_kill_pending() || shell_edge_due(); }

int64_t utask_kcall(struct utask *t, uint64_t nr, uint64_t *a)
{
	switch (nr) {
	case KC_EXIT:
		uctx_leave(t->kctx, EXIT_MARK + (long)(int32_t)a[0]);
	case KC_WRITE: {
		if (a[1] > USER_WRITE_MAX)
			return -EINVAL;
		if (!user_range(t, a[0], a[1], false))
			return -EFAULT;
		char buf[USER_WRITE_MAX];
		memcpy(buf, (const void *)a[0], a[1]);
		return kcall(KC_WRITE, a, buf, (uint32_t)a[1]);
	}
	case KC_HEAP_GROW: {
		/* a[0] bytes more; returns the old break (sbrk). a[0] is bounded before it is rounded.
		 * An i-let shares its owner's page tables, which its owner may be changing: it has no
		 * heap of its own (docs/invasive.md) */
		if (t->ilet)
			return -EPERM;
		if (a[0] > t->heap_limit)
			return -ENOMEM;
		uint64_t bytes = (a[0] + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1), old = t->brk;
		if (t->brk + bytes - t->heap_start > t->heap_limit ||
		    t->brk + bytes > USER_BASE + USER_SPAN - UTASK_STACK_PAGES * PAGE_SIZE)
			return -ENOMEM;
		uint64_t args[6] = {bytes, share_heap_account()};
		int64_t r = kcall(KC_HEAP_GROW, args, 0, 0); /* the master's account for this core */
		if (r < 0)
			return r;
		if (utask_map_range(t, t->brk, bytes, PTE_R | PTE_W))
			return -ENOMEM;
		t->brk += bytes;
		t->heap_account = args[1];
		return (int64_t)old;
	}
	case KC_KILL: {
		/* (core): a task of the caller's own session (its job, its team), not itself */
		if (a[0] >= hart_count || a[0] == this_cpu())
			return -EINVAL;
		uint32_t mine = msg_session();
		if (utask_session_on((unsigned)a[0]) != mine)
			return -EPERM;
		return utask_kill((unsigned)a[0], mine);
	}
	case KC_SEND:
	case KC_TRYSEND:
	case KC_RECV:
	case KC_TRYRECV:
	case KC_PROBE:
		return user_p2p_kcall(t, nr, a);
	case KC_SLEEP_US: {
		if (a[0] > 60ULL * 1000 * 1000)
			return -EINVAL;
		/* on the core's clock; a sleep ends early, with -EINTR, when the task is to be killed;
		 * on the shell's core it stops for typed input too, which the shell reads, and goes on */
		uint64_t until = vtime_now_ns() + a[0] * 1000;
		while (!vtime_sleep_until_ns(until, sleep_stops)) {
			if (hart_kill_pending())
				return -EINTR;
			shell_task_edge();
		}
		return 0;
	}
	case KC_CORE_ID:
	case KC_DOMAIN_ID:
	case KC_JOB_ID:
	case KC_RANK:
	case KC_JOB_SIZE:
	case KC_TIME_NS:
		return kcall((unsigned)nr, a, 0, 0);
	case KC_SHM_OPEN:
		return shm_open(t, a[0], a[1]);
	case KC_JOB_SPAWN:
	case KC_JOB_SPAWNV:
		return job_spawn(t, a, nr == KC_JOB_SPAWNV);
	case KC_JOB_WAIT: {
		/* (report out, flags): the buffer is checked before the wait, and written only after */
		if (a[1] & ~USER_JOB_NOWAIT)
			return -EINVAL;
		if (!user_range(t, a[0], sizeof(struct mosaic_job_report), true))
			return -EFAULT;
		struct mosaic_job_report rep;
		int64_t r = user_job_wait(&rep, a[1] & USER_JOB_NOWAIT);
		if (r > 0)
			memcpy((void *)a[0], &rep, sizeof rep);
		return r;
	}
	case KC_SHARE_INFO:
	case KC_SHARE_BARRIER:
		return share_kcall(nr, a);
	case KC_INVADE: {
		/* (n, properties, cores out, capacity): the new cores, nearest first; the
		 * array must hold all that may come (n, or the whole machine if that is less) */
		if (a[0] == 0 || a[0] > UINT32_MAX || a[1] > INVADE_ANYWHERE)
			return -EINVAL;
		uint64_t most = a[0] < mesh.cores ? a[0] : mesh.cores;
		if (a[2] && a[3] < most)
			return -EINVAL;
		if (a[2] && !user_array(t, a[2], most, sizeof(uint16_t), true))
			return -EFAULT;
		uint16_t got[MOSAIC_MAX_HARTS];
		int64_t r = claim_invade((uint32_t)a[0], (unsigned)a[1], got);
		if (r > 0 && a[2])
			memcpy((void *)a[2], got, (size_t)r * sizeof got[0]);
		return r;
	}
	case KC_RETREAT: {
		/* (cores, n) */
		if (!a[1] || a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		if (!user_array(t, a[0], a[1], sizeof(uint16_t), false))
			return -EFAULT;
		uint16_t cores[MOSAIC_MAX_HARTS];
		memcpy(cores, (const void *)a[0], a[1] * sizeof(uint16_t));
		return claim_retreat(cores, (uint32_t)a[1]);
	}
	case KC_INFECT: {
		/* (team entries, n, mode): member i runs fn(arg) on claimed core i, as an i-let in this
		 * task's address space, or with INFECT_ISOLATED in a fresh instance of the program */
		if (a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		if (!user_array(t, a[0], a[1], sizeof(struct team_entry), false))
			return -EFAULT;
		struct team_entry team[MOSAIC_MAX_HARTS];
		memcpy(team, (const void *)a[0], a[1] * sizeof(struct team_entry));
		const struct user_program *prog = user_program_find(t->name); /* once, not per member */
		for (uint64_t i = 0; i < a[1]; i++)
			if (!prog || !utask_entry_ok(prog, team[i].fn))
				return -EINVAL; /* not code of this program */
		if (a[2] & ~(uint64_t)INFECT_ISOLATED)
			return -EINVAL; /* an unknown mode */
		bool isolated = a[2] & INFECT_ISOLATED;
		if (t->ilet && !isolated)
			return -EPERM; /* an i-let's team would need stacks in its owner's address space */
		/* the members' stacks, for a team the claim can take only: a refused infect maps nothing */
		if (!isolated && a[1] && a[1] == claim_cores(0, 0)) {
			int e = utask_ilet_stacks((unsigned)a[1]);
			if (e)
				return e;
		}
		return claim_infect(t->name, team, (uint32_t)a[1], isolated, isolated ? 0 : (uint64_t)t->as.root);
	}
	case KC_TEAM_WAIT: {
		/* (results out, capacity): every member's end; all `capacity` entries are written */
		if (!a[0] || a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		if (!user_array(t, a[0], a[1], sizeof(struct mosaic_member_result), true))
			return -EFAULT;
		struct mosaic_member_result res[MOSAIC_MAX_HARTS];
		memset(res, 0, a[1] * sizeof res[0]); /* what is copied out, no more: all 128 cost 4 KB a wait */
		int64_t r = claim_team_wait(res, (uint32_t)a[1]);
		if (r >= 0)
			memcpy((void *)a[0], res, a[1] * sizeof res[0]);
		return r;
	}
	case KC_CLAIM: {
		/* (cores out, capacity): the claim's size; min(size, capacity) cores in claim order.
		 * The check covers exactly the entries copied. */
		uint16_t cores[MOSAIC_MAX_HARTS];
		uint32_t n = claim_cores(cores, MOSAIC_MAX_HARTS);
		uint64_t k = n < a[1] ? n : a[1];
		if (a[0] && !user_array(t, a[0], k, sizeof cores[0], true))
			return -EFAULT;
		if (a[0])
			memcpy((void *)a[0], cores, k * sizeof cores[0]);
		return n;
	}
	default:
		if ((nr >= KC_ISEND && nr <= KC_WAIT) || (nr >= KC_GROUP_INIT && nr <= KC_SCATTER) || nr == KC_JOB_GROUP)
			return user_msg_kcall(t, nr, a);
		return -ENOSYS; /* unknown, or reserved */
	}
}
