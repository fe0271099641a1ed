"""Programs with arguments and without a rebuild: a program written for a POSIX machine
(tests/programs/posixprog.c) compiled outside the tree with scripts/mosaic-cc, loaded at boot from
the host's files (--program), run with its arguments and environment through run and submit, on
both clocks; bad ELF files (cut short, for another machine, not an ELF, outside the task's range,
overlapping, an entry outside the code, a dynamic object, 32-bit, offsets and sizes that wrap) refused at boot by a line naming
the file and the reason while the boot goes on; bad file images refused whole; argv through
mosaic_job_spawnv with its limits and hostile blocks refused (user/args.c)."""
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import mosaicfiles  # noqa: E402

CC = ROOT / "scripts" / "mosaic-cc"
RUN = ROOT / "scripts" / "mosaic-run"


def build(tmp_path):
    """posixprog built with mosaic-cc in a directory outside the tree, from a copy of its source."""
    src = tmp_path / "posixprog.c"
    shutil.copy(ROOT / "tests" / "programs" / "posixprog.c", src)
    r = subprocess.run([sys.executable, str(CC), "-o", "posixprog", "posixprog.c"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return tmp_path / "posixprog"


def patched(elf, **fields):
    """A copy of elf's bytes with header fields changed: class, type, entry, or vaddr0 (the first
    PT_LOAD's address), overlap (the second PT_LOAD moved onto the first)."""
    b = bytearray(elf)
    phoff, phnum = struct.unpack_from("<Q", b, 32)[0], struct.unpack_from("<H", b, 56)[0]
    loads = [phoff + 56 * i for i in range(phnum) if struct.unpack_from("<I", b, phoff + 56 * i)[0] == 1]
    if "cls" in fields:
        b[4] = fields["cls"]
    if "type" in fields:
        struct.pack_into("<H", b, 16, fields["type"])
    if "entry" in fields:
        struct.pack_into("<Q", b, 24, fields["entry"])
    if "vaddr0" in fields:
        struct.pack_into("<Q", b, loads[0] + 16, fields["vaddr0"])
    if "offset0" in fields:
        struct.pack_into("<Q", b, loads[0] + 8, fields["offset0"])
    if "memsz0" in fields:
        struct.pack_into("<Q", b, loads[0] + 40, fields["memsz0"])
    if "phoff" in fields:
        struct.pack_into("<Q", b, 32, fields["phoff"])
    if "overlap" in fields:
        struct.pack_into("<Q", b, loads[1] + 16, struct.unpack_from("<Q", b, loads[0] + 16)[0] + 8)
    return bytes(b)


def host_binary():
    """An ELF of the host's own machine (x86-64 here): the Python interpreter."""
    path = Path(sys.executable).resolve()
    assert path.read_bytes()[:4] == b"\x7fELF"
    return path


BAD = {  # file -> the reason the kernel gives
    "trunc.elf": "runs past the file's end",
    "foreign.elf": "built for another machine (e_machine ",
    "notelf.elf": "not an ELF file",
    "outside.elf": "is outside the program's range",
    "overlap.elf": "overlap",
    "entry.elf": "its entry point 10 is not in its code",
    "dyn.elf": "not a static executable (e_type 3",
    "class32.elf": "not a 64-bit little-endian ELF (class 1",
    "wrapoff.elf": "segment 0 runs past the file's end",
    "wrapmem.elf": "is outside the program's range",
    "wrapph.elf": "its program headers run past the file's end",
    "averyveryverylongname.elf": "is longer than 15 characters",
    "hello.elf": "a program 'hello' exists already (built in)",
}


@pytest.mark.parametrize("vtime", [1, 0])
def test_a_program_from_outside_the_tree_runs_with_arguments_and_bad_ones_are_refused(boot, tmp_path, vtime):
    prog = build(tmp_path).read_bytes()
    files = {"posixprog.elf": prog, "trunc.elf": prog[:3000], "foreign.elf": host_binary().read_bytes()[:200000],
             "notelf.elf": b"#!/bin/sh\necho not a program\n", "outside.elf": patched(prog, vaddr0=0x1000),
             "overlap.elf": patched(prog, overlap=True), "entry.elf": patched(prog, entry=0x10),
             "dyn.elf": patched(prog, type=3), "class32.elf": patched(prog, cls=1),
             "wrapoff.elf": patched(prog, offset0=2**64 - 8), "wrapmem.elf": patched(prog, memsz0=2**64 - 4096),
             "wrapph.elf": patched(prog, phoff=2**64 - 56 * 2),
             "averyveryverylongname.elf": prog, "hello.elf": prog,
             "myargs.elf": (ROOT / "build" / "user" / "args.elf").read_bytes()}
    paths = []
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths.append((name, tmp_path / name))
    cmds = ["programs", "run posixprog -n 3 -v alpha beta env GREETING=hi",
            "submit posixprog 2 env GREETING=job -- -x 0 word", "jobs wait 30",
            "submit args 1 -- spawn", "jobs wait 30", "run posixprog -x 3 last"]
    r = boot(harts=8, bootargs=f'domains=1 vtime={vtime} cmd="{";".join(cmds)}"', files=paths, timeout=120,
             vclock=bool(vtime))
    out = r.output
    assert r.status == 1, out[-3000:]  # the last run exits with 3: the command fails, the kernel does not
    assert "PANIC" not in out
    for name, why in BAD.items():
        assert re.search(rf"^mosaic: program {re.escape(name)} refused: .*{re.escape(why)}", out, re.M), (name, out[:4000])
    assert "mosaic: program posixprog.elf from the host: 'posixprog'" in out
    listing = out.split("mosaic> programs")[1].split("mosaic> run")[0]
    assert re.search(r"^  posixprog +from the host: posixprog.elf", listing, re.M), listing
    assert not re.search(r"^  (trunc|foreign|outside) ", listing, re.M)
    # a program with a MOSAIC_ABOUT says what it does, from its own ELF
    flat = " ".join(listing.split())
    assert ("myargs prints its arguments and environment; args spawn: checks mosaic_job_spawnv (from the host: "
            "myargs.elf) arg: its argv[1..] (spawn: the spawn check)") in flat, flat
    # run: getopt, the words after the options, the environment, the heap, the clock, exit's flush
    run1 = out.split("mosaic> run posixprog -n 3")[1].split("mosaic> submit")[0]
    for line in ["argc 6 count 3 verbose 1 optind 4", "word 'alpha'", "word 'beta'", "GREETING=hi",
                 "heap grew to 320 KiB in blocks (kept)", "posix_memalign 0 aligned 1", "pagesize 4096",
                 "clock advanced yes"]:
        assert f"posixprog: {line}" in run1, (line, run1)
    assert re.search(r"posixprog: unflushed endmosaic: task posixprog on core \d+ exited with 0", run1), run1
    # submit: both tasks of the job get the arguments and the environment
    job = out.split("mosaic> submit posixprog")[1].split("mosaic> submit args")[0]
    assert len(re.findall(r"^\[core \d+\] posixprog: argc 4 count 1 verbose 0 optind 3$", job, re.M)) == 2, job
    assert len(re.findall(r"posixprog: word 'word'", job)) == 2 and len(re.findall("posixprog: GREETING=job", job)) == 2
    # mosaic_job_spawnv: a job of two tasks with arguments and an environment; limits and hostile blocks refused
    spawn = out.split("mosaic> submit args 1 -- spawn")[1].split("mosaic> run posixprog -x")[0]
    assert "args: spawn ok" in spawn and "FAILED" not in spawn, spawn
    assert len(re.findall(r"args: rank [01] argv\[2\] = 'two words'", spawn)) == 2, spawn
    assert len(re.findall(r"args: rank [01] getenv MOSAIC_TEST = spawned", spawn)) == 2, spawn
    assert re.search(r"posixprog: unflushed endmosaic: task posixprog on core \d+ exited with 3", out)


def test_bad_file_images_are_refused_whole_and_the_boot_goes_on(boot, tmp_path):
    good = mosaicfiles.pack([("scenario", b"0 0 1 100\n"), ("x.elf", b"\x7fELF")])
    cases = {"raw.txt": (b"0 0 1 100\n", "not a Mosaic file image"),
             "cut.img": (good[:40], "file 1 of 2: its header runs past the image's end"),
             "short.img": (good[:-4], "file 2 ('x.elf'): 4 bytes and its padding to a multiple of 8, only 4 left"),
             "tail.img": (good + b"\0" * 8, "8 bytes after its last file"),
             "name.img": (good.replace(b"x.elf", b"x/elf"), "file 2: its name is not"),
             "twice.img": (mosaicfiles.pack([("a", b"1"), ("b", b"2")]).replace(b"b\0", b"a\0"),
                           "the name 'a' is given twice"),
             "version.img": (good[:8] + struct.pack("<I", 9) + good[12:], "format version 9")}
    for name, (data, why) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        r = boot(harts=2, bootargs='cmd="programs"', initrd=path, timeout=60)
        assert r.status == 0, (name, r.output[-2000:])
        assert re.search(rf"^mosaic: host files refused: .*{re.escape(why)}", r.output, re.M), (name, r.output[:3000])
        assert "mosaic: scenario file:" not in r.output and "from the host" not in r.output


def test_mosaic_cc_links_loudly_and_mosaic_run_checks_its_programs(tmp_path):
    r = subprocess.run([sys.executable, str(CC), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "mosaic-cc" in r.stdout and "user-build-vars" in r.stdout
    (tmp_path / "f.c").write_text("#include <unistd.h>\nint main(void) { return fork(); }\n")
    r = subprocess.run([sys.executable, str(CC), "-o", "f", "f.c"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode != 0 and "undefined reference to `fork'" in r.stderr, r.stderr
    show = subprocess.run([sys.executable, str(CC), "--show", "-o", "f", "f.c"], capture_output=True, text=True)
    flags = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "user-build-vars"],
                           capture_output=True, text=True).stdout
    march = re.search(r"-march=\S+", flags).group(0)
    assert march in show.stdout and str(ROOT / "user" / "runtime.c") in show.stdout and "-Werror" not in show.stdout
    r = subprocess.run([sys.executable, str(RUN), "--program", str(tmp_path / "nosuch.elf")], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "no such file" in r.stderr
    long = tmp_path / "abcdefghijklmnopq.elf"
    long.write_bytes(b"x")
    r = subprocess.run([sys.executable, str(RUN), "--program", str(long)], capture_output=True, text=True)
    assert r.returncode == 2 and "longer than 15 characters" in r.stderr, r.stderr
    assert mosaicfiles.unpack(mosaicfiles.pack([("a.elf", b"12345"), ("b", b"")])) == [("a.elf", b"12345"), ("b", b"")]
    with pytest.raises(ValueError):
        mosaicfiles.pack([("a b", b"")])


def test_mangled_programs_are_refused_or_loaded_never_a_crash(boot, tmp_path):
    """Fifteen copies of a good program with random bytes of their ELF and program headers (and of
    their section headers, which the about text is read from) changed, or cut short: each gets its
    line at boot, refused or loaded, and the boot goes on to the end (where mosaic_main's integer
    comes from is checked in the same boot)."""
    import random
    prog = build(tmp_path).read_bytes()
    shoff = struct.unpack_from("<Q", prog, 40)[0]
    rnd = random.Random(49)
    paths = []
    for i in range(15):
        b = bytearray(prog)
        if i % 5 == 4:
            b = b[:rnd.randrange(64, len(b))]
        else:
            for _ in range(rnd.randrange(1, 4)):
                at = rnd.choice([rnd.randrange(0, 64 + 56 * 4), shoff + rnd.randrange(0, len(prog) - shoff)])
                b[at] = rnd.randrange(256)
        path = tmp_path / f"mut{i}.elf"
        path.write_bytes(bytes(b))
        paths.append((path.name, path))
    # and mosaic_main's integer argument: argv[1] as a number, unless the job is given `arg A`
    # and every argument block goes back: the kernel heap's objects the same after more runs and jobs
    cmds = ["programs", "submit hello 1 -- 9 x", "jobs wait 20", "run hello 12 core 2", "mem",
            "submit hello 1 arg 3 -- 9", "jobs wait 20", "run hello word core 2", "run hello a b c env X=1 core 2",
            "mem", "run args env NOEQUALS"]
    r = boot(harts=4, bootargs=f'domains=1 cmd="{";".join(cmds)}"', files=paths, timeout=60)
    assert r.status == 1 and "PANIC" not in r.output, r.output[-3000:]
    assert "run: an environment entry is not NAME=VALUE" in r.output  # the last command, refused
    args = re.findall(r"^\[core \d+\] hello from a user task on core \d+ \(domain \d+\), argument (\d+)$", r.output, re.M)
    assert args == ["9", "12", "3", "0", "0"], args
    objects = re.findall(r"^heap +(\d+) objects in use", r.output, re.M)
    assert len(objects) == 2 and objects[0] == objects[1], objects
    for name, _ in paths:
        assert re.search(rf"^mosaic: program {name} (refused: |from the host: )", r.output, re.M), (name, r.output[:4000])
