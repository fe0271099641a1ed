"""The host's files for the kernel (kernel/files/files.h, docs/files.md): named files packed into one
image that QEMU loads as the initrd. scripts/mosaic-run --scenario and --program, and the tests, pack
through here; the format's constants are read from kernel/files/files.h, the one source of truth."""
import hashlib
import os
import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAME_CHARS = re.compile(r"^[A-Za-z0-9._+-]+$")
SCENARIO = "scenario"  # the scenario file's name in the image (kernel/alloc/scenario_file.c)


def limits():
    """{'magic', 'version', 'max_files', 'name_max'} from kernel/files/files.h."""
    text = (ROOT / "kernel" / "files" / "files.h").read_text()
    get = lambda name: re.search(rf"#define {name} (\S+)", text).group(1)  # noqa: E731
    return {"magic": get("FILES_MAGIC").strip('"').encode(), "version": int(get("FILES_VERSION")),
            "max_files": int(get("FILES_MAX")), "name_max": int(get("FILES_NAME_MAX"))}


def program_max():
    """The longest program name, from portable/alloc/job.h (ALLOC_PROGRAM_MAX, with its NUL)."""
    text = (ROOT / "portable" / "alloc" / "job.h").read_text()
    return int(re.search(r"#define ALLOC_PROGRAM_MAX (\d+)", text).group(1)) - 1


def check_name(name):
    """An error message for a name the kernel would refuse, or None."""
    lim = limits()
    if not NAME_CHARS.match(name) or len(name) >= lim["name_max"]:
        return f"'{name}': a file's name is 1..{lim['name_max'] - 1} characters of A-Z a-z 0-9 . _ + -"
    return None


def pack(entries):
    """The image of entries, a list of (name, bytes), in that order. ValueError for what the kernel
    would refuse (a bad or repeated name, too many files)."""
    lim = limits()
    if not 1 <= len(entries) <= lim["max_files"]:
        raise ValueError(f"{len(entries)} files: an image holds 1..{lim['max_files']}")
    seen = set()
    out = [lim["magic"] + struct.pack("<II", lim["version"], len(entries))]
    for name, data in entries:
        err = check_name(name)
        if err:
            raise ValueError(err)
        if name in seen:
            raise ValueError(f"'{name}' is given twice")
        seen.add(name)
        out.append(struct.pack(f"<{lim['name_max']}sQQ", name.encode(), len(data), 0))
        out.append(bytes(data) + bytes(-len(data) % 8))
    return b"".join(out)


def unpack(image):
    """[(name, bytes)] of an image made by pack (for the tests); ValueError if it is not one."""
    lim = limits()
    magic, version, count = image[:8], *struct.unpack("<II", image[8:16])
    if magic != lim["magic"] or version != lim["version"]:
        raise ValueError("not a Mosaic file image")
    off, files, hdr = 16, [], struct.calcsize(f"<{lim['name_max']}sQQ")
    for _ in range(count):
        name, size, _zero = struct.unpack(f"<{lim['name_max']}sQQ", image[off:off + hdr])
        off += hdr
        files.append((name.rstrip(b"\0").decode(), image[off:off + size]))
        off += size + (-size % 8)
    return files


def image_file(entries, directory=ROOT / "build" / "files"):
    """Writes the image of entries, a list of (name, host path), to a file named after its content
    (kept: a boot reads it when QEMU starts) and returns its path. ValueError as pack, OSError."""
    data = pack([(name, Path(path).read_bytes()) for name, path in entries])
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (hashlib.sha1(data).hexdigest()[:20] + ".img")
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


def program_name(path):
    """The name a program file gets in the image: its file name, with .elf added if it has none
    (the kernel takes every NAME.elf as program NAME)."""
    name = Path(path).name
    return name if name.endswith(".elf") else name + ".elf"
