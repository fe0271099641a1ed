/* The 16550 UART of the console: output by polling, input by interrupt. */
#ifndef DRIVERS_UART_H
#define DRIVERS_UART_H

#include <stdint.h>

void uart_init(uint64_t base, uint32_t reg_shift);
void uart_putc(char c);
/* Next received character, or -1 if none is waiting. */
int uart_getc(void);
/* Asks the UART to raise its interrupt when a character arrives. */
void uart_enable_rx_irq(void);

#endif
