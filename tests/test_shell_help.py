"""The shell's own texts (docs/usage.md, "The shell"): `help` lists the commands by group, sorted, in lines of
at most 80 columns broken at word boundaries; `help bootargs` gives each key's default. The tables of
docs/reference.md come from the same registrations (tests/test_reference.py)."""
import re

from conftest import ROOT

WIDTH = 80
GROUPS = ["the shell", "the machine", "user tasks", "jobs and their allocation", "messages and the NoC",
          "tests, profiles and benchmarks"]


def declared_commands():
    """{name: usage} of every SHELL_CMD / SHELL_CMD_NOWAIT in the sources."""
    found = {}
    literal = r'"(?:[^"\\]|\\.)*"'
    for path in list(ROOT.glob("kernel/**/*.c")) + list(ROOT.glob("drivers/**/*.c")):
        for m in re.finditer(rf'^SHELL_CMD(?:_NOWAIT)?\((\w+),\s*((?:{literal}\s*)+),', path.read_text(), re.M):
            parts = re.findall(literal, m.group(2))
            found[m.group(1)] = "".join(part[1:-1].replace('\\"', '"') for part in parts)
    return found


def test_help_is_grouped_sorted_and_wrapped(boot):
    r = boot(harts=4, bootargs='cmd="help;help bootargs;help submit"', timeout=60)
    assert r.status == 0, r.output[-2000:]
    out = r.output.split("mosaic> help\n")[1]
    listing, rest = out.split("mosaic> help bootargs\n")
    bootargs, one = rest.split("mosaic> help submit\n")
    lines = listing.split("\nCtrl-C kills the foreground")[0].splitlines()  # the groups, before the note
    assert all(len(line) <= WIDTH for line in lines + bootargs.splitlines() + one.splitlines()), \
        [line for line in lines if len(line) > WIDTH]
    titles = [line[:-1] for line in lines if line.endswith(":") and not line.startswith(" ")]
    assert titles == GROUPS, titles  # every command has a group: no "other"
    commands = declared_commands()
    # each group's entries: a line with two leading spaces starts one; deeper indents continue it
    entries, group = {}, None
    for line in lines:
        if line.rstrip(":") in GROUPS:
            group = line.rstrip(":")
            entries[group] = []
        elif group and line.startswith("  ") and not line.startswith("   ") and line.split()[0] in commands:
            entries[group].append(line.strip())
        elif group and line.startswith("   ") and entries[group]:
            entries[group][-1] += " " + line.strip()
    seen = []
    for group, items in entries.items():
        names = [item.split()[0] for item in items]
        assert names == sorted(names), (group, names)
        seen += names
        for item in items:
            usage = commands[item.split()[0]]
            assert item.startswith(usage), (item, usage)  # wrapped at spaces: joined, the usage is whole
    assert sorted(seen) == sorted(commands)
    assert re.search(r"^  submit PROGRAM NTASKS .*\n      \S", listing, re.M), "a long usage goes on below"
    assert "Ctrl-C kills the foreground task" in listing and "Ctrl-Z" in listing
    assert " ".join(one.split()).startswith("usage: " + commands["submit"])
    rows = {line.split()[0]: line.split()[1] for line in bootargs.splitlines()[1:] if re.match(r"^  \S", line)}
    assert rows["task_cpu_ms"] == "60000" and rows["policy"] == "ac" and rows["shell"] == "1"
    assert rows["vtime"] == "1" and rows["ktest"] == "empty" and rows["fail_hart"] == "unset"
    assert bootargs.splitlines()[0].split() == ["key", "default", "meaning"]
