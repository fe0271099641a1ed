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
#include "kernel/bootargs.h"
#include "drivers/noc/mesh.h"
#include "drivers/timer.h"
#include "kernel/vtime.h"
#include "kernel/shm.h"
#include "kernel/share.h"
#include "kernel/alloc/user_job.h"

uint64_t utask_cpu_ms = UTASK_CPU_MS_DEFAULT;
BOOTARG_U64("task_cpu_ms", utask_cpu_ms, 0, 86400000,
	    "CPU-time limit of a user task: ms of guest time it may hold its core (0: none; a job's cpu MS overrides)");

#define UTASK_REQUESTS 16 /* non-blocking message requests a task may have open */
#define UTASK_GROUPS 4    /* groups a task may build */

struct utask {
	const char *name;
	struct msg_request reqs[UTASK_REQUESTS];
	bool req_open[UTASK_REQUESTS];
	struct msg_group *groups[UTASK_GROUPS];
	struct address_space as;
	uint64_t heap_start, brk, heap_limit;
	uint64_t heap_account; /* 1 + the core whose account its heap is charged to; 0: where it ends */
	uint64_t kctx[14];
	struct utask_result *res;
	int job_group; /* 1 + the handle KC_JOB_GROUP gave out (0: none yet) */
	uint64_t cpu_ms;   /* its CPU-time limit (0: none) */
	bool over_limit;   /* the limit passed: it is being killed for that */
	bool ilet;         /* a team member in its owner's address space: as is borrowed, not owned */
	unsigned ilet_slots; /* the stacks of i-let slots 0..ilet_slots-1 are mapped */
	struct shm_mapping shm[SHM_PER_TASK]; /* the job's shared windows it mapped (kernel/shm.h) */
	unsigned nshm;
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
#define PT_TLS 7
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

/*
 * Sets up the task's thread-local block just below `top` (a stack top, page aligned): a copy
 * of the program's TLS image (.tdata, then .tbss zeroed), tp pointing at its start as the
 * RISC-V ABI wants; the stack grows down from there. Returns that address, or 0 if the
 * program's TLS does not fit UTASK_TLS_BYTES or the page is not mapped.
 */
static uint64_t tls_setup(struct utask *t, const struct user_program *p, uint64_t top)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)p->start;
	uint64_t block = top - UTASK_TLS_BYTES, pa = as_lookup(&t->as, block & ~(PAGE_SIZE - 1));
	if (!pa || top % PAGE_SIZE)
		return 0;
	uint8_t *k = (uint8_t *)(pa + block % PAGE_SIZE);
	memset(k, 0, UTASK_TLS_BYTES);
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)(p->start + eh->phoff) + i;
		if (ph->type != PT_TLS)
			continue;
		if (ph->memsz > UTASK_TLS_BYTES || ph->filesz > ph->memsz || ph->align > 16 ||
		    ph->offset + ph->filesz > (uint64_t)(p->end - p->start))
			return 0;
		memcpy(k, p->start + ph->offset, ph->filesz);
	}
	return block;
}

/* ---- running ---- */

void utask_run(const char *name, uint64_t arg, struct utask_result *res) { utask_run_entry(name, 0, arg, 0, res); }

/* True if fn is an address in the code of program p (its executable segments, even). */
static bool entry_ok(const struct user_program *p, uint64_t fn)
{
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)p->start;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)(p->start + eh->phoff) + i;
		if (ph->type == PT_LOAD && (ph->flags & 1) && fn >= ph->vaddr && fn < ph->vaddr + ph->memsz && !(fn & 1))
			return true;
	}
	return false;
}

/* The message session of the task on a core (0: none runs there). */
static uint32_t session_on(unsigned core)
{
	struct msg_usage u;
	msg_usage(core, &u);
	return u.session;
}

/* The timer's watchdog for the running task (drivers/timer.h): its CPU time is up. */
static void cpu_limit_passed(void)
{
	struct hart *me = this_hart();
	if (!me->utask || !me->task_serial)
		return;
	me->utask->over_limit = true;
	__atomic_store_n(&me->kill_task, me->task_serial, __ATOMIC_RELEASE);
}

/* Ends the task from a trap if it is to be killed: the one-line report, then out. */
static void leave_if_killed(struct utask *t)
{
	if (!hart_kill_pending())
		return;
	t->res->kill_reason = t->over_limit ? UTASK_KILL_CPU_LIMIT : UTASK_KILL_REQUEST;
	if (t->over_limit)
		kprintf("mosaic: core %u: task '%s' killed: CPU-time limit of %lu ms reached\n", this_cpu(), t->name,
			t->cpu_ms);
	else
		kprintf("mosaic: core %u: task '%s' killed on request\n", this_cpu(), t->name);
	uctx_leave(t->kctx, KILL_MARK);
}

int utask_kill(unsigned core, uint32_t session)
{
	if (core >= hart_count)
		return -ENXIO;
	struct hart *h = &harts[core];
	uint64_t serial = __atomic_load_n(&h->task_serial, __ATOMIC_ACQUIRE);
	if (!serial || (session && session_on(core) != session))
		return -ESRCH;
	/* the serial names this task only: if it ends meanwhile, no later task is hit */
	__atomic_store_n(&h->kill_task, serial, __ATOMIC_RELEASE);
	ipi_send(core, IPI_WAKE);
	return 0;
}

/* A task's structure for program p, with no address space yet; NULL without memory. */
static struct utask *task_new(const struct user_program *p, uint64_t cpu_ms, struct utask_result *res)
{
	struct utask *t = kmalloc(sizeof *t);
	if (!t)
		return 0;
	memset(t, 0, sizeof *t);
	t->name = p->name;
	t->res = res;
	t->heap_limit = UTASK_HEAP_LIMIT;
	t->cpu_ms = cpu_ms ? cpu_ms : utask_cpu_ms;
	return t;
}

/* Runs task t from `frame` on this core until it exits or is killed, then reclaims what it
 * left (messages, requests, groups, its team and claim, its heap account, its pages unless
 * borrowed) and frees t. */
static void task_run(struct utask *t, struct trap_frame *frame, struct utask_result *res)
{
	static uint64_t last_serial; /* shared by every core: an atomic counter */
	/* U-mode, interrupts on once there, no FPU, no kernel access to user pages yet */
	frame->sstatus = (csr_read(sstatus) & ~(SSTATUS_SPP | SSTATUS_SIE | SSTATUS_SUM | (3UL << 13))) | SSTATUS_SPIE;
	struct hart *me = this_hart();
	/* its messages: the session begun for it (a job's, a team's) or a fresh one */
	if (!msg_session())
		msg_session_begin(msg_new_session());
	else
		msg_session_begin(msg_session()); /* drops what other sessions left here */
	me->utask = t;
	__atomic_store_n(&me->task_serial, __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED), __ATOMIC_RELEASE);
	if (t->cpu_ms)
		timer_set_limit(timer_now() + timer_us_to_ticks(t->cpu_ms * 1000), cpu_limit_passed);
	as_activate(&t->as);
	irq_disable();
	share_arm(); /* a time-sliced core: its slice check survives what the kernel did since */
	long v = uctx_enter(frame, t->kctx);
	me = this_hart(); /* a task of a share group may have moved to another core meanwhile */
	as_activate(0);
	csr_clear(sstatus, SSTATUS_SUM);
	timer_set_limit(UINT64_MAX, 0);
	bool killed = v == KILL_MARK;
	/* no more kills for it: the clean-up below must not be interrupted */
	__atomic_store_n(&me->task_serial, 0, __ATOMIC_RELEASE);
	me->utask = 0;
	irq_enable(); /* we left through a trap, with interrupts off */
	/* its open requests point into its pages, which are no longer mapped here: they go before
	 * anything below waits, or that wait's progress would send from a user address with paging
	 * off (a kernel load access fault on a pending isend, found by the fuzzer in claim_owner_end) */
	for (unsigned i = 0; i < UTASK_REQUESTS; i++)
		if (t->req_open[i])
			msg_cancel(&t->reqs[i]);
	claim_owner_end(killed); /* its team ends (killed with it), its claimed cores go back */
	user_job_task_end(); /* the reports of its jobs still running are thrown away as they come */
	if (t->brk > t->heap_start) {
		/* give the task's heap back to the master's account for this core */
		uint64_t back[6] = {(uint64_t)-(int64_t)(t->brk - t->heap_start), t->heap_account};
		kcall(KC_HEAP_GROW, back, 0, 0);
	}
	for (unsigned i = 0; i < UTASK_GROUPS; i++)
		kfree(t->groups[i]);
	msg_session_end(); /* every user message still addressed to this core goes */
	for (unsigned i = 0; i < t->nshm; i++)
		shm_detach(t->shm[i].pa); /* the last task of the job to map a window frees it */
	if (killed) {
		res->status = -EFAULT;
	} else {
		res->status = 0;
		res->exit_code = (int)(v - EXIT_MARK);
	}
	if (!t->ilet)
		as_destroy(&t->as);
	kfree(t);
}

void utask_run_entry(const char *name, uint64_t fn, uint64_t arg, uint64_t cpu_ms, struct utask_result *res)
{
	*res = (struct utask_result){0};
	const struct user_program *p = user_program_find(name);
	if (!p) {
		res->status = -ENOENT;
		return;
	}
	struct utask *t = task_new(p, cpu_ms, res);
	if (!t || !as_create(&t->as)) {
		kfree(t);
		res->status = -ENOMEM;
		return;
	}
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
	uint64_t tls = e ? 0 : tls_setup(t, p, stack_top);
	if (!tls) {
		as_destroy(&t->as);
		kfree(t);
		res->status = -ENOEXEC; /* its thread-local data does not fit */
		return;
	}
	struct trap_frame frame = {0};
	frame.regs[REG_SP] = tls;
	frame.regs[REG_TP] = tls;
	frame.regs[10] = arg;
	frame.regs[11] = fn; /* crt0: a team member's function, or 0 for main */
	frame.sepc = entry;
	task_run(t, &frame, res);
}

/* ---- i-lets: team members in their owner's address space ---- */

static uint64_t ilet_stack_top(unsigned slot) { return ILET_BASE + (slot + 1) * ILET_SLOT; }

int utask_ilet_stacks(unsigned n)
{
	struct utask *t = this_hart()->utask;
	if (!t || t->ilet || n > ILET_SLOTS)
		return -EINVAL; /* an i-let's team would share the stacks of its owner's */
	for (unsigned i = t->ilet_slots; i < n; i++) {
		uint64_t top = ilet_stack_top(i), pages = ILET_SLOT / PAGE_SIZE - 1; /* the lowest page is the guard */
		int e = map_range(t, top - pages * PAGE_SIZE, pages * PAGE_SIZE, PTE_R | PTE_W);
		if (e)
			return e; /* the pages mapped so far stay: the owner's, freed with it */
		t->ilet_slots = i + 1;
	}
	return 0;
}

void utask_run_ilet(const char *name, uint64_t root_pa, unsigned slot, uint64_t fn, uint64_t arg, uint64_t cpu_ms,
		    struct utask_result *res)
{
	*res = (struct utask_result){0};
	const struct user_program *p = user_program_find(name);
	if (!p || !root_pa || slot >= ILET_SLOTS) {
		res->status = p ? -EINVAL : -ENOENT;
		return;
	}
	struct utask *t = task_new(p, cpu_ms, res);
	if (!t) {
		res->status = -ENOMEM;
		return;
	}
	t->ilet = true;
	as_adopt(&t->as, root_pa);
	uint64_t tls = tls_setup(t, p, ilet_stack_top(slot)); /* its own errno, console line, ... */
	if (!tls) {
		kfree(t);
		res->status = -EINVAL; /* the owner mapped no stack for this slot */
		return;
	}
	const struct elf64_ehdr *eh = (const struct elf64_ehdr *)p->start;
	struct trap_frame frame = {0};
	frame.regs[REG_SP] = tls;
	frame.regs[REG_TP] = tls;
	frame.regs[10] = arg;
	frame.regs[11] = fn;
	frame.sepc = eh->entry; /* crt0 calls fn and exits: no loading, no data set up again */
	task_run(t, &frame, res);
}

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
 * the call before (share_call_allowed).
 */
static int64_t job_spawn(struct utask *t, const uint64_t *a)
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
	return user_job_spawn(name, a[2], a[3], a[4], a[5]);
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
		if (!user_range(t, a[2], a[3], true) || (a[4] && !user_range(t, a[4], sizeof(struct msg_status), true)))
			return -EFAULT;
		return nr == KC_RECV
			       ? msg_recv_typed(MSG_TYPE_USER, peer, tag, (void *)a[2], (uint32_t)a[3], (struct msg_status *)a[4])
			       : msg_tryrecv_typed(MSG_TYPE_USER, peer, tag, (void *)a[2], (uint32_t)a[3],
						   (struct msg_status *)a[4]);
	default: /* KC_PROBE */
		if (!a[3] || !user_range(t, a[3], sizeof(struct msg_status), true))
			return -EFAULT;
		return msg_probe_typed(MSG_TYPE_USER, peer, tag, a[2] != 0, (struct msg_status *)a[3]);
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
		if (map_range(t, t->brk, bytes, PTE_R | PTE_W))
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
		if (session_on((unsigned)a[0]) != mine)
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
		/* on the core's clock; a sleep ends early, with -EINTR, when the task is to be killed */
		return vtime_sleep_until_ns(vtime_now_ns() + a[0] * 1000, hart_kill_pending) ? 0 : -EINTR;
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
		return job_spawn(t, a);
	case KC_JOB_WAIT: {
		/* (report out, flags): the buffer is checked before the wait, and written only after */
		if (a[1] & ~USER_JOB_NOWAIT)
			return -EINVAL;
		if (!user_range(t, a[0], sizeof(struct user_job_report), true))
			return -EFAULT;
		struct user_job_report rep;
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
			if (!prog || !entry_ok(prog, team[i].fn))
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
		if (!user_array(t, a[0], a[1], sizeof(struct member_result), true))
			return -EFAULT;
		struct member_result res[MOSAIC_MAX_HARTS];
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
		bool shared = share_active(); /* a time-sliced core (kernel/share.h) */
		uint64_t t0 = shared ? share_kcall_begin(f) : 0;
		int64_t r = shared && !share_call_allowed(f->regs[17]) ? -ENOTSUP : user_kcall(t, f->regs[17], args);
		if (r == SHARE_RESTART)
			f->sepc -= 4; /* a barrier wait on a shared core: the call is made again */
		else
			f->regs[10] = (uint64_t)r;
		irq_disable();
		csr_clear(sstatus, SSTATUS_SUM);
		leave_if_killed(t);
		if (shared) {
			share_note_kcall(t0);
			share_tick(f);
		}
		return;
	}
	t->res->cause = f->scause;
	t->res->sepc = f->sepc;
	t->res->stval = f->stval;
	t->res->kill_reason = UTASK_KILL_FAULT;
	kprintf("mosaic: core %u: task '%s' killed: %s at %lx (address %lx)\n", this_cpu(), t->name,
		trap_cause_name(f->scause), f->sepc, f->stval);
	uctx_leave(t->kctx, KILL_MARK);
}

void utask_interrupted(struct trap_frame *f)
{
	struct utask *t = this_hart()->utask;
	if (t)
		leave_if_killed(t);
	share_tick(f); /* a time-sliced core: the next task when the slice is over */
}

/* ---- the shell ---- */

struct run_request {
	const char *name;
	uint64_t arg, cpu_ms;
	struct utask_result res;
};

static void run_on_this_core(void *arg)
{
	struct run_request *r = arg;
	utask_run_entry(r->name, 0, r->arg, r->cpu_ms, &r->res);
}

int utask_run_on(unsigned core, const char *name, uint64_t arg, struct utask_result *res)
{
	return utask_run_limited_on(core, name, arg, 0, res);
}

/* Runs a program on a pico-kernel and reports how it ended; for the shell and tests. */
int utask_run_limited_on(unsigned core, const char *name, uint64_t arg, uint64_t cpu_ms, struct utask_result *res)
{
	if (core >= hart_count)
		return -ENXIO;
	if (is_master(core))
		return -EPERM; /* user tasks run on pico-kernels */
	struct run_request r = {.name = name, .arg = arg, .cpu_ms = cpu_ms};
	if (core == this_cpu())
		run_on_this_core(&r);
	else if (hart_call(core, run_on_this_core, &r))
		hart_call_wait(core);
	else
		return -EBUSY;
	*res = r.res;
	return 0;
}

SHELL_CMD(run, "run PROGRAM [ARG] [core C] [cpu MS]",
	  "run a user program on a pico-kernel (list them with 'programs'); cpu: its CPU-time limit in ms")
{
	if (argc < 2)
		return SHELL_USAGE;
	uint64_t arg = 0, core = hart_count, cpu_ms = 0;
	int i = 2;
	if (argc > 2 && argv[2][0] >= '0' && argv[2][0] <= '9' && !parse_u64(argv[i++], &arg))
		return SHELL_USAGE;
	bool chose_core = false, chose_cpu = false;
	for (; i < argc; i += 2) {
		uint64_t *into = !strcmp(argv[i], "core") ? &core : !strcmp(argv[i], "cpu") ? &cpu_ms : 0;
		if (!into || i + 1 >= argc || !parse_u64(argv[i + 1], into))
			return SHELL_USAGE;
		chose_core |= into == &core;
		chose_cpu |= into == &cpu_ms;
	}
	if (chose_cpu && (cpu_ms == 0 || cpu_ms > 86400000)) {
		kprintf("run: cpu MS must be 1..86400000 (without it: the boot default task_cpu_ms)\n");
		return SHELL_USAGE;
	}
	if (!user_program_find(argv[1])) {
		kprintf("run: no program '%s' (see 'programs')\n", argv[1]);
		return SHELL_USAGE;
	}
	if (!chose_core) /* the first idle pico-kernel */
		for (unsigned c = 0; c < hart_count && core == hart_count; c++)
			if (!is_master(c) && (c == this_cpu() || harts[c].state == HART_ONLINE))
				core = c;
	if (core >= hart_count) {
		kprintf("run: no idle pico-kernel (every core is a micro-kernel or busy; try fewer domains=)\n");
		return 1;
	}
	struct utask_result res;
	int e = utask_run_limited_on((unsigned)core, argv[1], arg, cpu_ms, &res);
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

SHELL_CMD(kill, "kill CORE | kill job J",
	  "kill the user task on CORE, or every task of job J (its id as 'mk' and 'jobs' show it)")
{
	uint64_t v;
	if (argc == 2 && parse_u64(argv[1], &v)) {
		int e = utask_kill(v < hart_count ? (unsigned)v : hart_count, 0);
		if (e)
			kprintf("kill: %s\n", e == -ESRCH ? "no user task runs on that core" : "no such core");
		else
			kprintf("kill: the task on core %lu is being killed\n", v);
		return e ? 1 : 0;
	}
	if (argc != 3 || strcmp(argv[1], "job") != 0 || !parse_u64(argv[2], &v) || v >= MSG_SESSION_JOB)
		return SHELL_USAGE;
	uint32_t session = MSG_SESSION_JOB | (uint32_t)v;
	unsigned n = 0;
	for (unsigned c = 0; c < hart_count; c++)
		if (utask_kill(c, session) == 0)
			n++;
	kprintf("kill: %u task%s of job %lu being killed\n", n, n == 1 ? "" : "s", v);
	return n ? 0 : 1;
}
