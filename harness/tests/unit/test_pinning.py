"""Where the server, the load generator and the harness run (proc/pinning.py): whole physical
cores per role (SMT siblings from a fake /sys), a core for the harness only where one is spare,
and the provenance's note when there is none."""

from uabench.proc import pinning


def _topology(tmp_path, siblings: dict[int, str]):
    for cpu, text in siblings.items():
        directory = tmp_path / f"cpu{cpu}" / "topology"
        directory.mkdir(parents=True)
        (directory / "thread_siblings_list").write_text(text + "\n")
    return tmp_path


def test_two_cores_leave_no_spare_core_for_the_harness(tmp_path):
    found = pinning.plan({0, 1}, _topology(tmp_path, {0: "0", 1: "1"}))
    assert (found.server, found.client, found.harness) == ({0}, {1}, None)
    assert found.note == pinning.NO_SPARE_CORE


def test_hyperthreads_of_one_core_go_to_the_same_role(tmp_path):
    # two cores of two hyperthreads, numbered as Linux often does: 0 and 2 share a core
    found = pinning.plan({0, 1, 2, 3}, _topology(tmp_path, {0: "0,2", 1: "1,3", 2: "0,2", 3: "1,3"}))
    assert (found.server, found.client, found.harness) == ({0, 2}, {1, 3}, None)  # not {0, 1} / {2, 3}


def test_a_spare_core_takes_the_harness_whole(tmp_path):
    siblings = {0: "0,3", 1: "1,4", 2: "2,5", 3: "0,3", 4: "1,4", 5: "2,5"}
    found = pinning.plan(set(range(6)), _topology(tmp_path, siblings))
    assert found.harness == {2, 5}
    assert (found.server, found.client) == ({0, 3}, {1, 4})
    assert "a core of its own" in found.note
    plain = pinning.plan({0, 1, 2}, _topology(tmp_path / "plain", {0: "0", 1: "1", 2: "2"}))
    assert (plain.server, plain.client, plain.harness) == ({0}, {1}, {2})


def test_one_core_with_two_hyperthreads_says_they_share_it(tmp_path):
    found = pinning.plan({0, 1}, _topology(tmp_path, {0: "0-1", 1: "0-1"}))
    assert (found.server, found.client, found.harness) == ({0}, {1}, None)
    assert "hyperthreads of one core" in found.note


def test_unreadable_topology_counts_each_cpu_as_a_core(tmp_path):
    _topology(tmp_path, {0: "garbage"})  # a faulty list, and no files at all for cpu 1 and 2
    found = pinning.plan({0, 1, 2}, tmp_path)
    assert (found.server, found.client, found.harness) == ({0}, {1}, {2})
    assert pinning.parse_list("0-3,8,10-11") == {0, 1, 2, 3, 8, 10, 11}


def test_a_single_cpu_pins_nothing(tmp_path):
    found = pinning.plan({0}, tmp_path)
    assert (found.server, found.client, found.harness) == (None, None, None)
