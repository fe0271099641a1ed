/* Console output (UART + kernel log) and line input for the shell. */
#include "kernel/console.h"
#include "kernel/hart.h"
#include "kernel/platform.h"
#include "arch/riscv/trap.h"
#include "drivers/uart.h"
#include "drivers/plic.h"
#include "kernel/background.h"
#include "lib/format.h"
#include "kernel/spinlock.h"

char klog_buf[KLOG_SIZE];
volatile uint64_t klog_written;

static struct spinlock console_lock = SPINLOCK_INIT("console");

#define INPUT_SIZE 256
static volatile char input_ring[INPUT_SIZE];
static volatile uint32_t input_head, input_tail; /* written only by the input hart */
static int input_cpu = -1;

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

void console_input_push(char c)
{
	uint32_t next = (input_head + 1) % INPUT_SIZE;
	if (next == input_tail)
		return; /* ring full: the UART FIFO keeps the rest until the shell catches up */
	input_ring[input_head] = c;
	input_head = next;
}

/* Drains the UART into the input ring; the UART interrupt and the polling fallback share it. */
static void console_poll_uart(void)
{
	int c;
	while ((uint32_t)((input_head + 1) % INPUT_SIZE) != input_tail && (c = uart_getc()) >= 0)
		console_input_push((char)c);
}

static void console_uart_irq(void)
{
	int ctx = plat.plic_s_context[this_cpu()];
	uint32_t irq = plic_claim(plat.plic_base, ctx);
	if (irq == plat.uart_irq)
		console_poll_uart();
	if (irq)
		plic_complete(plat.plic_base, ctx, irq);
}

void console_enable_input_irq(void)
{
	input_cpu = (int)this_cpu();
	if (plic_route(plat.plic_base, plat.uart_irq, plat.plic_s_context[input_cpu])) {
		trap_set_external_handler(console_uart_irq);
		uart_enable_rx_irq();
	}
}

static bool input_waiting(void *arg)
{
	(void)arg;
	console_poll_uart(); /* characters that arrived before the interrupt was routed */
	return input_tail != input_head;
}

char console_getc(void)
{
	core_wait(input_waiting, 0); /* the shell's hart may be a master: it serves meanwhile */
	uint64_t s = irq_save();
	char c = input_ring[input_tail];
	input_tail = (input_tail + 1) % INPUT_SIZE;
	irq_restore(s);
	return c;
}
