/*
 * The console shell (prompt "mosaic>"). Commands register themselves with
 * SHELL_CMD in their own files, so later subsystems add commands without
 * touching the shell. A command returns 0 on success, SHELL_USAGE for bad
 * arguments (the shell then prints its usage line), or another non-zero value.
 */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#define SHELL_USAGE (-1)
/* A usage error whose message is already printed (by a command another command ran): the shell
 * reports it as SHELL_USAGE without printing a second usage line. */
#define SHELL_USAGE_SHOWN (-2)
#define SHELL_MAX_ARGS 16

struct shell_cmd {
	const char *name;
	const char *usage;
	const char *help;
	int (*fn)(int argc, char **argv);
};

#define SHELL_CMD(cname, cusage, chelp)                                                               \
	static int shcmd_##cname(int argc, char **argv);                                              \
	static const struct shell_cmd __shcmd_##cname __attribute__((used, section(".shellcmds"), aligned(8))) = { \
		.name = #cname, .usage = cusage, .help = chelp, .fn = shcmd_##cname};                 \
	static int shcmd_##cname(int argc __attribute__((unused)), char **argv __attribute__((unused)))

/* Runs one command line; returns the command's status (SHELL_USAGE for an unknown command). */
int shell_exec(const char *line);
/* Runs a ';'-separated script, stopping at the first failure; returns its status. */
int shell_run_script(const char *script);
/* The interactive loop; never returns (poweroff ends it). */
void shell_loop(void) __attribute__((noreturn));

#endif
