/* The line editor and command dispatcher of the console shell, and its core commands. */
#include "kernel/console/shell.h"
#include "kernel/console/console.h"
#include "kernel/core/bootargs.h"
#include "lib/string.h"
#include "kernel/core/poweroff.h"
#include "kernel/domain/background.h"
#include <stdint.h>
#include "kernel/time/vtime.h"
#include "kernel/core/hart.h"
#include "kernel/task/utask.h"
#include "lib/format.h"

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
	if (r == SHELL_LATER)
		return r;
	if (r == SHELL_USAGE) {
		kprintf("usage: ");
		shell_print_wrapped(c->usage, 7, 7);
	}
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

/*
 * The line editor, shared by the prompt, a foreground run's wait (shell_read_ahead) and a task's
 * traps on the shell's core (shell_task_edge): a line begun at the prompt goes on being typed
 * while the core is busy. All of it runs on the shell's core only.
 */
static char edit_buf[LINE_MAX];
static size_t edit_len;
static unsigned shell_cpu = ~0u; /* the core of the interactive loop, once it runs */
static bool at_prompt;           /* the loop waits for input (not inside a command) */
static bool serving;             /* shell_task_edge runs a command: one that would wait says so */
/* Lines typed while the shell's core was busy that wait for the prompt, oldest first: typed
 * commands run in the order they were typed. While it is full, typing stays in the console. */
#define AHEAD_LINES 8
static char ahead[AHEAD_LINES][LINE_MAX];
static unsigned ahead_first, ahead_count;

static void ahead_push(const char *line)
{
	strlcpy(ahead[(ahead_first + ahead_count) % AHEAD_LINES], line, LINE_MAX);
	ahead_count++;
}

#define CTRL_U 0x15

/* Feeds one typed character; true when it ended a line (then in edit_buf). */
static bool edit_feed(char c)
{
	if (c == '\r' || c == '\n') {
		kprintf("\n");
		edit_buf[edit_len] = 0;
		edit_len = 0;
		return true;
	}
	if (c == 0x7f || c == '\b') {
		if (edit_len) {
			edit_len--;
			kprintf("\b \b");
		}
		return false;
	}
	if (c == CTRL_U) { /* erase the line */
		for (; edit_len; edit_len--)
			kprintf("\b \b");
		return false;
	}
	if ((unsigned char)c < ' ' || edit_len == sizeof edit_buf - 1)
		return false;
	edit_buf[edit_len++] = c;
	kprintf("%c", c);
	return false;
}

/* Ctrl-C typed while a user task holds the shell's own core (a `run` there, or a job's task the
 * core runs while the shell waits) kills it: from the console's interrupt, so that it works
 * even while the task waits in a kernel call, where the shell cannot run. */
static void interrupt_typed(void)
{
	unsigned me = this_cpu();
	if (me == shell_cpu && __atomic_load_n(&harts[me].task_serial, __ATOMIC_ACQUIRE) && utask_kill(me, 0) == 0) {
		console_take_key(CONSOLE_CTRL_C); /* it did its work: the prompt does not drop its line for it */
		kprintf("^C\n");
	}
}

bool shell_serving_busy(void) { return serving; }

bool shell_interactive_here(void) { return this_cpu() == shell_cpu; }

/* The commands that never wait, sorted, as one wrapped list from column col. */
static void print_nowait(unsigned col)
{
	char list[512];
	size_t len = 0;
	const char *last = "";
	for (;;) {
		const struct shell_cmd *next = 0;
		for (const struct shell_cmd *c = __shellcmds_start; c < __shellcmds_end; c++)
			if ((c->flags & SHELL_NOWAIT) && strcmp(c->name, last) > 0 && (!next || strcmp(c->name, next->name) < 0))
				next = c;
		if (!next)
			break;
		len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s", *last ? ", " : "",
					next->name);
		last = next->name;
	}
	shell_print_wrapped(list, col, 2);
}

/* The command name a line begins with, into name (empty if the line is blank). */
static void first_word(const char *line, char *name, size_t size)
{
	size_t n = 0;
	while (*line == ' ' || *line == '\t')
		line++;
	for (; *line && *line != ' ' && *line != '\t' && n + 1 < size; line++)
		name[n++] = *line;
	name[n] = 0;
}

/* A line typed while a task holds the shell's core: it runs now if its command never waits and
 * no line waits before it, else it waits for the prompt (and so does everything typed after). */
static void busy_line(const char *line)
{
	char name[32];
	first_word(line, name, sizeof name);
	const struct shell_cmd *cmd = find_cmd(name);
	int r = SHELL_LATER;
	if (!name[0])
		r = 0;
	else if (!ahead_count && cmd && (cmd->flags & SHELL_NOWAIT)) {
		serving = true;
		r = shell_exec(line);
		serving = false;
	}
	if (r != SHELL_LATER) {
		kprintf("mosaic> ");
		return;
	}
	if (!ahead_count) {
		kprintf("shell: core %u, the shell's own, runs a user task: '%s' runs when it ends, and what is typed "
			"after it waits for it (Ctrl-C kills the task); meanwhile only commands that never wait run:\n  ",
			shell_cpu, name);
		print_nowait(2);
	}
	ahead_push(line);
}

bool shell_read_ahead(bool run_nowait)
{
	if (!shell_interactive_here())
		return false;
	bool read = false;
	/* one line's room is left for the prompt, whose read may end a line behind these */
	for (int c; ahead_count < AHEAD_LINES - 1 && (c = console_trygetc()) >= 0; read = true)
		if (edit_feed((char)c)) {
			char line[LINE_MAX];
			strlcpy(line, edit_buf, sizeof line);
			if (run_nowait)
				busy_line(line);
			else
				ahead_push(line);
		}
	return read;
}

bool shell_ahead_room(void) { return ahead_count < AHEAD_LINES - 1; }

void shell_task_edge(void)
{
	if (this_cpu() != shell_cpu || !at_prompt || serving)
		return;
	at_prompt = false; /* a command it runs is not at the prompt: no edge inside it serves again */
	shell_read_ahead(true);
	at_prompt = true;
}

bool shell_edge_due(void)
{
	return this_cpu() == shell_cpu && at_prompt && !serving && shell_ahead_room() && console_chars_waiting();
}

void shell_task_starts(void)
{
	if (this_cpu() == shell_cpu && at_prompt && console_input_waiting())
		ipi_send(shell_cpu, IPI_WAKE); /* taken at the first instruction: shell_task_edge serves it */
}

static bool lines_ahead(void) { return ahead_count != 0; }

void shell_loop(void)
{
	shell_cpu = this_cpu();
	console_set_interrupt_handler(interrupt_typed);
	for (;;) {
		char line[LINE_MAX];
		if (ahead_count) { /* typed while the core was busy, and echoed then: it runs now, in its turn */
			strlcpy(line, ahead[ahead_first], sizeof line);
			ahead_first = (ahead_first + 1) % AHEAD_LINES;
			ahead_count--;
			kprintf("mosaic> %s\n", line);
		} else {
			kprintf("mosaic> %.*s", (int)edit_len, edit_buf); /* what was typed of the next line so far */
			bool ended = false;
			at_prompt = true;
			while (!ended) {
				int c = console_getc_unless(lines_ahead); /* a task's trap may read lines meanwhile */
				while (console_take_key(CONSOLE_CTRL_Z))
					; /* nothing runs in the foreground at the prompt: Ctrl-Z means nothing here */
				if (c < 0)
					break; /* lines came ahead of this one: they run first */
				if (c == CONSOLE_CTRL_C) { /* the line is dropped, as a shell's Ctrl-C does */
					kprintf("^C\n");
					edit_len = 0;
					break;
				}
				if (!edit_feed((char)c))
					continue;
				if (!ahead_count) {
					ended = true;
				} else { /* typed after the lines ahead: it waits behind them (the edge left room) */
					ahead_push(edit_buf);
					break;
				}
			}
			at_prompt = false;
			if (!ended)
				continue;
			strlcpy(line, edit_buf, sizeof line);
		}
		vtime_external_event(); /* a typed command comes after all the cores have done */
		shell_exec(line);
	}
}

/* ---- help ---- */

void shell_print_wrapped(const char *text, unsigned col, unsigned indent)
{
	bool first = true;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t w = 0;
		while (p[w] && p[w] != ' ')
			w++;
		if (!w)
			break;
		if (!first && col + 1 + w > SHELL_WIDTH) {
			kprintf("\n%*s", (int)indent, "");
			col = indent;
			first = true;
		}
		kprintf("%s%.*s", first ? "" : " ", (int)w, p);
		col += (first ? 0 : 1) + (unsigned)w;
		first = false;
		p += w;
	}
	kprintf("\n");
}

/* The groups `help` lists the commands in, by the source file (or directory) that defines them:
 * a command belongs to the first group one of whose paths begins its file's path. */
#define GROUP_PATHS 6
static const struct {
	const char *title;
	const char *paths[GROUP_PATHS];
} groups[] = {
	{"the shell", {"kernel/console/shell.c"}},
	{"the machine", {"kernel/core/smp.c", "kernel/mm/page_alloc.c", "kernel/domain/domain.c", "kernel/time/vclock.c", "kernel/time/vtime.c"}},
	{"user tasks", {"kernel/task/utask_cmd.c", "kernel/dispatch/", "kernel/task/share/share_cmd.c", "kernel/mm/shm.c"}},
	{"jobs and their allocation", {"kernel/alloc/"}},
	{"messages and the NoC", {"kernel/msg/", "drivers/noc/", "kernel/domain/noc_sampler.c"}},
	{"tests, profiles and benchmarks", {"kernel/core/ktest.c", "kernel/core/prof.c", "kernel/bench/"}},
};
#define NGROUPS (sizeof groups / sizeof groups[0])

static unsigned group_of(const struct shell_cmd *c)
{
	for (unsigned g = 0; g < NGROUPS; g++)
		for (unsigned i = 0; i < GROUP_PATHS && groups[g].paths[i]; i++)
			if (strncmp(c->file, groups[g].paths[i], strlen(groups[g].paths[i])) == 0)
				return g;
	return NGROUPS; /* "other": a new file's commands, until it is given a group here */
}

#define DEFAULT_TEXT 48
#define HELP_COL 28 /* the column the descriptions start at */

static void help_entry(const struct shell_cmd *c)
{
	kprintf("  ");
	if (strlen(c->usage) <= HELP_COL - 3) {
		kprintf("%-*s", HELP_COL - 2, c->usage);
	} else { /* a long usage gets lines of its own */
		shell_print_wrapped(c->usage, 2, 6);
		kprintf("%*s", HELP_COL, "");
	}
	shell_print_wrapped(c->help, HELP_COL, HELP_COL);
}

/* Lists group g's commands sorted by name: each time the next larger name (the table is the
 * linker's, in no order, and small). */
static void help_group(unsigned g)
{
	const char *last = "";
	for (;;) {
		const struct shell_cmd *next = 0;
		for (const struct shell_cmd *c = __shellcmds_start; c < __shellcmds_end; c++)
			if (group_of(c) == g && strcmp(c->name, last) > 0 && (!next || strcmp(c->name, next->name) < 0))
				next = c;
		if (!next)
			return;
		if (!*last)
			kprintf("%s:\n", g < NGROUPS ? groups[g].title : "other");
		help_entry(next);
		last = next->name;
	}
}

static void help_bootargs(void)
{
	size_t n;
	const struct bootarg *t = bootargs_table(&n);
	kprintf("  %-18s %-10s %s\n", "key", "default", "meaning");
	for (size_t i = 0; i < n; i++) {
		char def[DEFAULT_TEXT];
		if (!bootarg_default(i, def, sizeof def))
			strlcpy(def, "?", sizeof def);
		kprintf("  %-18s %-10s ", t[i].key, def);
		shell_print_wrapped(t[i].help, 32 + (strlen(def) > 10 ? (unsigned)strlen(def) - 10 : 0), 32);
	}
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void print_json_string(const char *s)
{
	kprintf("\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			kprintf("\\%c", *s);
		else if ((unsigned char)*s < ' ')
			kprintf("\\u%04x", (unsigned)(unsigned char)*s);
		else
			kprintf("%c", *s);
	}
	kprintf("\"");
}

/* Every command and boot argument as a JSON line (`help json`), from the tables `help` reads:
 * scripts/reference renders docs/reference.md from them. */
static void help_json(void)
{
	for (unsigned g = 0; g <= NGROUPS; g++)
		for (const struct shell_cmd *c = __shellcmds_start; c < __shellcmds_end; c++) {
			if (group_of(c) != g)
				continue;
			kprintf("{\"type\": \"shell_cmd\", \"group\": ");
			print_json_string(g < NGROUPS ? groups[g].title : "other");
			kprintf(", \"name\": ");
			print_json_string(c->name);
			kprintf(", \"usage\": ");
			print_json_string(c->usage);
			kprintf(", \"help\": ");
			print_json_string(c->help);
			kprintf(", \"nowait\": %s}\n", c->flags & SHELL_NOWAIT ? "true" : "false");
		}
	size_t n;
	const struct bootarg *t = bootargs_table(&n);
	for (size_t i = 0; i < n; i++) {
		char def[DEFAULT_TEXT];
		if (!bootarg_default(i, def, sizeof def))
			strlcpy(def, "?", sizeof def);
		kprintf("{\"type\": \"bootarg\", \"key\": ");
		print_json_string(t[i].key);
		kprintf(", \"default\": ");
		print_json_string(def);
		kprintf(", \"help\": ");
		print_json_string(t[i].help);
		kprintf("}\n");
	}
}

SHELL_CMD_NOWAIT(help, "help [COMMAND | bootargs | json]",
		 "the commands by group, one command's usage, the boot arguments, or all of them as JSON lines")
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2 && strcmp(argv[1], "bootargs") == 0) {
		help_bootargs();
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "json") == 0) {
		help_json();
		return 0;
	}
	if (argc == 2) {
		const struct shell_cmd *c = find_cmd(argv[1]);
		if (!c) {
			kprintf("help: no command '%s'\n", argv[1]);
			return SHELL_USAGE;
		}
		kprintf("usage: ");
		shell_print_wrapped(c->usage, 7, 7);
		kprintf("  ");
		shell_print_wrapped(c->help, 2, 2);
		if (c->flags & SHELL_NOWAIT)
			kprintf("  (it never waits: it runs even while a task holds the shell's core)\n");
		return 0;
	}
	for (unsigned g = 0; g <= NGROUPS; g++)
		help_group(g);
	shell_print_wrapped("Ctrl-C kills the foreground task, or a task that holds the shell's own core; Ctrl-Z "
			    "puts a foreground run in the background, where 'run ... &' starts one. While a job's task "
			    "holds the shell's core, the commands that never wait run at once:", 0, 0);
	kprintf("  ");
	print_nowait(2);
	return 0;
}

SHELL_CMD_NOWAIT(poweroff, "poweroff [code]", "power off; QEMU exits with code (default 0)")
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

SHELL_CMD_NOWAIT(dmesg, "dmesg", "print the kernel log (the last 64 KiB of console output)")
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
