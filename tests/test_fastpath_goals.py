"""The fast-path goals' verdicts (scripts/fastpath_goals.py), on hand-made figures: no boot.

Why: bench-noc, bench-kernel and bench-invade store these verdicts in their JSON; a verdict that ignored the
judging clock, or called a goal met without a figure, would make every benchmark's MET meaningless.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import fastpath_goals  # noqa: E402


def test_a_goal_is_met_only_on_its_judging_clock():
    g = fastpath_goals.verdict("message_send_recv_8B", {"serial": 450, "virtual": 900})
    assert g["met"] and g["judged"] == 450 and g["measured"] == {"serial": 450, "virtual": 900}
    g = fastpath_goals.verdict("message_send_recv_8B", {"serial": 451, "virtual": 100})
    assert not g["met"]  # the virtual figure carries the clock's bookkeeping: it does not judge
    g = fastpath_goals.verdict("invade_retreat_in_domain", {"serial": 100, "virtual": 2001})
    assert not g["met"]  # a time is judged on the virtual clock


def test_a_goal_without_its_clock_is_not_met_and_says_why():
    g = fastpath_goals.verdict("forwarded_call_caller_and_master", {"virtual": 10})
    assert not g["met"] and "not measured" in g["judged"]
    g = fastpath_goals.verdict("infect_per_member", {"virtual": None, "serial": 5})
    assert not g["met"] and g["measured"] == {"serial": 5}


def test_every_goal_names_its_limit_anchor_and_before_figures(capsys):
    for name, g in fastpath_goals.GOALS.items():
        assert g["limit"] > 0 and g["anchor"] and g["before"] and g["judged_on"] in ("serial", "virtual"), name
    fastpath_goals.print_goals({"break_even_loop": fastpath_goals.verdict("break_even_loop", {"virtual": 6000})},
                               "p: ")
    out = capsys.readouterr().out
    assert "MISSED: 6,000 ns on the virtual clock (limit 5,760" in out
