/*
 * ns16550a driver. QEMU's UART never makes the sender wait long, but the LSR
 * check keeps the driver correct on a real 16550 too.
 */
#include "drivers/uart.h"

#define RBR 0 /* receive buffer (read) */
#define THR 0 /* transmit holding (write) */
#define IER 1
#define FCR 2
#define LCR 3
#define LSR 5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20

static volatile uint8_t *uart_regs;
static uint32_t uart_shift;

static inline uint8_t reg_read(int r) { return uart_regs[r << uart_shift]; }
static inline void reg_write(int r, uint8_t v) { uart_regs[r << uart_shift] = v; }

void uart_init(uint64_t base, uint32_t reg_shift)
{
	uart_regs = (volatile uint8_t *)base;
	uart_shift = reg_shift;
	reg_write(IER, 0x00);
	reg_write(LCR, 0x03); /* 8 data bits, no parity, one stop bit */
	/* enable and clear the FIFOs, receive interrupt at 14 bytes (or when input pauses): QEMU hands
	 * the UART only as many typed bytes as that level at once, and with harts that spin a hart
	 * is run again only after every busy one had its turn (up to 100 ms each), so a level of 1
	 * cost a turn of the whole machine per typed character */
	reg_write(FCR, 0xc7);
}

void uart_putc(char c)
{
	if (!uart_regs)
		return;
	while (!(reg_read(LSR) & LSR_THR_EMPTY))
		;
	reg_write(THR, (uint8_t)c);
}

int uart_getc(void)
{
	if (!uart_regs || !(reg_read(LSR) & LSR_DATA_READY))
		return -1;
	return reg_read(RBR);
}

void uart_enable_rx_irq(void)
{
	reg_write(IER, 0x01);
}
