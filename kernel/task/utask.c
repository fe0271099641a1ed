/* Loading, running and policing user tasks (see utask.h). */
#include "kernel/task/utask.h"
#include "kernel/console/shell.h"
#include "kernel/task/utask_internal.h"
#include "kernel/core/hart.h"
#include "arch/riscv/csr.h"
#include "drivers/timer.h"
#include "kernel/msg/msg.h"
#include "kernel/kcall/kcall.h"
#include "kernel/core/errno.h"
#include "kernel/mm/kheap.h"
#include "kernel/console/console.h"
#include "kernel/mm/page_alloc.h"
#include "lib/string.h"
#include "kernel/alloc/invasive.h"
#include "kernel/core/bootargs.h"
#include "kernel/task/share/share.h"
#include "kernel/alloc/user_job.h"
#include "kernel/time/vtime.h"
#include "lib/atomic.h"
#include "kernel/task/uargs.h"
#include "lib/format.h"

uint64_t utask_cpu_ms = UTASK_CPU_MS_DEFAULT;
BOOTARG_U64("task_cpu_ms", utask_cpu_ms, 0, 86400000,
	    "CPU-time limit of a user task: ms of guest time it may hold its core (0: none; a job's cpu MS overrides)");


/* ---- ELF loading ---- */

/* Maps a fresh zeroed page at every page of [va, va + len) not mapped yet. */
int utask_map_range(struct utask *t, uint64_t va, uint64_t len, uint64_t flags)
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
	char why[8];
	if (utask_elf_check(p->start, (uint64_t)(p->end - p->start), why, sizeof why))
		return -ENOEXEC; /* a host program was checked at boot with its reason; a built-in one is ours */
	uint64_t top = USER_BASE;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_phdr *ph = (const struct elf64_phdr *)(p->start + eh->phoff) + i;
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		uint64_t flags = PTE_R | (ph->flags & 2 ? PTE_W : 0) | (ph->flags & 1 ? PTE_X : 0);
		int e = utask_map_range(t, ph->vaddr, ph->memsz, flags);
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
bool utask_entry_ok(const struct user_program *p, uint64_t fn)
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
uint32_t utask_session_on(unsigned core)
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

/* Ends the task from a trap if it is to be killed: the one-line report, then out. A kill is a
 * hand-over from its killer (utask_kill): the task ends no earlier than the killer's clock at
 * the kill, as a message's receiver takes it no earlier than its sending. */
static void leave_if_killed(struct utask *t)
{
	if (!hart_kill_pending())
		return;
	if (!t->over_limit)
		vtime_advance_to(__atomic_load_n(&this_hart()->kill_at, __ATOMIC_ACQUIRE));
	t->res->kill_reason = t->over_limit ? UTASK_KILL_CPU_LIMIT : UTASK_KILL_REQUEST;
	if (t->over_limit)
		kprintf("mosaic: core %u: task '%s' killed: CPU-time limit of %lu ms reached\n", this_cpu(), t->name,
			t->cpu_ms);
	else
		kprintf("mosaic: core %u: task '%s' killed on request at %lu us (%s time)\n", this_cpu(), t->name,
			vtime_now_ns() / 1000, vtime_active ? "virtual" : "serial");
	uctx_leave(t->kctx, KILL_MARK);
}

/*
 * The kill is a hand-over on the cores' clocks: stamped at the killer's clock and noted to the
 * target like a message arriving then, so that no core's clock can pass it before the target has
 * taken it (under vtime=1 a target waiting for nothing of its own, a child job's end say, was
 * published as waiting for nothing, and the machine ran on for seconds past the kill before the
 * emulator happened to run it). The IPI wakes the target from any wait; a task time-sliced here
 * that does not run is marked by the core itself (share_kill_request).
 */
int utask_kill(unsigned core, uint32_t session) { return utask_kill_at(core, session, 0); }

int utask_kill_at(unsigned core, uint32_t session, uint64_t *at)
{
	if (core >= hart_count)
		return -ENXIO;
	struct hart *h = &harts[core];
	uint64_t serial = __atomic_load_n(&h->task_serial, __ATOMIC_SEQ_CST);
	uint32_t group = __atomic_load_n(&h->sliced_group, __ATOMIC_SEQ_CST);
	bool sliced = group && (!session || __atomic_load_n(&h->sliced_session, __ATOMIC_ACQUIRE) == session);
	/* a time-sliced core's running task is one of its group's: the core's own session says nothing */
	bool running = serial && (!session || (group ? sliced : utask_session_on(core) == session));
	if (!running && !sliced)
		return -ESRCH;
	uint64_t now = vtime_stamp(); /* holds this core's bound at now until the target is noted */
	atomic_max_u64(&h->kill_at, now);
	if (at)
		*at = now;
	if (sliced)
		share_kill_request(core, group, session != 0);
	/* the serial names this task only: if it ends meanwhile, no later task is hit */
	if (running)
		__atomic_store_n(&h->kill_task, serial, __ATOMIC_SEQ_CST);
	vtime_note_event(core, now);
	vtime_stamp_done();
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
	/* U-mode, interrupts on once there, the FPU zeroed (below), no kernel access to user pages yet */
	frame->sstatus = (csr_read(sstatus) & ~(SSTATUS_SPP | SSTATUS_SIE | SSTATUS_SUM | SSTATUS_FS)) | SSTATUS_SPIE |
			 SSTATUS_FS_INITIAL;
	struct hart *me = this_hart();
	/* its messages: the session begun for it (a job's, a team's) or a fresh one */
	if (!msg_session())
		msg_session_begin(msg_new_session());
	else
		msg_session_begin(msg_session()); /* drops what other sessions left here */
	me->utask = t;
	/* an earlier kill's time is not this task's: gone before a killer can read the new serial (on a
	 * time-sliced core the core's other tasks may still have a kill of that time to take) */
	if (!share_active())
		__atomic_store_n(&me->kill_at, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&me->task_serial, __atomic_add_fetch(&last_serial, 1, __ATOMIC_RELAXED), __ATOMIC_SEQ_CST);
	if (t->cpu_ms)
		timer_set_limit(timer_now() + timer_us_to_ticks(t->cpu_ms * 1000), cpu_limit_passed);
	as_activate(&t->as);
	irq_disable();
	/* a kill that came after the serial was published may have been taken here already, in the
	 * kernel: raised again, it is taken at the task's first instruction (utask_interrupted) */
	if (hart_kill_pending())
		ipi_send(this_cpu(), IPI_WAKE);
	share_arm(); /* a time-sliced core: its slice check survives what the kernel did since */
	shell_task_starts(); /* on the shell's core, input typed before the task is served from its traps */
	fpu_zero(); /* nothing of the FP registers of the task that ran here before (t->fp is zero too) */
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

/*
 * Puts argv[] (the program's name, then a's arguments, NULL), envp[] (a's entries, NULL) and
 * their strings just below `below` (the TLS block, on the task's mapped stack), in that order
 * upwards; returns where they start (the task's stack pointer, 16-byte aligned), *argc, *envp.
 */
static uint64_t args_setup(struct utask *t, const struct uargs *a, const char *name, uint64_t below, uint64_t *argc,
			   uint64_t *envp)
{
	uint64_t base = below - uargs_stack_bytes(a, name), n = a ? a->argc : 0, m = a ? a->envc : 0;
	uint64_t argv = base, env = argv + (n + 2) * 8, str = env + (m + 1) * 8, zero = 0;
	uint64_t len0 = strlen(name) + 1;
	copy_to_task(t, str, (const uint8_t *)name, len0);
	copy_to_task(t, argv, (const uint8_t *)&str, 8);
	str += len0;
	if (a)
		copy_to_task(t, str, (const uint8_t *)a->text, a->len);
	const char *s = a ? a->text : 0;
	for (uint64_t i = 0; i < n + m; i++) {
		copy_to_task(t, i < n ? argv + (i + 1) * 8 : env + (i - n) * 8, (const uint8_t *)&str, 8);
		uint64_t l = strlen(s) + 1;
		s += l, str += l;
	}
	copy_to_task(t, argv + (n + 1) * 8, (const uint8_t *)&zero, 8);
	copy_to_task(t, env + m * 8, (const uint8_t *)&zero, 8);
	*argc = n + 1;
	*envp = env;
	return base;
}

void utask_run_entry(const char *name, uint64_t fn, uint64_t arg, uint64_t cpu_ms, struct utask_result *res)
{
	utask_run_args(name, fn, arg, 0, cpu_ms, res);
}

void utask_run_args(const char *name, uint64_t fn, uint64_t arg, const struct uargs *args, uint64_t cpu_ms,
		    struct utask_result *res)
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
		e = utask_map_range(t, stack_top - UTASK_STACK_PAGES * PAGE_SIZE, UTASK_STACK_PAGES * PAGE_SIZE, PTE_R | PTE_W);
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
	uint64_t argc, envp, sp = args_setup(t, args, p->name, tls, &argc, &envp);
	struct trap_frame frame = {0};
	frame.regs[REG_SP] = sp;
	frame.regs[REG_TP] = tls;
	frame.regs[10] = arg;
	frame.regs[11] = fn; /* crt0: a team member's function, or 0 for main */
	frame.regs[12] = argc;
	frame.regs[13] = sp; /* argv */
	frame.regs[14] = envp;
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
		int e = utask_map_range(t, top - pages * PAGE_SIZE, pages * PAGE_SIZE, PTE_R | PTE_W);
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

void utask_fpu_out(struct utask *t)
{
	if (t && fpu_dirty())
		fpu_save(&t->fp);
}

void utask_fpu_in(struct utask *t, struct trap_frame *f)
{
	if (!t)
		return; /* it has not started: task_run zeroes the FPU for it */
	fpu_load(&t->fp);
	if (f)
		f->sstatus = (f->sstatus & ~(uint64_t)SSTATUS_FS) | SSTATUS_FS_CLEAN; /* as loaded: no save unless it writes */
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
		bool shared = share_active(); /* a time-sliced core (kernel/task/share/share.h) */
		uint64_t t0 = shared ? share_kcall_begin(f) : 0;
		int64_t r = shared && !share_call_allowed(f->regs[17]) ? -ENOTSUP : utask_kcall(t, f->regs[17], args);
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
			leave_if_killed(t); /* killed while another task of the core ran */
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
	shell_task_edge(); /* on the shell's core the shell reads what was typed (a `kill` takes effect below) */
	struct utask *t = this_hart()->utask;
	if (t)
		leave_if_killed(t);
	share_tick(f); /* a time-sliced core: the next task when the slice is over */
	if (t)
		leave_if_killed(t); /* killed while another task of the core ran */
}
