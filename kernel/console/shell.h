/*
 * The console shell (prompt "mosaic>"). Commands register themselves with
 * SHELL_CMD in their own files, so later subsystems add commands without
 * touching the shell. A command returns 0 on success, SHELL_USAGE for bad
 * arguments (the shell then prints its usage line), or another non-zero value.
 */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include <stdbool.h>

#define SHELL_USAGE (-1)
/* A usage error whose message is already printed (by a command another command ran): the shell
 * reports it as SHELL_USAGE without printing a second usage line. */
#define SHELL_USAGE_SHOWN (-2)
#define SHELL_MAX_ARGS 16

/* A command that never waits (it reads state, kills, powers off: tasks, mk, kill, ...): the shell
 * runs it even while its core is busy (a foreground `run`, a user task on the shell's own core). */
#define SHELL_NOWAIT 1u

struct shell_cmd {
	const char *name;
	const char *usage;
	const char *help;
	const char *file; /* the source file that defines it: `help` groups the commands by it */
	unsigned flags;   /* SHELL_NOWAIT */
	int (*fn)(int argc, char **argv);
};

#define SHELL_CMD_FLAGS(cname, cflags, cusage, chelp)                                                  \
	static int shcmd_##cname(int argc, char **argv);                                              \
	static const struct shell_cmd __shcmd_##cname __attribute__((used, section(".shellcmds"), aligned(8))) = { \
		.name = #cname, .usage = cusage, .help = chelp, .file = __FILE__, .flags = cflags,    \
		.fn = shcmd_##cname};                                                                 \
	static int shcmd_##cname(int argc __attribute__((unused)), char **argv __attribute__((unused)))
#define SHELL_CMD(cname, cusage, chelp) SHELL_CMD_FLAGS(cname, 0, cusage, chelp)
/* A command that never waits (SHELL_NOWAIT). */
#define SHELL_CMD_NOWAIT(cname, cusage, chelp) SHELL_CMD_FLAGS(cname, SHELL_NOWAIT, cusage, chelp)

/* Runs one command line; returns the command's status (SHELL_USAGE for an unknown command). */
int shell_exec(const char *line);
/* Runs a ';'-separated script, stopping at the first failure; returns its status. */
int shell_run_script(const char *script);
/* The interactive loop; never returns (poweroff ends it). */
void shell_loop(void) __attribute__((noreturn));

/* A command that would wait while a task holds the shell's core (shell_serving_busy): the shell
 * holds its line and runs it when the core is free again. */
#define SHELL_LATER (-3)
/*
 * From a trap taken in U-mode (kernel/task/utask.c). While a user task holds the shell's core and the
 * shell waits at its prompt (a job's task that the boot hart runs meanwhile), the shell still
 * reads what is typed: a line whose command never waits (SHELL_NOWAIT) runs at once; the first
 * other line is held, with what is typed after it, until the prompt gets the core back. So typed
 * commands run in their order, and the ones that only look or kill answer at once. The task
 * goes on after.
 */
void shell_task_edge(void);
/* True when a wait inside a user task's kernel call should stop to call shell_task_edge and then
 * wait again: on the shell's core, while the shell waits at its prompt, typed characters wait
 * that it would read. So a task blocked in a receive, a sleep or a job wait does not hold the
 * shell either. Cheap; may be called with interrupts off. */
bool shell_edge_due(void);
/* While a foreground `run` waits for its task (kernel/task/utask_cmd.c): reads what was typed, echoing
 * it, and keeps each line for the prompt, as a terminal keeps what is typed ahead (run_nowait:
 * as shell_task_edge does instead). True if it read anything. shell_ahead_room: whether there is
 * room for another line (else typing stays in the console until the prompt). Only on the
 * interactive shell's core. */
bool shell_read_ahead(bool run_nowait);
bool shell_ahead_room(void);
/* A user task is about to enter U-mode on this core (kernel/task/utask.c): on the shell's core, input
 * typed before it (which raises no more interrupts) is served at its first instruction. */
void shell_task_starts(void);
/* True on the core of the interactive loop once it runs (not during the boot's cmd= script). */
bool shell_interactive_here(void);
/* True while shell_task_edge runs a command: one that would wait returns SHELL_LATER instead. */
bool shell_serving_busy(void);
/* Prints text from column col (where the cursor is), breaking lines at spaces so that none is
 * longer than SHELL_WIDTH; continuation lines start at column indent. */
#define SHELL_WIDTH 80
void shell_print_wrapped(const char *text, unsigned col, unsigned indent);

#endif
