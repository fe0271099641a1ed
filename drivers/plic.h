/* The platform-level interrupt controller: routes device interrupts to one hart's S-mode. */
#ifndef DRIVERS_PLIC_H
#define DRIVERS_PLIC_H

#include <stdint.h>
#include <stdbool.h>

/* Routes interrupt source irq to the S-mode context ctx; false if there is no PLIC. */
bool plic_route(uint64_t base, uint32_t irq, int ctx);
uint32_t plic_claim(uint64_t base, int ctx);
void plic_complete(uint64_t base, int ctx, uint32_t irq);

#endif
