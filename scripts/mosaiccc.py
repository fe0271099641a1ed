"""scripts/mosaic-cc's work: a program outside the tree compiled and linked against Mosaic's user
runtime and picolibc as the Makefile builds the tree's own programs (user/*.c), in the spirit of mpicc.
The compiler, flags, link and runtime files come from the Makefile (make -s user-build-vars), the one
place they are written; Mosaic's paths in them are made absolute so that it runs from any directory.
Two things differ for code from outside, on purpose: -Werror is dropped (the tree's warning policy is
the tree's) and -std=c11 becomes -std=gnu11, so that POSIX declarations (getopt, posix_memalign, ...)
are visible as on a POSIX host; a -std or -W the user gives comes later and wins."""
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILE_ONLY = ("-c", "-S", "-E", "-M", "-MM")


class BuildVarsError(Exception):
    pass


def build_vars(root=ROOT):
    """{'CC', 'USER_CFLAGS', 'USER_LDFLAGS', 'USER_LINK_SRCS', 'USER_MPI_SRCS'} as the Makefile has them
    (strings; USER_MPI_SRCS empty while the tree has no MPI library)."""
    r = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(root), "user-build-vars"],
                       capture_output=True, text=True)
    if r.returncode:
        raise BuildVarsError(f"'make user-build-vars' in {root} failed: {r.stderr.strip()}")
    out = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    missing = {"CC", "USER_CFLAGS", "USER_LDFLAGS", "USER_LINK_SRCS"} - out.keys()
    if missing:
        raise BuildVarsError(f"the Makefile did not say {', '.join(sorted(missing))}")
    return out


def _absolute(words, root):
    """Mosaic's relative paths (-Ipath, -T path, -Lpath, files) made absolute against root."""
    out, after_t = [], False
    for w in words:
        if after_t:
            out.append(str(root / w))
            after_t = False
        elif w == "-T":
            out.append(w)
            after_t = True
        elif w[:2] in ("-I", "-L") and len(w) > 2 and not w[2:].startswith("/"):
            out.append(w[:2] + str(root / w[2:]))
        elif not w.startswith("-") and (root / w).exists():
            out.append(str(root / w))
        else:
            out.append(w)
    return out


def command(user_args, root=ROOT, build=None):
    """The compiler's command line for mosaic-cc's arguments."""
    v = build or build_vars(root)
    cflags = ["-std=gnu11" if w == "-std=c11" else w for w in shlex.split(v["USER_CFLAGS"]) if w != "-Werror"]
    cmd = shlex.split(v["CC"]) + _absolute(cflags, root)
    if any(a in COMPILE_ONLY for a in user_args):
        return cmd + list(user_args)
    # the runtime's files and the MPI library's first (crt0's _start leads the text), then the
    # user's, whose -l options then come after the objects that need them
    srcs = shlex.split(v["USER_LINK_SRCS"]) + shlex.split(v.get("USER_MPI_SRCS", ""))
    return cmd + _absolute(shlex.split(v["USER_LDFLAGS"]), root) + _absolute(srcs, root) + list(user_args)
