/* The line editor and command dispatcher of the console shell, and its core commands. */
#include "kernel/shell.h"
#include "kernel/console.h"
#include "kernel/bootargs.h"
#include "lib/string.h"
#include "kernel/poweroff.h"
#include "kernel/background.h"
#include <stdint.h>
#include "kernel/vtime.h"

extern const struct shell_cmd __shellcmds_start[], __shellcmds_end[];

static const struct shell_cmd *find_cmd(const char *name)
{
	for (const struct shell_cmd *c = __shellcmds_start; c < __shellcmds_end; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return 0;
}

#define LINE_MAX 256

int shell_exec(const char *line)
{
	char buf[LINE_MAX];
	if (strlen(line) >= sizeof buf) {
		kprintf("shell: line too long (at most %d characters)\n", LINE_MAX - 1);
		return SHELL_USAGE;
	}
	strlcpy(buf, line, sizeof buf);
	char *argv[SHELL_MAX_ARGS + 1];
	int argc = 0;
	for (char *p = buf; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (argc == SHELL_MAX_ARGS) {
			kprintf("shell: too many arguments (at most %d)\n", SHELL_MAX_ARGS - 1);
			return SHELL_USAGE;
		}
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	argv[argc] = 0;
	if (argc == 0)
		return 0;
	const struct shell_cmd *c = find_cmd(argv[0]);
	if (!c) {
		kprintf("shell: unknown command '%s'; type 'help' for the list\n", argv[0]);
		return SHELL_USAGE;
	}
	int r = c->fn(argc, argv);
	if (r == SHELL_USAGE)
		kprintf("usage: %s\n", c->usage);
	return r == SHELL_USAGE_SHOWN ? SHELL_USAGE : r;
}

int shell_run_script(const char *script)
{
	char line[LINE_MAX];
	for (const char *p = script; *p;) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= sizeof line) {
			kprintf("shell: command too long in script\n");
			return SHELL_USAGE;
		}
		memcpy(line, p, len);
		line[len] = 0;
		kprintf("mosaic> %s\n", line);
		int r = shell_exec(line);
		if (r != 0)
			return r;
		p += len + (end ? 1 : 0);
	}
	return 0;
}

void shell_loop(void)
{
	char line[LINE_MAX];
	for (;;) {
		kprintf("mosaic> ");
		size_t n = 0;
		for (;;) {
			char c = console_getc();
			if (c == '\r' || c == '\n') {
				kprintf("\n");
				break;
			}
			if (c == 0x7f || c == '\b') {
				if (n) {
					n--;
					kprintf("\b \b");
				}
				continue;
			}
			if (c == 0x15) { /* ctrl-U: erase the line */
				for (; n; n--)
					kprintf("\b \b");
				continue;
			}
			if ((unsigned char)c < ' ' || n == sizeof line - 1)
				continue;
			line[n++] = c;
			kprintf("%c", c);
		}
		line[n] = 0;
		vtime_external_event(); /* a typed command comes after all the cores have done */
		shell_exec(line);
	}
}

SHELL_CMD(help, "help [command | bootargs]", "list commands, one command's usage, or the boot arguments")
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2 && strcmp(argv[1], "bootargs") == 0) {
		size_t n;
		const struct bootarg *t = bootargs_table(&n);
		for (size_t i = 0; i < n; i++)
			kprintf("  %-18s %s\n", t[i].key, t[i].help);
		return 0;
	}
	if (argc == 2) {
		const struct shell_cmd *c = find_cmd(argv[1]);
		if (!c) {
			kprintf("help: no command '%s'\n", argv[1]);
			return SHELL_USAGE;
		}
		kprintf("usage: %s\n  %s\n", c->usage, c->help);
		return 0;
	}
	for (const struct shell_cmd *c = __shellcmds_start; c < __shellcmds_end; c++)
		kprintf("  %-28s %s\n", c->usage, c->help);
	return 0;
}

SHELL_CMD(poweroff, "poweroff [code]", "power off; QEMU exits with code (default 0)")
{
	uint64_t code = 0;
	if (argc > 2 || (argc == 2 && (!parse_u64(argv[1], &code) || code > 255)))
		return SHELL_USAGE;
	kprintf("mosaic: poweroff (status %lu)\n", code);
	kernel_poweroff((int)code);
}

/* For scripted boots (cmd="..."): lets something started by an earlier command get going before the next one
 * looks at it. Messages to this core that arrive meanwhile (job reports) wait in its NoC queues, nothing is lost. */
SHELL_CMD(sleep, "sleep MS", "wait MS milliseconds of guest time (at most 600000), serving this core's background work")
{
	uint64_t ms;
	if (argc != 2 || !parse_u64(argv[1], &ms) || ms > 600000)
		return SHELL_USAGE;
	core_sleep_us(ms * 1000);
	return 0;
}

SHELL_CMD(dmesg, "dmesg", "print the kernel log (the last 64 KiB of console output)")
{
	if (argc != 1)
		return SHELL_USAGE;
	uint64_t end = klog_written, start = end > KLOG_SIZE ? end - KLOG_SIZE : 0;
	char chunk[129];
	for (uint64_t i = start; i < end;) {
		size_t n = 0;
		for (; n < 128 && i < end; n++, i++)
			chunk[n] = klog_buf[i % KLOG_SIZE];
		chunk[n] = 0;
		kprintf("%s", chunk);
	}
	return 0;
}
