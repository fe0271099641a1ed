/* Console output (UART + kernel log) and line input for the shell. */
#include "kernel/console/console.h"
#include "kernel/core/hart.h"
#include "kernel/core/platform.h"
#include "arch/riscv/trap.h"
#include "drivers/uart.h"
#include "drivers/plic.h"
#include "kernel/domain/background.h"
#include "lib/format.h"
#include "kernel/core/spinlock.h"

char klog_buf[KLOG_SIZE];
volatile uint64_t klog_written;

static struct spinlock console_lock = SPINLOCK_INIT("console");

/*
 * Console input: a ring that the UART is drained into and that the shell reads.
 * Two paths drain the UART: its interrupt, and the shell's own poll while it waits
 * (for characters that came before the interrupt was routed, or that stayed in the
 * UART while the ring was full). input_lock, which also masks interrupts, makes
 * each drain and each read whole: no interrupt lands between taking a character
 * from the UART and storing it, which would lose or swap characters.
 */
#define INPUT_SIZE 256
static struct spinlock input_lock = SPINLOCK_INIT("console-input");
static char input_ring[INPUT_SIZE];
static uint32_t input_head, input_tail;
static void (*interrupt_handler)(void);
/* Ctrl-C and Ctrl-Z are keys, not input: counted as they are read from the UART, never queued,
 * so that they act at once however much typed input waits before them */
static uint32_t keys_typed[2], keys_taken[2];

static void console_sink(void *ctx, char c)
{
	(void)ctx;
	if (c == '\n')
		uart_putc('\r');
	uart_putc(c);
	klog_buf[klog_written % KLOG_SIZE] = c;
	klog_written++;
}

int vkprintf(const char *fmt, va_list ap)
{
	uint64_t s = spin_lock(&console_lock);
	int n = vformat(console_sink, 0, fmt, ap);
	spin_unlock(&console_lock, s);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vkprintf(fmt, ap);
	va_end(ap);
	return n;
}

void console_force(void)
{
	/* wait a little for an honest owner, then break the lock */
	for (int i = 0; i < 1000000 && console_lock.locked; i++)
		;
	spin_unlock_raw(&console_lock);
}

/* Moves what the UART holds into the ring, as far as it has room; true if the ring holds input. */
static bool console_drain_uart(void)
{
	uint64_t saved = spin_lock(&input_lock);
	int c;
	bool intr = false;
	while ((input_head + 1) % INPUT_SIZE != input_tail && (c = uart_getc()) >= 0) {
		if (c == CONSOLE_CTRL_C || c == CONSOLE_CTRL_Z) {
			__atomic_fetch_add(&keys_typed[c == CONSOLE_CTRL_Z], 1, __ATOMIC_RELEASE);
			intr |= c == CONSOLE_CTRL_C;
			continue;
		}
		input_ring[input_head] = (char)c;
		input_head = (input_head + 1) % INPUT_SIZE;
	}
	bool waiting = input_head != input_tail || keys_typed[0] != keys_taken[0];
	spin_unlock(&input_lock, saved);
	if (intr && interrupt_handler)
		interrupt_handler();
	return waiting;
}

static void console_uart_irq(void)
{
	int ctx = plat.plic_s_context[this_cpu()];
	uint32_t irq = plic_claim(plat.plic_base, ctx);
	if (irq == plat.uart_irq)
		console_drain_uart();
	if (irq)
		plic_complete(plat.plic_base, ctx, irq);
}

void console_enable_input_irq(void)
{
	if (plic_route(plat.plic_base, plat.uart_irq, plat.plic_s_context[this_cpu()])) {
		trap_set_external_handler(console_uart_irq);
		uart_enable_rx_irq();
	}
}

void console_set_interrupt_handler(void (*fn)(void)) { interrupt_handler = fn; }

int console_trygetc(void)
{
	console_drain_uart();
	uint64_t saved = spin_lock(&input_lock);
	int c = -1;
	if (input_head != input_tail) {
		c = (unsigned char)input_ring[input_tail];
		input_tail = (input_tail + 1) % INPUT_SIZE;
	}
	spin_unlock(&input_lock, saved);
	return c;
}

bool console_input_waiting(void) { return console_drain_uart(); }

bool console_chars_waiting(void)
{
	console_drain_uart();
	return __atomic_load_n(&input_head, __ATOMIC_ACQUIRE) != __atomic_load_n(&input_tail, __ATOMIC_ACQUIRE);
}

static bool key_take(unsigned k)
{
	uint32_t taken = keys_taken[k];
	if (__atomic_load_n(&keys_typed[k], __ATOMIC_ACQUIRE) == taken)
		return false;
	keys_taken[k] = taken + 1;
	return true;
}

bool console_key_waiting(int key)
{
	console_drain_uart();
	unsigned k = key == CONSOLE_CTRL_Z;
	return __atomic_load_n(&keys_typed[k], __ATOMIC_ACQUIRE) != keys_taken[k];
}

bool console_take_key(int key) { return key_take(key == CONSOLE_CTRL_Z); }

static bool (*getc_stop)(void);

static bool input_or_stop(void *arg)
{
	(void)arg;
	return console_drain_uart() || (getc_stop && getc_stop());
}

int console_getc_unless(bool (*stop)(void))
{
	getc_stop = stop; /* only the shell's core reads the console */
	for (;;) { /* a task's trap on this core may have read what was typed meanwhile (kernel/console/shell.c) */
		core_wait(input_or_stop, 0); /* the shell's hart may be a master: it serves meanwhile */
		if (key_take(0))
			return CONSOLE_CTRL_C;
		int c = console_trygetc();
		if (c >= 0)
			return c;
		if (stop && stop())
			return -1;
	}
}

char console_getc(void) { return (char)console_getc_unless(0); }
