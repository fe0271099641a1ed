/* Loading, running and policing user tasks (see utask.h). */
#include "kernel/utask.h"
#include "kernel/kcall.h"
#include "kernel/hart.h"
#include "kernel/errno.h"
#include "kernel/kheap.h"
#include "kernel/console.h"
#include "kernel/page_alloc.h"
#include "kernel/msg/msg.h"
#include "kernel/msg/group.h"
#include "kernel/alloc/alloc.h"
#include "arch/riscv/trap.h"
#include "arch/riscv/csr.h"
#include "lib/string.h"
#include "kernel/domain.h"
#include "kernel/shell.h"
#include "kernel/alloc/invasive.h"
#include "drivers/noc/mesh.h"

#define UTASK_REQUESTS 16 /* non-blocking message requests a task may have open */
#define UTASK_GROUPS 4    /* groups a task may build */

struct utask {
	const char *name;
	struct msg_request reqs[UTASK_REQUESTS];
	bool req_open[UTASK_REQUESTS];
	struct msg_group *groups[UTASK_GROUPS];
	struct address_space as;
	uint64_t heap_start, brk, heap_limit;
	uint64_t kctx[14];
	struct utask_result *res;
	int job_group; /* 1 + the handle KC_JOB_GROUP gave out (0: none yet) */
};

long uctx_enter(struct trap_frame *frame, uint64_t *kctx);
void uctx_leave(uint64_t *kctx, long value) __attribute__((noreturn));

#define EXIT_MARK 0x100000000L /* uctx_enter's value for "exited", the code in the low bits */
#define KILL_MARK -1L

const struct user_program *user_program_find(const char *name)
{
	for (unsigned i = 0; i < user_program_count; i++)
		if (strcmp(user_programs[i].name, name) == 0)
			return &user_programs[i];
	return 0;
}

/* ---- ELF loading ---- */

struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf64_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

#define PT_LOAD 1
#define EM_RISCV 243

/* Maps a fresh zeroed page at every page of [va, va + len) not mapped yet. */
static int map_range(struct utask *t, uint64_t va, uint64_t len, uint64_t flags)
{
	for (uint64_t p = va & ~(PAGE_SIZE - 1); p < va + len; p += PAGE_SIZE) {
		if (as_lookup(&t->as, p))
			continue;
		void *page = page_alloc(1);
		if (!page)
			return -ENOMEM;
		if (!as_map(&t->as, p, (uint64_t)page, flags)) {
			page_free(page, 1);
			return -ENOEXEC;
		}
	}
	return 0;
}

/* Copies bytes into the task's pages through the kernel's identity map. */
static void copy_to_task(struct utask *t, uint64_t va, const uint8_t *src, uint64_t len)
{
	while (len) {
		uint64_t off = va % PAGE_SIZE, n = PAGE_SIZE - off < len ? PAGE_SIZE - off : len;
		memcpy((uint8_t *)as_lookup(&t->as, va - off) + off, src, n);
		va += n, src += n, len -= n;
	}
}

static int load(struct utask *t, const struct user_program *p, uint64_t *entry)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)p->start;
	uint64_t size = (uint64_t)(p->end - p->start);
	if (size < sizeof *eh || memcmp(eh->ident, "\177ELF", 4) != 0 || eh->ident[4] != 2 || eh->machine != EM_RISCV ||
	    eh->phentsize != sizeof(struct elf64_phdr) || eh->phoff + eh->phnum * sizeof(struct elf64_phdr) > size)
		return -ENOEXEC;
	uint64_t top = USER_BASE;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)(p->start + eh->phoff) + i;
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		if (ph->filesz > ph->memsz || ph->offset + ph->filesz > size || ph->vaddr < USER_BASE ||
		    ph->vaddr + ph->memsz > USER_BASE + USER_SPAN / 2)
			return -ENOEXEC;
		uint64_t flags = PTE_R | (ph->flags & 2 ? PTE_W : 0) | (ph->flags & 1 ? PTE_X : 0);
		int e = map_range(t, ph->vaddr, ph->memsz, flags);
		if (e)
			return e;
		copy_to_task(t, ph->vaddr, p->start + ph->offset, ph->filesz);
		if (ph->vaddr + ph->memsz > top)
			top = ph->vaddr + ph->memsz;
	}
	t->heap_start = t->brk = (top + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	*entry = eh->entry;
	return 0;
}

/* ---- running ---- */

void utask_run(const char *name, uint64_t arg, struct utask_result *res) { utask_run_entry(name, 0, arg, res); }

bool utask_entry_ok(const char *name, uint64_t fn)
{
	const struct user_program *p = user_program_find(name);
	if (!p)
		return false;
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)p->start;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)(p->start + eh->phoff) + i;
		if (ph->type == PT_LOAD && (ph->flags & 1) && fn >= ph->vaddr && fn < ph->vaddr + ph->memsz && !(fn & 1))
			return true;
	}
	return false;
}

void utask_run_entry(const char *name, uint64_t fn, uint64_t arg, struct utask_result *res)
{
	*res = (struct utask_result){0};
	const struct user_program *p = user_program_find(name);
	if (!p) {
		res->status = -ENOENT;
		return;
	}
	struct utask *t = kmalloc(sizeof *t);
	if (t)
		memset(t, 0, sizeof *t);
	if (!t || !as_create(&t->as)) {
		kfree(t);
		res->status = -ENOMEM;
		return;
	}
	t->name = p->name;
	t->res = res;
	t->heap_limit = UTASK_HEAP_LIMIT;
	uint64_t entry = 0, stack_top = USER_BASE + USER_SPAN;
	int e = load(t, p, &entry);
	if (!e)
		e = map_range(t, stack_top - UTASK_STACK_PAGES * PAGE_SIZE, UTASK_STACK_PAGES * PAGE_SIZE, PTE_R | PTE_W);
	if (e) {
		as_destroy(&t->as);
		kfree(t);
		res->status = e;
		return;
	}
	struct trap_frame frame = {0};
	frame.regs[REG_SP] = stack_top;
	frame.regs[10] = arg;
	frame.regs[11] = fn; /* crt0: a team member's function, or 0 for main */
	frame.sepc = entry;
	/* U-mode, interrupts on once there, no FPU, no kernel access to user pages yet */
	frame.sstatus = (csr_read(sstatus) & ~(SSTATUS_SPP | SSTATUS_SIE | SSTATUS_SUM | (3UL << 13))) | SSTATUS_SPIE;
	struct hart *me = this_hart();
	me->utask = t;
	as_activate(&t->as);
	long v = uctx_enter(&frame, t->kctx);
	as_activate(0);
	me->utask = 0;
	irq_enable(); /* we left through a trap, with interrupts off */
	claim_owner_end(); /* its team ends, its claimed cores go back */
	if (t->brk > t->heap_start) {
		/* give the task's heap back to the master's account for this core */
		uint64_t back[6] = {(uint64_t)-(int64_t)(t->brk - t->heap_start)};
		kcall(KC_HEAP_GROW, back, 0, 0);
	}
	/* nothing may point into the task's pages once they are freed */
	for (unsigned i = 0; i < UTASK_REQUESTS; i++)
		if (t->req_open[i])
			msg_cancel(&t->reqs[i]);
	for (unsigned i = 0; i < UTASK_GROUPS; i++)
		kfree(t->groups[i]);
	if (v == KILL_MARK) {
		res->status = -EFAULT;
	} else {
		res->status = 0;
		res->exit_code = (int)(v - EXIT_MARK);
	}
	as_destroy(&t->as);
	kfree(t);
}

/* ---- kernel calls from U-mode ---- */

/* True if [va, va + len) lies in the task's own mapped pages, writable if asked. */
static bool user_range(struct utask *t, uint64_t va, uint64_t len, bool write)
{
	if (len == 0)
		return true;
	if (va + len < va || va < USER_BASE || va + len > USER_BASE + USER_SPAN)
		return false;
	for (uint64_t p = va & ~(PAGE_SIZE - 1); p < va + len; p += PAGE_SIZE) {
		uint64_t pte = t->as.leaf[(p >> 12) & 511];
		if (!(pte & PTE_V) || !(pte & PTE_U) || !(pte & PTE_R) || (write && !(pte & PTE_W)))
			return false;
	}
	return true;
}

#define USER_WRITE_MAX 4096

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

/* Highest end (displacement + count) over n ranks, or UINT64_MAX if it overflows. */
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
	t->groups[slot] = ng;
	return slot;
}

/* The non-blocking message calls and the collectives, for user tasks. */
static int64_t user_msg_kcall(struct utask *t, uint64_t nr, uint64_t *a)
{
	struct msg_group *g;
	switch (nr) {
	case KC_ISEND:
	case KC_IRECV: {
		if (!user_range(t, a[2], a[3], nr == KC_IRECV))
			return -EFAULT;
		int h = open_request(t);
		if (h < 0)
			return h;
		int e = nr == KC_ISEND ? msg_isend((int)a[0], (int)a[1], (const void *)a[2], (uint32_t)a[3], &t->reqs[h])
				       : msg_irecv((int)a[0], (int)a[1], (void *)a[2], (uint32_t)a[3], &t->reqs[h]);
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
		if (a[1] && !user_range(t, a[1], sizeof(struct msg_status), true))
			return -EFAULT;
		struct msg_status st;
		int done = 1, e;
		if (nr == KC_TEST) {
			e = msg_test(r, &done, &st);
			if (!done)
				return 0;
			r->state = MSG_REQ_IDLE;
		} else {
			e = msg_wait(r, &st);
		}
		t->req_open[a[0]] = false;
		if (a[1])
			memcpy((void *)a[1], &st, sizeof st);
		return nr == KC_TEST ? (e ? e : 1) : e;
	}
	case KC_XSEND:
		if (!user_range(t, a[2], a[3], false))
			return -EFAULT;
		return msg_xsend((int)a[0], (int)a[1], (const void *)a[2], (uint32_t)a[3]);
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
		if (a[1] == 0 || a[1] > MOSAIC_MAX_HARTS || !user_range(t, a[0], a[1] * sizeof(uint16_t), false))
			return a[1] == 0 || a[1] > MOSAIC_MAX_HARTS ? -EINVAL : -EFAULT;
		return make_group(t, (const uint16_t *)a[0], (unsigned)a[1]);
	}
	if (!(g = group_of(t, a[0])))
		return -EINVAL;
	switch (nr) {
	case KC_BARRIER:
		return msg_barrier(g);
	case KC_BCAST:
		if (!user_range(t, a[2], a[3], true))
			return -EFAULT;
		return msg_bcast(g, (unsigned)a[1], (void *)a[2], (uint32_t)a[3]);
	case KC_REDUCE:
		if (a[4] > NOC_MAX_BODY / 8 || !user_range(t, a[2], a[4] * 8, false) ||
		    (g->rank == a[1] && !user_range(t, a[3], a[4] * 8, true)))
			return a[4] > NOC_MAX_BODY / 8 ? -EMSGSIZE : -EFAULT;
		return msg_reduce(g, (unsigned)a[1], (const int64_t *)a[2], (int64_t *)a[3], (unsigned)a[4],
				  (enum msg_op)a[5]);
	case KC_ALLREDUCE:
		if (a[3] > NOC_MAX_BODY / 8 || !user_range(t, a[1], a[3] * 8, false) || !user_range(t, a[2], a[3] * 8, true))
			return a[3] > NOC_MAX_BODY / 8 ? -EMSGSIZE : -EFAULT;
		return msg_allreduce(g, (const int64_t *)a[1], (int64_t *)a[2], (unsigned)a[3], (enum msg_op)a[4]);
	case KC_GATHER:
		if (a[3] > NOC_MAX_BODY || !user_range(t, a[2], a[3], false) ||
		    (g->rank == a[1] && !user_range(t, a[4], a[3] * g->n, true)))
			return a[3] > NOC_MAX_BODY ? -EMSGSIZE : -EFAULT;
		return msg_gather(g, (unsigned)a[1], (const void *)a[2], (uint32_t)a[3], (void *)a[4]);
	case KC_ALLGATHER:
	case KC_ALLTOALL:
		if (a[2] > NOC_MAX_BODY || !user_range(t, a[1], a[2] * (nr == KC_ALLTOALL ? g->n : 1), false) ||
		    !user_range(t, a[3], a[2] * g->n, true))
			return a[2] > NOC_MAX_BODY ? -EMSGSIZE : -EFAULT;
		return nr == KC_ALLGATHER ? msg_allgather(g, (const void *)a[1], (uint32_t)a[2], (void *)a[3])
					  : msg_alltoall(g, (const void *)a[1], (uint32_t)a[2], (void *)a[3]);
	case KC_ALLTOALLV: {
		struct user_alltoallv v;
		uint64_t arr = g->n * sizeof(uint32_t);
		if (!user_range(t, a[1], sizeof v, false))
			return -EFAULT;
		memcpy(&v, (const void *)a[1], sizeof v);
		if (!user_range(t, v.sendcounts, arr, false) || !user_range(t, v.sdispls, arr, false) ||
		    !user_range(t, v.recvcounts, arr, false) || !user_range(t, v.rdispls, arr, false))
			return -EFAULT;
		const uint32_t *sc = (const uint32_t *)v.sendcounts, *sd = (const uint32_t *)v.sdispls;
		const uint32_t *rc = (const uint32_t *)v.recvcounts, *rd = (const uint32_t *)v.rdispls;
		if (!user_range(t, v.in, extent(sc, sd, g->n), false) || !user_range(t, v.out, extent(rc, rd, g->n), true))
			return -EFAULT;
		return msg_alltoallv(g, (const void *)v.in, sc, sd, (void *)v.out, rc, rd);
	}
	default:
		return -ENOSYS;
	}
}

static int64_t user_kcall(struct utask *t, uint64_t nr, uint64_t *a)
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
		/* a[0] bytes more; returns the old break (sbrk) */
		uint64_t bytes = (a[0] + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1), old = t->brk;
		if (a[0] > t->heap_limit || t->brk + bytes - t->heap_start > t->heap_limit ||
		    t->brk + bytes > USER_BASE + USER_SPAN - UTASK_STACK_PAGES * PAGE_SIZE)
			return -ENOMEM;
		uint64_t args[6] = {bytes};
		int64_t r = kcall(KC_HEAP_GROW, args, 0, 0); /* the master's account for this core */
		if (r < 0)
			return r;
		if (map_range(t, t->brk, bytes, PTE_R | PTE_W))
			return -ENOMEM;
		t->brk += bytes;
		return (int64_t)old;
	}
	case KC_SEND:
	case KC_TRYSEND:
		if (!user_range(t, a[2], a[3], false))
			return -EFAULT;
		return kcall((unsigned)nr, a, 0, 0);
	case KC_RECV:
	case KC_TRYRECV:
		if (!user_range(t, a[2], a[3], true) || (a[4] && !user_range(t, a[4], sizeof(struct msg_status), true)))
			return -EFAULT;
		return kcall((unsigned)nr, a, 0, 0);
	case KC_PROBE:
		if (!a[3] || !user_range(t, a[3], sizeof(struct msg_status), true))
			return -EFAULT;
		return kcall((unsigned)nr, a, 0, 0);
	case KC_CORE_ID:
	case KC_DOMAIN_ID:
	case KC_JOB_ID:
	case KC_RANK:
	case KC_JOB_SIZE:
	case KC_TIME_NS:
	case KC_SLEEP_US:
		return kcall((unsigned)nr, a, 0, 0);
	case KC_INVADE: {
		/* (n, properties, cores out, capacity): the new cores, nearest first; the
		 * array must hold all that may come (n, or the whole machine if that is less) */
		uint64_t most = a[0] < mesh.cores ? a[0] : mesh.cores;
		if (a[2] && (a[3] < most || !user_range(t, a[2], most * sizeof(uint16_t), true)))
			return a[3] < most ? -EINVAL : -EFAULT;
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
		if (!user_range(t, a[0], a[1] * sizeof(uint16_t), false))
			return -EFAULT;
		uint16_t cores[MOSAIC_MAX_HARTS];
		memcpy(cores, (const void *)a[0], a[1] * sizeof(uint16_t));
		return claim_retreat(cores, (uint32_t)a[1]);
	}
	case KC_INFECT: {
		/* (team entries, n): member i runs fn(arg) on claimed core i */
		if (a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		if (a[1] && !user_range(t, a[0], a[1] * sizeof(struct team_entry), false))
			return -EFAULT;
		struct team_entry team[MOSAIC_MAX_HARTS];
		memcpy(team, (const void *)a[0], a[1] * sizeof(struct team_entry));
		for (uint64_t i = 0; i < a[1]; i++)
			if (!utask_entry_ok(t->name, team[i].fn))
				return -EINVAL; /* not code of this program */
		return claim_infect(t->name, team, (uint32_t)a[1]);
	}
	case KC_TEAM_WAIT: {
		/* (results out, capacity): every member's end */
		if (a[0] && !user_range(t, a[0], a[1] * sizeof(struct member_result), true))
			return -EFAULT;
		if (!a[0] || a[1] > MOSAIC_MAX_HARTS)
			return -EINVAL;
		struct member_result res[MOSAIC_MAX_HARTS];
		int64_t r = claim_team_wait(res, (uint32_t)a[1]);
		if (r >= 0)
			memcpy((void *)a[0], res, a[1] * sizeof res[0]);
		return r;
	}
	case KC_CLAIM: {
		/* (cores out, capacity): the claim's size; its cores in claim order */
		if (a[0] && !user_range(t, a[0], a[1] * sizeof(uint16_t), true))
			return -EFAULT;
		uint16_t cores[MOSAIC_MAX_HARTS];
		uint32_t n = claim_cores(cores, MOSAIC_MAX_HARTS);
		if (a[0])
			memcpy((void *)a[0], cores, (n < a[1] ? n : a[1]) * sizeof cores[0]);
		return n;
	}
	default:
		if ((nr >= KC_ISEND && nr <= KC_WAIT) || (nr >= KC_GROUP_INIT && nr <= KC_ALLTOALLV) || nr == KC_JOB_GROUP)
			return user_msg_kcall(t, nr, a);
		return -ENOSYS; /* unknown, or reserved */
	}
}

void utask_trap(struct trap_frame *f)
{
	struct utask *t = this_hart()->utask;
	if (!t)
		return; /* cannot happen: U-mode runs only under utask_run */
	if ((f->scause & ~SCAUSE_INTERRUPT) == 8 /* ecall from U-mode */) {
		f->sepc += 4;
		uint64_t args[6] = {f->regs[10], f->regs[11], f->regs[12], f->regs[13], f->regs[14], f->regs[15]};
		/* a call may wait for messages: take interrupts meanwhile, and touch user pages
		 * only through pointers checked above (SUM) */
		csr_set(sstatus, SSTATUS_SUM);
		irq_enable();
		f->regs[10] = (uint64_t)user_kcall(t, f->regs[17], args);
		irq_disable();
		csr_clear(sstatus, SSTATUS_SUM);
		return;
	}
	t->res->cause = f->scause;
	t->res->sepc = f->sepc;
	t->res->stval = f->stval;
	kprintf("mosaic: core %u: task '%s' killed: %s at %lx (address %lx)\n", this_cpu(), t->name,
		trap_cause_name(f->scause), f->sepc, f->stval);
	uctx_leave(t->kctx, KILL_MARK);
}

/* ---- the shell ---- */

struct run_request {
	const char *name;
	uint64_t arg;
	struct utask_result res;
};

static void run_on_this_core(void *arg)
{
	struct run_request *r = arg;
	utask_run(r->name, r->arg, &r->res);
}

/* Runs a program on a pico-kernel and reports how it ended; for the shell and tests. */
int utask_run_on(unsigned core, const char *name, uint64_t arg, struct utask_result *res)
{
	if (core >= hart_count)
		return -ENXIO;
	if (is_master(core))
		return -EPERM; /* user tasks run on pico-kernels */
	struct run_request r = {.name = name, .arg = arg};
	if (core == this_cpu())
		run_on_this_core(&r);
	else if (hart_call(core, run_on_this_core, &r))
		hart_call_wait(core);
	else
		return -EBUSY;
	*res = r.res;
	return 0;
}

SHELL_CMD(run, "run PROGRAM [ARG] [core C]", "run a user program on a pico-kernel (list them with 'programs')")
{
	if (argc < 2 || argc > 5 || argc == 4)
		return SHELL_USAGE;
	uint64_t arg = 0, core = hart_count;
	if (argc >= 3 && !parse_u64(argv[2], &arg))
		return SHELL_USAGE;
	if (argc == 5 && (strcmp(argv[3], "core") != 0 || !parse_u64(argv[4], &core)))
		return SHELL_USAGE;
	if (!user_program_find(argv[1])) {
		kprintf("run: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE;
	}
	if (argc < 5) /* the first idle pico-kernel */
		for (unsigned c = 0; c < hart_count && core == hart_count; c++)
			if (!is_master(c) && (c == this_cpu() || harts[c].state == HART_ONLINE))
				core = c;
	if (core >= hart_count) {
		kprintf("run: no idle pico-kernel (every core is a micro-kernel or busy; try fewer domains=)\n");
		return 1;
	}
	struct utask_result res;
	int e = utask_run_on((unsigned)core, argv[1], arg, &res);
	if (e) {
		kprintf("run: cannot run on core %lu: %s\n", core, kstrerror(e));
		return 1;
	}
	if (res.status == 0)
		kprintf("mosaic: task %s on core %lu exited with %d\n", argv[1], core, res.exit_code);
	else if (res.status == -EFAULT)
		kprintf("mosaic: task %s on core %lu was killed\n", argv[1], core);
	else
		kprintf("mosaic: task %s on core %lu could not start: %s\n", argv[1], core, kstrerror(res.status));
	return res.status == 0 && res.exit_code == 0 ? 0 : 1;
}

SHELL_CMD(programs, "programs", "list the user programs built into the kernel")
{
	if (argc != 1)
		return SHELL_USAGE;
	for (unsigned i = 0; i < user_program_count; i++)
		kprintf("  %-12s %lu bytes\n", user_programs[i].name,
			(uint64_t)(user_programs[i].end - user_programs[i].start));
	return 0;
}
