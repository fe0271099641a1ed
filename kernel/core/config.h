/*
 * Build-time limits of Mosaic: the one place each constant is defined.
 * The Makefile reads MOSAIC_MAX_HARTS from here to refuse bad HARTS= values
 * before QEMU starts, so the C code and the build can never disagree.
 */
#ifndef MOSAIC_CONFIG_H
#define MOSAIC_CONFIG_H

/* OpenSBI 1.1 (bundled with QEMU 7.2) keeps a 128-bit hart mask: harts beyond 128 never start. */
#define MOSAIC_MAX_HARTS 128

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)

/* Kernel stack of every hart, taken from the page allocator at bring-up. */
#define KSTACK_PAGES 4
#define KSTACK_SIZE (KSTACK_PAGES * PAGE_SIZE)

/* Kernel log ring buffer kept for `dmesg` and the GDB command mosaic-log. */
#define KLOG_SIZE (64 * 1024)

/* Default time the boot hart waits for the others to check in (boot argument boot_timeout_ms). */
#define BOOT_TIMEOUT_MS_DEFAULT 20000

/* Exit status of QEMU (through the sifive_test device) for each way a run ends. */
#define EXIT_OK 0
#define EXIT_TEST_FAILED 1
#define EXIT_USAGE 2
#define EXIT_PANIC 3
#define EXIT_HART_MISSING 4

#endif
