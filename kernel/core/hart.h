/*
 * Per-hart data. Every hart owns one slot of harts[], found through its tp
 * register; other harts touch a slot only through the fields marked shared,
 * which is how bring-up checks in and how IPIs carry their reasons.
 * "cpu" is Mosaic's dense core id (0..nharts-1, in hart-id order); "hartid"
 * is the id the platform and SBI use, which may have gaps.
 */
#ifndef KERNEL_HART_H
#define KERNEL_HART_H

#include <stdint.h>
#include <stdbool.h>
#include "kernel/core/config.h"

enum hart_state {
	HART_ABSENT = 0, /* no such hart, or beyond MOSAIC_MAX_HARTS */
	HART_STARTING,   /* SBI hart_start issued, not checked in yet */
	HART_ONLINE,     /* checked in, idle in WFI between work */
	HART_BUSY,       /* running a function sent with hart_call */
	HART_FAILED,     /* did not start, or did not check in in time */
	HART_STOPPED,    /* parked for good (panic elsewhere, or poweroff) */
};

/* Reasons an IPI can carry; several may be pending at once. */
enum ipi_reason {
	IPI_CALL = 1 << 0, /* run the function in hart.call */
	IPI_PING = 1 << 1, /* answer with IPI_PONG (ktest ipi) */
	IPI_PONG = 1 << 2, /* a ping was answered (the count is in hart.pongs) */
	IPI_STOP = 1 << 3, /* park for good */
	IPI_WAKE = 1 << 4, /* only leave WFI and re-check what we wait for */
};

#define HART_CHECKIN_MAGIC 0x4d4f534149430000ULL /* "MOSAIC\0\0" */

typedef void (*hart_fn)(void *arg);
struct utask;

struct hart {
	/* --- read by arch/riscv/entry.S: keep it first --- */
	uint64_t kstack_top;

	uint32_t cpu;
	uint32_t hartid;
	void *kstack_base;

	/* shared: written by others */
	volatile enum hart_state state;
	volatile uint64_t checkin;      /* HART_CHECKIN_MAGIC | hartid, written by the hart itself */
	volatile uint32_t ipi_pending;  /* enum ipi_reason bits, set atomically by senders */
	volatile hart_fn call_fn;       /* work sent with hart_call, run outside trap context */
	void *volatile call_arg;
	volatile uint32_t call_done;
	volatile uint32_t call_from;    /* cpu to wake when the call is done */
	volatile uint64_t call_vt;      /* the caller's clock at the call (kernel/time/vtime.h) */
	volatile uint64_t call_end_vt;  /* the callee's clock when its latest call ended */
	volatile uint64_t calls_ended;  /* how many calls it has ended: the next end makes it a call's token */
	volatile uint64_t call_watchers[MOSAIC_MAX_HARTS / 64]; /* cores other than the caller waiting for a call's end */
	volatile uint64_t ping_seen[MOSAIC_MAX_HARTS / 64]; /* senders whose ping this hart answered */
	volatile uint64_t ping_request[MOSAIC_MAX_HARTS / 64];
	volatile uint32_t pongs;
	volatile uint64_t kill_task;    /* the serial of the task here that is to be killed (0: none) */
	volatile uint64_t kill_at;      /* the latest kill's time on its killer's clock, ns (atomic max) */
	volatile uint64_t kill_sliced;  /* a kill of this core's time-sliced tasks (share_kill_request), 0: none */
	volatile uint32_t sliced_group; /* the share group this core time-slices (its serial), 0: none; */
	volatile uint32_t sliced_session; /* ... and that group's session (both written by this core) */

	/* private statistics, read by the shell and GDB */
	uint64_t online_time;   /* `time` when the hart checked in */
	uint64_t ipis_received;
	uint64_t timer_irqs;
	uint64_t ext_irqs;
	uint64_t wfi_count;
	uint64_t lock_sleeps; /* of the WFIs: asleep waiting for a spinlock (no interrupt taken after it) */
	uint64_t timer_deadline; /* what the hart's timer is armed for (UINT64_MAX: nothing) */
	uint64_t timer_written;  /* the value last written to its stimecmp (or the SBI's timer), 0: none yet */
	int start_error; /* SBI error of hart_start, 0 if fine */
	struct utask *utask; /* the user task running on this hart, or NULL */
	volatile uint64_t task_serial; /* the running task's serial, 0 if none (read by whoever kills it) */
	uint64_t limit_deadline;  /* timer_set_limit: ticks, UINT64_MAX if none */
	void (*limit_fn)(void);   /* called once from the timer interrupt when it passes */
	/* its virtual clock's skipped time (kernel/time/vtime.c, set by vtime_start): the core reads its own
	 * clock inline through it, so reading it costs no call on every message */
	const volatile uint64_t *vt_skip;
	/* its count of nudges (kernel/time/vtime.c, set by vtime_start): every waiting loop reads it in its
	 * wake-up condition, inline through this (vtime_nudges) */
	const volatile uint32_t *vt_nudges;
};

extern struct hart harts[MOSAIC_MAX_HARTS];
extern unsigned hart_count;   /* harts the kernel manages (device tree count, capped at the maximum) */
extern unsigned boot_cpu;

static inline struct hart *this_hart(void)
{
	struct hart *h;
	__asm__ volatile("mv %0, tp" : "=r"(h));
	return h;
}

static inline unsigned this_cpu(void) { return this_hart()->cpu; }

/* True if h points at a slot of harts[]: the trap and panic paths check tp with this
 * before they trust it, so that a corrupt tp is reported instead of faulting again. */
static inline bool hart_is_slot(const struct hart *h)
{
	uintptr_t p = (uintptr_t)h, base = (uintptr_t)harts;
	return p >= base && p - base < sizeof harts && (p - base) % sizeof harts[0] == 0;
}

/* True while the user task on this hart is to be killed: its kernel calls stop waiting. */
static inline bool hart_kill_pending(void)
{
	struct hart *h = this_hart();
	return h->task_serial && __atomic_load_n(&h->kill_task, __ATOMIC_ACQUIRE) == h->task_serial;
}

struct hart *hart_by_hartid(uint32_t hartid);
const char *hart_state_name(int state);

/* Sends an IPI with `reason` to one core, or to every online core but the caller. */
void ipi_send(unsigned cpu, uint32_t reason);
void ipi_broadcast(uint32_t reason);
void ipi_handle(void);
/*
 * Set when the cores' virtual clocks start (kernel/time/vtime.c): from then on WAIT_UNTIL handles a
 * wake-up IPI right after its WFI instead of taking it as a trap. Under virtual time a wake-up
 * runs inside a wait, whose instructions are taken back, so this changes no virtual figure and
 * spares QEMU its exception path on every wake-up (docs/time.md, "Wake-ups without the trap").
 * On the serial clock every instruction counts, so wake-ups keep the trap path; the boot's
 * bring-up, before the clocks start, takes its wake-ups as traps too.
 */
extern bool ipi_handled_after_wfi;
/* "aclint-sswi" or "sbi": how IPIs are sent on this platform and boot. */
const char *ipi_method(void);

/* Runs fn(arg) on another online core (outside trap context) and returns at once;
 * hart_call_wait sleeps in WFI until it finished. False if the core is not online or busy. */
bool hart_call(unsigned cpu, hart_fn fn, void *arg);
void hart_call_wait(unsigned cpu);
/* The same, but returns false as soon as stop(arg) holds (evaluated with interrupts off, cheap)
 * while the call still runs; true once it ended (as hart_call_wait). For a caller that must go on
 * reading its console meanwhile (the shell's foreground `run`). */
bool hart_call_wait_or(unsigned cpu, bool (*stop)(void *), void *arg);
/* The token of the call of fn running on cpu (0: fn does not run there): what
 * hart_call_watch_end waits for. Tokens name calls, so a later call of the same function has
 * another. */
uint64_t hart_call_token(unsigned cpu, hart_fn fn);
/* Waits, as a core that is not the caller, until the call `token` on cpu has ended (at once if
 * it has), and moves this core's clock to the latest call end there: the callee notes and wakes
 * every such watcher as it does its caller. For a core that asked the call to return
 * (dispatcher_stop); any number of cores may watch at once. Not from inside a call or a task
 * the callee waits for. */
void hart_call_watch_end(unsigned cpu, uint64_t token);

/* Runs the function sent to this core with hart_call, if one waits; true if it ran one.
 * The idle loop does this; so does the boot hart's idle-time work (kernel/domain/background.c),
 * so that the shell's hart can run a job's task while the shell waits. */
bool hart_run_call(void);
bool hart_call_pending(void);

/* The idle loop of every secondary hart: WFI until work arrives. */
void hart_idle_loop(void) __attribute__((noreturn));
/* Parks this hart for good with interrupts off. */
void hart_park(void) __attribute__((noreturn));

#endif
