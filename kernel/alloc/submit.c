/*
 * The submitter's side of job allocation: checking a job before it enters the
 * system, sending it to its home micro-kernel, taking the reports that come back,
 * and printing them. Also the settings (policy, scheme, checks) and the shell's
 * `submit`, `jobs`, `policy` and `scheme` commands.
 */
#include "kernel/alloc/proto.h"
#include "kernel/core/bootargs.h"
#include "kernel/domain/background.h"
#include "kernel/console/console.h"
#include "kernel/domain/domain.h"
#include "kernel/core/errno.h"
#include "kernel/core/hart.h"
#include "kernel/mm/kheap.h"
#include "kernel/console/shell.h"
#include "kernel/task/utask.h"
#include "kernel/time/vtime.h"
#include "kernel/core/panic.h"
#include "kernel/task/share/share.h"
#include "drivers/noc/noc_ep.h"
#include "drivers/timer.h"
#include "lib/format.h"
#include "lib/string.h"
#include "kernel/task/uargs.h"

struct alloc_config alloc_cfg = {.policy = ALLOC_POLICY_AC, .scheme = ALLOC_SCHEME_FIXED, .check = true};

static char policy_arg[BOOTARG_STR_MAX] = "ac";
BOOTARG_STR("policy", policy_arg, "job allocation policy: ac (active cancellation) or ab (sequencer atomic broadcast)");
static char scheme_arg[BOOTARG_STR_MAX] = "fixed";
BOOTARG_STR("scheme", scheme_arg, "propagation of requests and spawns: naive, flood, fixed or adaptive");
static uint64_t check_arg = 1;
BOOTARG_U64("alloc_check", check_arg, 0, 1, "1: check the allocation invariants on every event (docs/allocation.md)");

const char *alloc_init(void)
{
	static char err[120];
	int p = alloc_policy_parse(policy_arg), s = alloc_scheme_parse(scheme_arg);
	alloc_cfg.check = check_arg != 0;
	alloc_world_init();
	alloc_trace_init();
	alloc_running = true;
	if (p < 0) {
		snprintf(err, sizeof err, "policy: '%s' is not a policy (ac or ab)", policy_arg);
		return err;
	}
	if (s < 0) {
		snprintf(err, sizeof err, "scheme: '%s' is not a scheme (naive, flood, fixed or adaptive)", scheme_arg);
		return err;
	}
	alloc_cfg.policy = (enum alloc_policy)p;
	alloc_cfg.scheme = (enum alloc_scheme)s;
	return 0;
}

/* ---- submitting ---- */

static uint32_t outstanding[MOSAIC_MAX_HARTS]; /* per submitting core, its own */

unsigned alloc_outstanding(void) { return outstanding[this_cpu()]; }

_Static_assert(JOB_OVERSUB_TASKS_MAX == SHARE_TASKS_MAX && JOB_OVERSUB_CORES_MAX == SHARE_CORES_MAX &&
		       JOB_OVERSUB_PER_CORE == SHARE_MAX,
	       "an oversubscribed job's parts are share groups: the limits must agree");

/* The checks of an oversubscribed job (cores C < ntasks); 0 or an error with *w set. */
static int check_oversub(const struct job_spec *s, char *msg, unsigned len, const char **w)
{
	*w = msg;
	if (layout.partial) {
		*w = "cores C is for real tasks: partial simulation runs no programs";
		return -EINVAL;
	}
	if (s->ntasks > SHARE_TASKS_MAX || s->cores > SHARE_CORES_MAX || s->ntasks > s->cores * SHARE_MAX) {
		snprintf(msg, len, "%u tasks on %u cores: an oversubscribed job runs at most %u tasks on at most %u cores, "
			 "%u per core", s->ntasks, s->cores, SHARE_TASKS_MAX, SHARE_CORES_MAX, SHARE_MAX);
		return -E2BIG;
	}
	if (s->place >= SHARE_PLACES || s->wait >= SHARE_WAITS) {
		*w = "no such placement or wait mode";
		return -EINVAL;
	}
	return 0;
}

int alloc_check(const struct job_spec *s, const char **why)
{
	static char msgs[MOSAIC_MAX_HARTS][128]; /* each submitting core its own */
	char *msg = msgs[this_cpu()];
	const char *w = 0;
	int e = 0;
	if (!alloc_running) {
		w = "job allocation is not running (no NoC or domains)", e = -ENXIO;
	} else if (s->home >= layout.ndomains) {
		snprintf(msg, sizeof msgs[0], "there is no micro-kernel %u (there are %u)", s->home, layout.ndomains);
		w = msg, e = -EINVAL;
	} else if (s->ntasks == 0) {
		w = "a job needs at least one core", e = -EINVAL;
	} else if (s->cores > s->ntasks) {
		snprintf(msg, sizeof msgs[0], "%u cores for %u tasks: a job needs no more cores than tasks", s->cores,
			 s->ntasks);
		w = msg, e = -EINVAL;
	} else if (job_cores(s) > alloc_machine_cores()) {
		snprintf(msg, sizeof msgs[0], "%u cores is more than the machine has (%u)", job_cores(s),
			 alloc_machine_cores());
		w = msg, e = -E2BIG;
	} else if (job_oversubscribed(s) && (e = check_oversub(s, msg, sizeof msgs[0], &w))) {
		/* w says why */
	} else if (layout.partial && strcmp(s->program, ALLOC_SIM_PROGRAM)) {
		snprintf(msg, sizeof msgs[0], "partial simulation runs no programs: submit '%s' jobs, not '%.*s'",
			 ALLOC_SIM_PROGRAM, ALLOC_PROGRAM_MAX, s->program);
		w = msg, e = -ENOENT;
	} else if (layout.partial && (s->duration_us == 0 || s->duration_us > ALLOC_DURATION_MAX_US)) {
		snprintf(msg, sizeof msgs[0], "a simulated job needs a run time of 1..%u us", ALLOC_DURATION_MAX_US);
		w = msg, e = -EINVAL;
	} else if (!layout.partial && !user_program_find(s->program)) {
		snprintf(msg, sizeof msgs[0], "there is no program '%.*s' (see 'programs')", ALLOC_PROGRAM_MAX, s->program);
		w = msg, e = -ENOENT;
	} else if (!layout.partial && s->duration_us) {
		w = "a run time is for partial simulation; real tasks run until they exit", e = -EINVAL;
	}
	if (why)
		*why = w;
	return e;
}

int alloc_submit(const struct job_spec *spec, const char **why)
{
	struct job_spec copy = *spec, *s = &copy; /* its endpoints are filled in below */
	static char msgs[MOSAIC_MAX_HARTS][128]; /* each submitting core its own */
	char *msg = msgs[this_cpu()];
	const char *w = 0;
	int e = alloc_check(s, &w);
	if (!e && job_oversubscribed(s)) {
		int first = noc_ep_reserve(s->ntasks); /* given back by the home when the job ends */
		if (first < 0) {
			snprintf(msg, sizeof msgs[0], "no %u message endpoints left for its tasks (%u of %u in use)",
				 s->ntasks, noc_ep_reserved(), NOC_EP_VIRT_MAX);
			w = msg, e = -ENOSPC;
		} else {
			s->ep_first = (uint16_t)first;
		}
	}
	if (why)
		*why = w;
	if (e)
		return e;
	uint8_t buf[sizeof(struct alloc_hdr) + sizeof(struct job_spec)];
	struct alloc_hdr *h = (struct alloc_hdr *)buf;
	*h = (struct alloc_hdr){.kind = AK_SUBMIT, .from = (uint16_t)this_cpu(), .home = s->home};
	memcpy(h + 1, s, sizeof *s);
	if (s->report_tag == ALLOC_REPORT_JOB)
		outstanding[this_cpu()]++; /* a user task's jobs are counted by kernel/alloc/user_job.c */
	mk_send_core(0, domain_master(s->home), h, sizeof buf);
	return 0;
}

bool alloc_report_visible(int tag)
{
	struct mosaic_status st;
	return msg_probe_typed(MSG_TYPE_ALLOC_REPORT, MSG_ANY_SOURCE, tag, false, &st) == 0;
}

static bool report_visible(void *arg) { return alloc_report_visible((int)(uint64_t)arg); }

/* core_wait_until also wakes at the delivery time of a report still in flight (background.c) */
bool alloc_wait_report(int tag, uint64_t deadline_ns)
{
	return core_wait_until_ns(report_visible, (void *)(uint64_t)tag, deadline_ns);
}

int alloc_take_report(int tag, struct job_report *r)
{
	if (!alloc_report_visible(tag))
		return -EAGAIN;
	struct msg_request req;
	int e = msg_irecv_typed(MSG_TYPE_ALLOC_REPORT, MSG_ANY_SOURCE, tag, r, sizeof *r, &req);
	return e ? e : msg_wait(&req, 0);
}

int alloc_collect(struct job_report *r, bool block, uint64_t timeout_us)
{
	return alloc_collect_by(r, block, timeout_us ? vtime_now_ns() + timeout_us * 1000 : 0);
}

int alloc_collect_by(struct job_report *r, bool block, uint64_t deadline_ns)
{
	if (block && !alloc_wait_report(ALLOC_REPORT_JOB, deadline_ns))
		return -EAGAIN;
	int e = alloc_take_report(ALLOC_REPORT_JOB, r);
	if (e)
		return e;
	if (outstanding[this_cpu()])
		outstanding[this_cpu()]--;
	return 0;
}

/* ---- printing ---- */

/* Worst case of a core set as text: 128 cores as "127," and 128 domains as "[127,65535],". */
#define CORESET_TEXT_MAX (MOSAIC_MAX_HARTS * 4 + MOSAIC_MAX_HARTS * 12 + 32)

/* Appends to buf at *len; the buffer is sized for the worst case, so running out is a bug. */
static void put(char *buf, size_t *len, const char *fmt, unsigned a, unsigned b)
{
	int n = snprintf(buf + *len, CORESET_TEXT_MAX - *len, fmt, a, b);
	ASSERT(n >= 0 && (size_t)n < CORESET_TEXT_MAX - *len);
	*len += (size_t)n;
}

/* The cores a job held. JSON: "cores":[ids] (real-task mode; [] in partial simulation)
 * and "domain_cores":[[domain,count],...]. Table: ranges of core ids ("3-5,9"), or
 * "d0:12 d3:4" in partial simulation, where virtual cores have no ids. */
static void format_cores(const struct job_report *r, char *buf, bool json)
{
	size_t len = 0;
	buf[0] = 0;
	if (json) {
		put(buf, &len, "\"cores\":[", 0, 0);
		for (unsigned c = 0, first = 1; c < MOSAIC_MAX_HARTS; c++)
			if (mask_has(r->cores, c)) {
				put(buf, &len, first ? "%u" : ",%u", c, 0);
				first = 0;
			}
		put(buf, &len, "],\"domain_cores\":[", 0, 0);
		for (unsigned d = 0, first = 1; d < MOSAIC_MAX_HARTS; d++)
			if (r->domain_cores[d]) {
				put(buf, &len, first ? "[%u,%u]" : ",[%u,%u]", d, r->domain_cores[d]);
				first = 0;
			}
		put(buf, &len, "]", 0, 0);
		return;
	}
	if (!r->cores[0] && !r->cores[1]) {
		for (unsigned d = 0; d < MOSAIC_MAX_HARTS; d++)
			if (r->domain_cores[d])
				put(buf, &len, len ? " d%u:%u" : "d%u:%u", d, r->domain_cores[d]);
		return;
	}
	for (unsigned c = 0; c < MOSAIC_MAX_HARTS; c++) {
		if (!mask_has(r->cores, c))
			continue;
		unsigned last = c;
		while (last + 1 < MOSAIC_MAX_HARTS && mask_has(r->cores, last + 1))
			last++;
		put(buf, &len, len ? "," : "", 0, 0);
		put(buf, &len, last > c ? "%u-%u" : "%u", c, last);
		c = last;
	}
}

/* The longest hold as text: "[65535,65535,4294967295,18446744073709551615,18446744073709551615],". */
#define HOLD_TEXT_MAX 72

/* "holds":[[mk,core,count,taken_ns,given_ns],...] (core null in partial simulation) into a
 * buffer from the heap sized for r's holds; NULL without memory. */
static char *format_holds(const struct job_report *r)
{
	size_t cap = 16 + (size_t)r->nholds * HOLD_TEXT_MAX, len = 0;
	char *buf = kmalloc(cap);
	if (!buf)
		return 0;
	len += (size_t)snprintf(buf, cap, "\"holds\":[");
	for (uint32_t i = 0; i < r->nholds; i++) {
		const struct job_hold *h = &r->holds[i];
		char core[8];
		if (h->core == PROTO_HOLD_VIRTUAL)
			strlcpy(core, "null", sizeof core);
		else
			snprintf(core, sizeof core, "%u", h->core);
		int n = snprintf(buf + len, cap - len, "%s[%u,%s,%u,%lu,%lu]", i ? "," : "", h->mk, core, h->count,
				 h->t_taken, h->t_given);
		ASSERT(n >= 0 && (size_t)n < cap - len);
		len += (size_t)n;
	}
	snprintf(buf + len, cap - len, "]");
	return buf;
}

void alloc_report_json(const struct job_report *r, unsigned run, const char *scenario)
{
	char cores[CORESET_TEXT_MAX];
	format_cores(r, cores, true);
	char *holds = format_holds(r);
	kprintf("ALLOCJOB {\"run\":%u,\"scenario\":\"%s\",\"job\":%u,\"home\":%u,\"tag\":%u,\"ntasks\":%u,\"program\":\"%s\",\"arg\":%lu,"
		"\"global\":%s,\"status\":%u,\"t_submit_ns\":%lu,\"t_alloc_ns\":%lu,\"t_start_ns\":%lu,"
		"\"t_end_ns\":%lu,\"wait_ns\":%lu,\"alloc_ns\":%lu,\"duration_us\":%lu,\"msgs\":%u,\"hops\":%u,"
		"\"cancels\":%u,\"attempts\":%u,\"parts\":%u,\"failed_tasks\":%u,\"exit_code\":%d,"
		"\"policy\":\"%s\",\"scheme\":\"%s\",\"clock\":\"%s\",%s,%s}\n",
		run, scenario, r->job, r->home, r->tag, r->ntasks, r->program, r->arg, r->global ? "true" : "false", r->status,
		r->t_submit_ns, r->t_alloc_ns, r->t_start_ns, r->t_end_ns, r->t_start_ns - r->t_submit_ns,
		r->t_alloc_ns - r->t_submit_ns, r->duration_us, r->msgs, r->hops, r->cancels, r->attempts, r->nparts,
		r->failed_tasks, r->exit_code, alloc_policy_name(alloc_cfg.policy),
		alloc_scheme_name(alloc_cfg.scheme), vtime_active ? "virtual" : "serial", cores,
		holds ? holds : "\"holds\":null");
	kfree(holds);
}

void alloc_report_row(const struct job_report *r, bool header)
{
	if (header)
		kprintf("%8s %4s %4s %6s %-10s %6s %10s %10s %10s %6s %6s %4s %s (%s time)\n", "job", "home", "tag",
			"cores", "program", "global", "wait_us", "alloc_us", "run_us", "msgs", "hops", "canc", "result; held",
			vtime_active ? "virtual" : "serial");
	char result[40];
	if (r->status == JOB_OK)
		snprintf(result, sizeof result, "ok");
	else
		snprintf(result, sizeof result, "%u tasks failed (exit %d)", r->failed_tasks, r->exit_code);
	char cores[CORESET_TEXT_MAX];
	format_cores(r, cores, false);
	kprintf("%8u %4u %4u %6u %-10s %6s %10lu %10lu %10lu %6u %6u %4u %s; %s\n", r->job, r->home, r->tag, r->ntasks,
		r->program, r->global ? "yes" : "no", (r->t_start_ns - r->t_submit_ns) / 1000,
		(r->t_alloc_ns - r->t_submit_ns) / 1000, (r->t_end_ns - r->t_start_ns) / 1000, r->msgs, r->hops,
		r->cancels, result, cores);
}

/* ---- the shell ---- */

/* The shell keeps the records of the last SHELL_REPORTS jobs it took (bounded memory: under 1 MiB);
 * every record is printed by the `jobs` that takes it, as it arrives, so none is lost to a
 * full table, and `jobs` says how many of the earlier ones it no longer keeps. */
#define SHELL_REPORTS 256
static struct job_report shell_reports[SHELL_REPORTS]; /* ring: the last SHELL_REPORTS taken */
static unsigned shell_nreports;                        /* taken in all */
static uint32_t shell_tag;

static void shell_print(const struct job_report *r, bool json, bool *header)
{
	if (json)
		alloc_report_json(r, 0, "");
	else
		alloc_report_row(r, *header);
	*header = false;
}

SHELL_CMD(submit, "submit PROGRAM NTASKS [at MK] [time US] [arg A] [cpu MS] [cores C] [place pinned|rr|speed] [wait spin|yield|sleep] [env NAME=VALUE]... [-- ARGS...]",
	  "submit a job: PROGRAM on NTASKS cores (real tasks; cpu: each task's CPU-time limit in ms; cores: only C cores, the tasks time-sliced on them, placed and waiting as share groups do), or, in partial simulation, NTASKS virtual cores for US microseconds (PROGRAM: " ALLOC_SIM_PROGRAM "). "
	  "ARGS: every task's argv[1..]; env: an entry of their environment; arg: mosaic_main's integer argument (default: argv[1] if a number, else 0). At most " XSTR(UARGS_MAX) " arguments and entries, " XSTR(UARGS_BYTES) " bytes, within the shell's line (15 words, 255 characters)")
{
	int words = argc; /* the options end at "--": the task's arguments follow */
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			words = i;
			break;
		}
	char *env[SHELL_MAX_ARGS];
	unsigned nenv = 0;
	bool chose_arg = false;
	if (words < 3 || words % 2 == 0)
		return SHELL_USAGE;
	struct job_spec s = {0};
	uint64_t v;
	strlcpy(s.program, argv[1], sizeof s.program);
	if (!parse_u64(argv[2], &v) || v > 0xffffffffu)
		return SHELL_USAGE;
	s.ntasks = (uint32_t)v;
	s.home = (uint16_t)domain_of(this_cpu());
	for (int i = 3; i + 1 < words; i += 2) {
		if (!strcmp(argv[i], "env")) {
			env[nenv++] = argv[i + 1];
			continue;
		}
		bool place = !strcmp(argv[i], "place");
		if (place || !strcmp(argv[i], "wait")) {
			int k = place ? share_place_parse(argv[i + 1]) : share_wait_parse(argv[i + 1]);
			if (k < 0) {
				kprintf("submit: unknown %s '%s' (%s)\n", argv[i], argv[i + 1],
					place ? "pinned, rr or speed" : "spin, yield or sleep");
				return SHELL_USAGE_SHOWN;
			}
			*(place ? &s.place : &s.wait) = (uint8_t)k;
			continue;
		}
		if (!parse_u64(argv[i + 1], &v))
			return SHELL_USAGE;
		if (!strcmp(argv[i], "cores")) {
			if (v == 0 || v > s.ntasks) {
				kprintf("submit: cores C must be 1..NTASKS (%u)\n", s.ntasks);
				return SHELL_USAGE_SHOWN;
			}
			s.cores = (uint32_t)v;
		} else if (!strcmp(argv[i], "at"))
			s.home = v > 0xffff ? 0xffff : (uint16_t)v;
		else if (!strcmp(argv[i], "time"))
			s.duration_us = v;
		else if (!strcmp(argv[i], "arg"))
			s.arg = v, chose_arg = true;
		else if (!strcmp(argv[i], "cpu") && v >= 1 && v <= 86400000)
			s.cpu_ms = (uint32_t)v;
		else
			return SHELL_USAGE;
	}
	if (strlen(argv[1]) >= ALLOC_PROGRAM_MAX) {
		kprintf("submit: the program name '%s' is longer than %u characters\n", argv[1], ALLOC_PROGRAM_MAX - 1);
		return SHELL_USAGE;
	}
	const char *why;
	int nargs = words < argc ? argc - words - 1 : 0;
	struct uargs *block = uargs_from_words(argv + words + 1, (unsigned)nargs, env, nenv, &why);
	if (!block && why) {
		kprintf("submit: refused: %s\n", why);
		return 1;
	}
	s.args = (uint64_t)block;
	if (!chose_arg)
		s.arg = uargs_int(block, 0);
	s.tag = shell_tag + 1; /* taken only if the job is accepted: a refusal leaves no gap */
	int e = alloc_submit(&s, &why);
	if (e) {
		uargs_free(block); /* a refused job's block is still the shell's */
		kprintf("submit: refused: %s\n", why);
		return 1;
	}
	shell_tag = s.tag;
	kprintf("submit: job tag %u (%u tasks on %u cores) sent to micro-kernel %u (core %u); 'jobs' shows it when it ends\n",
		s.tag, s.ntasks, job_cores(&s), s.home, domain_master(s.home));
	return 0;
}

SHELL_CMD_NOWAIT(jobs, "jobs [wait [SECONDS]] [json]",
	  "the jobs this shell submitted that ended (wait: until all have, at most SECONDS); json: as JSON lines")
{
	bool wait = false, json = false;
	uint64_t secs = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "wait")) {
			wait = true;
			if (i + 1 < argc && parse_u64(argv[i + 1], &secs))
				i++;
		} else if (!strcmp(argv[i], "json")) {
			json = true;
		} else {
			return SHELL_USAGE;
		}
	}
	if (wait && shell_serving_busy())
		return SHELL_LATER; /* it would wait inside the task that holds the shell's core */
	/* first the records kept from earlier `jobs`, then each new one as it is taken (streamed:
	 * a wait for 1,000 jobs prints every record, whatever the table keeps) */
	bool header = true;
	unsigned kept = shell_nreports < SHELL_REPORTS ? shell_nreports : SHELL_REPORTS, earlier = shell_nreports;
	for (unsigned i = 0; i < kept; i++)
		shell_print(&shell_reports[(shell_nreports - kept + i) % SHELL_REPORTS], json, &header);
	/* one deadline for all the reports, on this core's clock (virtual time: the simulated machine's) */
	uint64_t deadline_ns = wait && secs ? vtime_now_ns() + secs * 1000000000 : 0;
	while (alloc_outstanding()) {
		struct job_report *r = &shell_reports[shell_nreports % SHELL_REPORTS];
		if (alloc_collect_by(r, wait, deadline_ns))
			break;
		shell_nreports++;
		shell_print(r, json, &header);
	}
	unsigned taken = shell_nreports - earlier, not_kept = earlier - kept;
	char lost[120] = "";
	if (not_kept)
		snprintf(lost, sizeof lost, ", %u earlier ones not kept (the shell keeps the last %u; each was printed "
			 "by the 'jobs' that took it)", not_kept, SHELL_REPORTS);
	kprintf("jobs: %u ended, %u still in the system (policy %s, scheme %s); %u records printed%s\n",
		shell_nreports, alloc_outstanding(), alloc_policy_name(alloc_cfg.policy),
		alloc_scheme_name(alloc_cfg.scheme), kept + taken, lost);
	if (json)
		kprintf("ALLOCJOBS {\"ended\":%u,\"open\":%u,\"printed\":%u,\"new\":%u,\"not_kept\":%u,\"kept_max\":%u}\n",
			shell_nreports, alloc_outstanding(), kept + taken, taken, not_kept, SHELL_REPORTS);
	if (wait && alloc_outstanding()) {
		char why[80];
		snprintf(why, sizeof why, "jobs wait: %u jobs did not end within %lu s", alloc_outstanding(), secs);
		alloc_diagnose(why);
		return 1;
	}
	return 0;
}

/* The settings may change only while no job is in the system: the micro-kernels read them. */
static bool system_idle(const char *cmd)
{
	for (unsigned d = 0; d < layout.ndomains; d++)
		if (mks[d].njobs || mks[d].nwq || mks[d].parts) {
			kprintf("%s: jobs are in the system (micro-kernel %u); change it when they have ended\n", cmd, d);
			return false;
		}
	return true;
}

/* A command that shows a setting, or with one argument sets it while no job is in the system: 0 with *v the
 * value argv[1] names (parse), or left alone without an argument; otherwise the command's status. */
static int setting_arg(int argc, char **argv, int (*parse)(const char *), int *v)
{
	if (argc > 2)
		return SHELL_USAGE;
	if (argc == 2) {
		int x = parse(argv[1]);
		if (x < 0)
			return SHELL_USAGE;
		if (!system_idle(argv[0]))
			return 1;
		*v = x;
	}
	return 0;
}

SHELL_CMD(policy, "policy [ac|ab]", "show or set the job allocation policy")
{
	int p = alloc_cfg.policy, r = setting_arg(argc, argv, alloc_policy_parse, &p);
	if (r)
		return r;
	if (argc == 2)
		alloc_cfg.policy = (enum alloc_policy)p;
	kprintf("policy %s (%s); the sequencer is micro-kernel %u\n", alloc_policy_name(alloc_cfg.policy),
		alloc_cfg.policy == ALLOC_POLICY_AC ? "active cancellation" : "sequencer-based atomic broadcast",
		sequencer_dom());
	return 0;
}

SHELL_CMD(scheme, "scheme [naive|flood|fixed|adaptive]", "show or set how requests and spawns propagate")
{
	int s = alloc_cfg.scheme, r = setting_arg(argc, argv, alloc_scheme_parse, &s);
	if (r)
		return r;
	if (argc == 2)
		alloc_cfg.scheme = (enum alloc_scheme)s;
	kprintf("scheme %s\n", alloc_scheme_name(alloc_cfg.scheme));
	return 0;
}
