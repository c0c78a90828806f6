"""Profiles (issue 20): folded stacks, the functions by self time, the attribution of samples by
profile/rules.toml, the flame graph, and the profile plan. A real server's profile is make
test's smoke run (suites/plans/profile.toml)."""

from collections import Counter

import pytest
from helpers.profile import STACKS

from uabench import plan
from uabench.profile import folded, profilers
from uabench.profile.report import _reading, profile_section


def test_folded_stacks_parse_and_render_back():
    stacks = folded.parse(STACKS)
    assert sum(stacks.values()) == 100 and folded.parse(folded.render(stacks)) == stacks
    assert folded.parse("a;b 1\na;b 2\n") == Counter({"a;b": 3})


@pytest.mark.parametrize("line", ["a;b", "a;b x", "12"])
def test_a_line_that_is_no_folded_stack_is_named(line):
    with pytest.raises(folded.FoldedError, match="line 2"):
        folded.parse(f"a 1\n{line}\n")


def test_self_time_is_the_leaf():
    top = folded.top(folded.parse(STACKS), 3)
    assert [(f.name, f.samples) for f in top] == [
        ("aesni_cbc_encrypt", 40),
        ("__memmove_avx_unaligned_erms", 20),
        ("zipNsGetNode", 15),
    ]
    assert top[0].share == 0.4


def test_each_sample_goes_to_the_first_category_from_the_leaf():
    categories = folded.rules()
    got = {stack.split(";")[-1]: folded.category_of(stack, categories) for stack in folded.parse(STACKS)}
    assert got == {
        "aesni_cbc_encrypt": "cryptography",
        # a copy made while decoding is decoding: memmove matches nothing, its caller does
        "__memmove_avx_unaligned_erms": "encoding",
        # a Read of the SDK is no read(2)
        "zipNsGetNode": "service and address space",
        "do_epoll_wait_[k]": "networking and system calls",
        "tcp_sendmsg_[k]": "networking and system calls",
        "runtime.scanobject": "runtime",
        "_int_malloc": folded.OTHER,
        "[unknown]": folded.OTHER,
    }
    shares = folded.attribution(folded.parse(STACKS), categories)
    assert shares["cryptography"] == 0.4 and shares[folded.OTHER] == 0.06 and sum(shares.values()) == pytest.approx(1)


def test_a_rule_that_matches_everything_is_visible_in_the_shares(tmp_path):
    """The attribution follows the rules file: a catch-all first category takes every sample."""
    rules = tmp_path / "rules.toml"
    rules.write_text('[[category]]\nname = "all"\nwhat = "x"\npatterns = ["."]\n')
    assert folded.attribution(folded.parse(STACKS), folded.rules(rules)) == {"all": 1.0, folded.OTHER: 0.0}


def test_a_broken_profile_is_a_note_not_a_figure():
    cell = {
        "kind": "profile",
        "status": "fail",
        "server": "milo",
        "variant": "read",
        "reason": "perf recorded no samples",
    }
    section = profile_section([cell])
    assert section is not None and section.notes == ["milo, read: no profile: perf recorded no samples"]


def test_a_servers_reading_names_its_largest_shares_what_no_rule_took_and_what_security_moves():
    plain = {"attribution": {"encoding": 0.2, "runtime": 0.05, "service and address space": 0.55, "other": 0.2}}
    secure = {"attribution": {"cryptography": 0.3, "encoding": 0.18, "service and address space": 0.32, "other": 0.2}}
    text = _reading("sdk", {"read": plain, "read, SignAndEncrypt": secure})
    assert text.startswith("sdk, read: service and address space 55 %, then encoding 20 % of its samples")
    assert "20 % matched no rule" in text  # the unattributed share is said, never hidden
    assert "with SignAndEncrypt, cryptography takes 30 %" in text
    assert "cryptography +30 points; service and address space −23 points" in text
    assert "encoding" not in text.split("SignAndEncrypt")[1]  # moved 2 points: noise, not named


def test_a_reading_without_a_secure_profile_or_a_notable_share_says_so():
    flat = {"attribution": {c: 0.09 for c in ("cryptography", "encoding", "runtime")} | {"other": 0.05}}
    assert _reading("sdk", {"read": flat}) == "sdk, read: no category reaches 10 % of its samples."


def test_the_profile_plan_makes_one_test_per_server_and_workload():
    loaded = plan.load("profile")
    smoke = plan.test_cases(loaded, None, "smoke")
    assert [(t.args, t.tags[-1]) for t in smoke] == [(("open62541", "read"), "workload:read")]
    quick = plan.test_cases(loaded, None, "quick")
    assert len(quick) == 2 * len({t.args[0] for t in quick})


def test_every_runtime_has_a_profiler():
    from uabench import sdks

    for sdk in sdks.with_role("server"):
        assert profilers.tool(sdk.language) in ("perf", "py-spy")


def test_package_names_and_event_loops_decide_only_when_nothing_else_does():
    """py-spy's frames carry the file: an SDK's own encoder is encoding, not the SDK's package;
    another of its frames is the SDK's; the event loop alone is the runtime."""
    categories = folded.rules()
    loop = "<module> (server.py:1);run (asyncio/runners.py:118);_run (asyncio/events.py:80)"
    assert (
        folded.category_of(
            f"{loop};serialize (asyncua/ua/ua_binary.py:422);pack (asyncua/ua/ua_binary.py:169)", categories
        )
        == "encoding"
    )
    assert folded.category_of(f"{loop};read (asyncua/common/utils.py:70)", categories) == "service and address space"
    assert folded.category_of(loop, categories) == "runtime"
    java = (
        "java.lang.Thread.run_[j];org.eclipse.milo.opcua.sdk.server.GroupMapCollate.apply_[j];java.util.HashMap.get_[j]"
    )
    assert folded.category_of(java, categories) == "service and address space"


def test_a_torn_sample_of_py_spy_is_left_out_and_the_rest_kept():
    torn = "<module> (x.py:1);f (x.py:2) 5\n<module> (x.py:1);Helper function\nthat does things\n 3\na;b 1\n"
    assert folded.parse_sampled(torn) == Counter({"<module> (x.py:1);f (x.py:2)": 5, "a;b": 1})
    with pytest.raises(folded.FoldedError):
        folded.parse(torn)
