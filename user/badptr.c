/* badptr: passes bad pointers and lengths to kernel calls; every one must fail cleanly. */
#include <stdio.h>
#include <stdint.h>
#include "mosaic.h"

static int failures;

static void expect(const char *what, long got, long want)
{
	if (got != want) {
		printf("badptr: %s returned %ld, expected %ld\n", what, got, want);
		failures++;
	}
}

MOSAIC_ABOUT("passes bad pointers and lengths to kernel calls; every one must fail cleanly", "none");

int mosaic_main(long arg)
{
	(void)arg;
	char ok[16] = "fine";
	const char *kernel = (const char *)0x80200000UL;
	const char *unmapped = (const char *)0x10001f0000UL;
	long me = mosaic_core_id();
	struct mosaic_status st;
	expect("write(kernel address)", mosaic_write(kernel, 8), MOSAIC_EFAULT);
	expect("write(unmapped address)", mosaic_write(unmapped, 8), MOSAIC_EFAULT);
	expect("write(NULL)", mosaic_write(0, 8), MOSAIC_EFAULT);
	expect("write(length past the end of memory)", mosaic_write(ok, (size_t)-1 / 2), MOSAIC_EINVAL);
	expect("write(length that wraps)", mosaic_call(KC_WRITE, (long)ok, -16, 0, 0, 0), MOSAIC_EINVAL);
	expect("send(kernel address)", mosaic_send((int)me, 1, kernel, 8), MOSAIC_EFAULT);
	expect("send(length that wraps)", mosaic_send((int)me, 1, ok, (size_t)-8), MOSAIC_EFAULT);
	expect("recv(into kernel memory)", mosaic_recv((int)me, 1, (void *)kernel, 8, &st), MOSAIC_EFAULT);
	expect("recv(status in kernel memory)", mosaic_recv((int)me, 1, ok, 8, (void *)kernel), MOSAIC_EFAULT);
	expect("recv(into read-only code)", mosaic_recv((int)me, 1, (void *)&mosaic_main, 8, &st), MOSAIC_EFAULT);
	expect("probe(status unmapped)", mosaic_probe(MOSAIC_ANY, MOSAIC_ANY, 0, (void *)unmapped), MOSAIC_EFAULT);
	expect("unknown call 999", mosaic_call(999, 0, 0, 0, 0, 0), MOSAIC_ENOSYS);
	expect("reserved call 12", mosaic_call(12, 0, 0, 0, 0, 0), MOSAIC_ENOSYS);
	expect("heap_grow(beyond the limit)", mosaic_heap_grow(1L << 30), MOSAIC_ENOMEM);
	expect("sleep_us(too long)", mosaic_sleep_us(1L << 40), MOSAIC_EINVAL);
	/* the kernel survived all of it and still answers */
	expect("write(good)", mosaic_write("badptr: the kernel still answers\n", 33), 33);
	printf("badptr: %d of 15 checks failed\n", failures);
	return failures ? 1 : 0;
}
