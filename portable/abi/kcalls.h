/*
 * Every kernel call, declared once. The kernel's numbers and call table (kernel/kcall/),
 * the share groups' allowlist (kernel/task/share/share.c), the user programs' numbers
 * (user/mosaic.h), the fuzzer's coverage check (user/fuzz.c) and docs/reference.md
 * (scripts/reference) all read this list, so none of them can drift from it.
 *
 * No include guard: an includer defines KCALL(NAME, name, nr, side, share, args, does,
 * checks) to what it needs from each call, includes this file, and undefines KCALL.
 *   NAME   KC_<NAME> names its number
 *   name   its name in tables, messages and the docs
 *   nr     its number, stable for ever; 0..15 tasks and the console, 16..31 point-to-point
 *          messages, 32..47 groups and collectives, 48..63 jobs and share groups, 64..79
 *          invasive computing (the kernel's table has room for 80)
 *   side   LOCAL: served on the calling core; MASTER: forwarded to its domain's micro-kernel
 *          when a pico-kernel makes it (state the domain shares)
 *   share  which task of a time-sliced core may make it (docs/balancing.md): ANY every task,
 *          JOB an oversubscribed job's task, GROUP a `share` command's task, HEAP a job's task
 *          or one of a pinned share group, NONE none (-ENOTSUP)
 *   args   its arguments in a0..a5, as the docs name them
 *   does   what it does and returns
 *   checks what it checks first; a failed check returns the error and changes nothing
 */
KCALL(EXIT, exit, 0, LOCAL, ANY, "code",
      "ends the task with exit code `code`",
      "none (the low 32 bits are the code)")
KCALL(WRITE, write, 1, MASTER, ANY, "buf, len",
      "console output: queued on the domain's micro-kernel, printed by its console task as `[core N] text`",
      "length <= 4096 (`-EINVAL`), buffer readable (`-EFAULT`); copied into the kernel before it is "
      "forwarded")
KCALL(CORE_ID, core_id, 2, LOCAL, ANY, "",
      "the caller's message identity: its core, or for a task of an oversubscribed job its virtual endpoint",
      "none")
KCALL(DOMAIN_ID, domain_id, 3, LOCAL, ANY, "",
      "the calling core's domain",
      "none")
KCALL(JOB_ID, job_id, 4, LOCAL, JOB, "",
      "the job of the task (0 outside a job)",
      "none")
KCALL(RANK, rank, 5, LOCAL, JOB, "",
      "the task's rank in its job (0 outside a job)",
      "none")
KCALL(TIME_NS, time_ns, 6, LOCAL, ANY, "",
      "the core's clock in ns (its virtual clock under vtime=1)",
      "none")
KCALL(SLEEP_US, sleep_us, 7, LOCAL, ANY, "us",
      "sleeps on the core's clock; `-EINTR` when the task is being killed",
      "us <= 60 s (`-EINVAL`)")
KCALL(HEAP_GROW, heap_grow, 8, MASTER, HEAP, "bytes",
      "grows the task's heap; the micro-kernel keeps each core's account (limit 1 MiB, a task's heap is "
      "given back when it ends)",
      "bytes <= the task's heap limit before rounding (`-ENOMEM`), within the limit and below the stack "
      "after rounding")
KCALL(KILL, kill, 9, LOCAL, NONE, "core",
      "kills the task on a core that runs in the caller's session (a task of its job, a member of its team; "
      "on a core time-sliced by the caller's job, every task there)",
      "core < harts and not the caller (`-EINVAL`), runs in the caller's session (`-EPERM`), a task runs "
      "there (`-ESRCH`)")
KCALL(SEND, send, 16, LOCAL, JOB, "dst, tag, buf, len",
      "sends a message, waiting for a credit",
      "core and tag fit an `int` (`-EINVAL`), buffer readable over its length (`-EFAULT`); then the message "
      "API's checks (core exists `-ENXIO`, tag >= 0, length <= 64 KiB `-EMSGSIZE`)")
KCALL(TRYSEND, trysend, 17, LOCAL, JOB, "dst, tag, buf, len",
      "sends a message if a credit is free, else `-EAGAIN`",
      "as send")
KCALL(ISEND, isend, 18, LOCAL, JOB, "dst, tag, buf, len",
      "starts a send: a request handle (0..15)",
      "as send; a free request slot (`-EBUSY`)")
KCALL(XSEND, xsend, 19, LOCAL, JOB, "dst, tag, buf, len",
      "sends without flow control, for patterns free of contention (docs/noc.md, \"xsend and the rules "
      "R1-R4\")",
      "as send")
KCALL(RECV, recv, 20, LOCAL, JOB, "src, tag, buf, cap, status",
      "receives a matching message (`src`, `tag`: a value or `MOSAIC_ANY`), waiting for it",
      "core and tag fit an `int`, buffer writable over cap (`-EFAULT`); status (if given) writable")
KCALL(TRYRECV, tryrecv, 21, LOCAL, JOB, "src, tag, buf, cap, status",
      "receives a matching message if one is there, else `-EAGAIN`",
      "as recv")
KCALL(IRECV, irecv, 22, LOCAL, JOB, "src, tag, buf, cap",
      "starts a receive: a request handle",
      "as recv; a free request slot (`-EBUSY`)")
KCALL(TEST, test, 23, LOCAL, JOB, "req, status",
      "1 and the status when the request is done (the handle closes), else 0",
      "handle open (`-EINVAL`); status (if given) writable")
KCALL(WAIT, wait, 24, LOCAL, JOB, "req, status",
      "waits for the request: its result and status; the handle closes",
      "handle open (`-EINVAL`); status (if given) writable")
KCALL(PROBE, probe, 25, LOCAL, JOB, "src, tag, block, status",
      "whether a matching message is there (waiting for one if `block`) and its status, leaving it there",
      "source and tag fit an `int`; status writable")
KCALL(GROUP_INIT, group_init, 32, LOCAL, JOB, "cores, n",
      "a group handle (0..3) over `n` cores in rank order",
      "1 <= n <= 128 (`-EINVAL`), n `uint16_t` readable; cores exist and are distinct (`-ENXIO`, `-EINVAL`)")
KCALL(BARRIER, barrier, 33, LOCAL, JOB, "group | how",
      "the group's barrier; `how` is strict or loose and an algorithm, or 0 for the tuned one "
      "(docs/collectives.md)",
      "handle valid (bits 0..7); `how` (bits 8..15: mode 0 or 1, an algorithm the collective has, or 0) and "
      "nothing above bit 15 (`-EINVAL`), refused before any message leaves; so for every collective")
KCALL(BCAST, bcast, 34, LOCAL, JOB, "group | how, root, buf, len",
      "broadcasts `len` bytes from rank `root`",
      "root < group size, length <= 64 KiB, buffer writable")
KCALL(REDUCE, reduce, 35, LOCAL, JOB, "group | how, root, in, out, count, op",
      "reduces `count` int64s with `op` (sum, min, max) onto rank `root`",
      "root < group size, op known (`-EINVAL`), count <= 8,192 (`-EMSGSIZE`), `count` int64s readable / "
      "writable on the root")
KCALL(ALLREDUCE, allreduce, 36, LOCAL, JOB, "group | how, in, out, count, op",
      "reduces `count` int64s with `op` onto every rank",
      "as reduce, out writable everywhere")
KCALL(GATHER, gather, 37, LOCAL, JOB, "group | how, root, in, len, out",
      "gathers every rank's `len`-byte block on `root`, in rank order",
      "root < group size; block <= 64 KiB; `n x block` bytes writable on the root, one block readable "
      "elsewhere")
KCALL(ALLGATHER, allgather, 38, LOCAL, JOB, "group | how, in, len, out",
      "gathers every rank's block on every rank",
      "block <= 64 KiB; `n x block` bytes writable, one block readable")
KCALL(ALLTOALL, alltoall, 39, LOCAL, JOB, "group | how, in, len, out",
      "rank r's block s goes to rank s's block r",
      "block <= 64 KiB; `n x block` bytes readable and writable")
KCALL(ALLTOALLV, alltoallv, 40, LOCAL, JOB, "group | how, args",
      "alltoall with counts and displacements per rank, given by a pointer to its six arguments",
      "the argument block readable; the four count and displacement arrays (n `uint32_t`) readable and "
      "copied in first, so a receive into an overlapping buffer cannot change them after the check; `in` "
      "readable and `out` writable up to the highest displacement + count")
KCALL(SCATTER, scatter, 41, LOCAL, JOB, "group | how, root, in, len, out",
      "the root's block r goes to rank r",
      "root < group size; block <= 64 KiB; `n x block` bytes readable on the root, one block writable "
      "elsewhere")
KCALL(JOB_SPAWN, job_spawn, 48, LOCAL, NONE, "program, length, ntasks, cores, arg, place | wait << 8",
      "submits a job at the caller's own micro-kernel: a handle > 0 (docs/microkernel.md, \"Jobs from a "
      "task\")",
      "docs/microkernel.md, \"Jobs from a task\": the name, the counts, the modes, the reports on their way")
KCALL(JOB_WAIT, job_wait, 49, LOCAL, NONE, "report, flags",
      "the report of one of the caller's jobs once it has ended; its handle",
      "a flag other than `MOSAIC_JOB_NOWAIT` (`-EINVAL`); report writable (checked before the wait, written "
      "after); a job outstanding (`-ECHILD`)")
KCALL(JOB_SIZE, job_size, 50, LOCAL, JOB, "",
      "the number of tasks in the caller's job (0 outside a job)",
      "none")
KCALL(JOB_GROUP, job_group, 51, LOCAL, JOB, "",
      "a group handle over the job's tasks in rank order, the same on every call",
      "inside a job (`-EINVAL`)")
KCALL(SHM_OPEN, shm_open, 52, LOCAL, JOB, "name, bytes",
      "maps the job's shared window of that name, made zeroed by the first task that opens it: its address",
      "inside a job and not an i-let (`-EPERM`); the name read byte by byte, each byte checked (`-EFAULT`), "
      "1..31 bytes (`-EINVAL`); 1 <= bytes <= 256 KiB and, for an existing window, the same number of pages "
      "(`-EINVAL`); at most 4 windows per task and 32 in the system (`-ENOSPC`)")
KCALL(JOB_SPAWNV, job_spawnv, 53, LOCAL, NONE, "program, length, ntasks, cores, args, place | wait << 8",
      "job_spawn with the tasks' arguments and environment (`args` points at a `struct mosaic_args`): a "
      "handle > 0",
      "as job_spawn; the block and its text readable (`-EFAULT`) and copied in before they are read: at most "
      "32 strings and 1024 bytes (`-E2BIG`), strings that match their counts and environment entries of the "
      "form NAME=VALUE (`-EINVAL`)")
KCALL(SHARE_INFO, share_info, 60, LOCAL, GROUP, "what",
      "0: the caller's rank in its share group; 1: the group's size",
      "on a core of a share group (`-ENOTSUP`); what 0 or 1 (`-EINVAL`)")
KCALL(SHARE_BARRIER, share_barrier, 61, LOCAL, GROUP, "",
      "the share group's barrier, waiting in the group's wait mode (spin, yield, sleep)",
      "on a core of a share group (`-ENOTSUP`)")
KCALL(INVADE, invade, 64, LOCAL, NONE, "n, properties, cores, capacity",
      "up to `n` more cores for the caller's claim (docs/invasive.md): how many it got",
      "1 <= n <= 2^32 - 1, properties known (`-EINVAL`); with an output array: capacity >= min(n, cores) "
      "(`-EINVAL`) and that many `uint16_t` writable")
KCALL(RETREAT, retreat, 65, LOCAL, NONE, "cores, n",
      "gives claimed cores back",
      "1 <= n <= 128, n `uint16_t` readable")
KCALL(INFECT, infect, 66, LOCAL, NONE, "team, n, mode",
      "starts a team, one member per claimed core: member i runs fn(arg), as an i-let (mode 0) or isolated "
      "(mode 1)",
      "n <= 128, n team entries readable, every function inside the program's code, the mode 0 or 1 "
      "(`-EINVAL`); i-lets asked by an i-let (`-EPERM`)")
KCALL(TEAM_WAIT, team_wait, 67, LOCAL, NONE, "results, capacity",
      "waits for the team's end: every member's result",
      "results non-null, capacity <= 128 (`-EINVAL`), `capacity` results writable, all of them written")
KCALL(CLAIM, claim, 68, LOCAL, NONE, "cores, capacity",
      "the claim's cores, in claim order",
      "the copy is min(claim size, capacity) entries, and exactly those are checked writable")
