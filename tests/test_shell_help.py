"""The shell's own texts (README, "The shell"): `help` lists the commands by group, sorted, in lines of
at most 80 columns broken at word boundaries; `help bootargs` gives each key's default; the README's
shell and boot-argument tables list exactly what the kernel declares."""
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


def readme_rows(section):
    """The first cells of the table under README's `## section`, each a list of its `code` chunks."""
    text = (ROOT / "README.md").read_text().split(f"\n## {section}\n")[1].split("\n## ")[0]
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return [(re.findall(r"`([^`]*)`", row.split(" | ")[0]), row.split(" | ")[1:]) for row in rows]


def test_readme_lists_every_shell_command_and_no_other():
    """The README's shell table names exactly the commands the sources declare (it cannot drift)."""
    listed = {chunk.split()[0] for chunks, _ in readme_rows("The shell") for chunk in chunks}
    declared = set(declared_commands())
    assert not declared - listed, f"commands missing from the README's shell table: {sorted(declared - listed)}"
    assert not listed - declared, f"README's shell table names commands that do not exist: {sorted(listed - declared)}"


def test_readme_lists_every_boot_argument_with_its_default(boot):
    """The README's boot-argument table has a row per key of `help bootargs`, and a default written
    as a number there is the kernel's own."""
    r = boot(harts=1, bootargs='cmd="help bootargs"', timeout=60)
    assert r.status == 0, r.output[-2000:]
    listing = r.output.split("mosaic> help bootargs\n")[1]
    kernel = {line.split()[0]: line.split()[1] for line in listing.splitlines()[1:] if re.match(r"^  [a-z]", line)}
    readme = {chunks[0]: cells[0] for chunks, cells in readme_rows("Boot arguments")}
    assert not kernel.keys() - readme.keys(), f"keys missing from the README: {sorted(kernel.keys() - readme.keys())}"
    assert not readme.keys() - kernel.keys(), f"README keys the kernel lacks: {sorted(readme.keys() - kernel.keys())}"
    for key, cell in readme.items():
        m = re.fullmatch(r"`(\d+)`.*", cell.strip())
        if m:
            assert m.group(1) == kernel[key], f"{key}: README says {m.group(1)}, the kernel {kernel[key]}"
