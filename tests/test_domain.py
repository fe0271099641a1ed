"""Domains: the default thesis layout on 6x6, other splits, partial simulation, refusals."""
import re

from conftest import expect


def tiles(output):
    """{core: (domain, is_master)} from the shell's mesh drawing."""
    return {int(c): (int(d), star == "*") for c, star, d in re.findall(r"(\d+)/\d+\s*(\*?)(\d+)", output)}


def test_default_layout_is_four_3x3_domains(boot):
    r = boot(harts=36, bootargs="cmd=mesh")
    assert r.status == 0, r.output
    assert "4 domains (2x2)" in r.output
    t = tiles(r.output.split("mosaic> mesh")[1])
    assert len(t) == 36
    assert sorted(c for c, (_, m) in t.items() if m) == [7, 10, 25, 28]  # each domain's centre
    for d in range(4):
        assert sum(1 for dom, _ in t.values() if dom == d) == 9  # one micro-kernel, eight pico-kernels


def test_other_splits(boot):
    r = boot(harts=64, bootargs="domains=16 cmd=mesh")
    assert r.status == 0 and "16 domains (4x4)" in r.output, r.output
    r = boot(harts=36, bootargs="domains=2 cmd=mesh")
    assert r.status == 0 and "2 domains (1x2)" in r.output, r.output


def test_partial_simulation_layout(boot):
    r = boot(harts=49, bootargs="partial_sim=8 cmd=mesh")
    assert r.status == 0, r.output
    assert "49 domains (partial simulation)" in r.output
    assert "every hart is a micro-kernel managing 8 virtual cores" in r.output
    t = tiles(r.output.split("mosaic> mesh")[1])
    assert len(t) == 49 and all(m for _, m in t.values())


def test_impossible_split_is_refused(boot):
    expect(boot(harts=36, bootargs="domains=7"), 2, "domains: 7 rectangles cannot tile a 6x6 mesh")
    expect(boot(harts=4, bootargs="domains=5"), 2, "domains: 5 domains need at least 5 harts, there are 4")
    expect(boot(harts=36, bootargs="partial_sim=4 domains=4"), 2, "partial_sim makes every hart a domain")
