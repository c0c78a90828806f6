"""proc/stacks.py on a /proc given as a directory: which mapping each thread's stack pointer lies
in, and what is left out (a running thread, a mapping several threads point into)."""

import os

import pytest

from uabench.proc import stacks

SMAPS = """\
55d0c0000000-55d0c0010000 r-xp 00000000 fe:01 123 /usr/bin/server
Rss:                  40 kB
AnonHugePages:         0 kB
7f0000000000-7f0000800000 rw-p 00000000 00:00 0
Rss:                  24 kB
AnonHugePages:         0 kB
7f0000800000-7f0001000000 rw-p 00000000 00:00 0
Rss:                 132 kB
AnonHugePages:         0 kB
7f1000000000-7f1004000000 rw-p 00000000 00:00 0
Rss:               65536 kB
AnonHugePages:         0 kB
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
AnonHugePages:         0 kB
"""

# (tid, /proc/PID/task/TID/syscall): the main thread in epoll_wait, two threads in futex waits,
# two whose pointers lie in one 64 MiB mapping (a runtime's heap), one on a CPU, one in no mapping
THREADS = {
    100: "232 0x3 0x7ffc0001f000 0x400 0xffffffff 0x0 0x8 0x7ffc00020a00 0x7f00000123ab",
    101: "202 0x7f0000010000 0x80 0x0 0x0 0x0 0x0 0x7f00007ff000 0x7f00000123cd",
    102: "-1 0x7f0000fff800 0x7f00000123ef",
    103: "202 0x1 0x80 0x0 0x0 0x0 0x0 0x7f1000001000 0x55d0c0001000",
    104: "202 0x1 0x80 0x0 0x0 0x0 0x0 0x7f1000400000 0x55d0c0001000",
    105: "running",
    106: "202 0x1 0x80 0x0 0x0 0x0 0x0 0x10 0x55d0c0001000",
}


def _proc(tmp_path, threads=THREADS, smaps=SMAPS):
    process = tmp_path / "4242"
    for tid, syscall in threads.items():
        (process / "task" / str(tid)).mkdir(parents=True)
        (process / "task" / str(tid) / "syscall").write_text(syscall + "\n")
    (process / "smaps").write_text(smaps)
    return tmp_path


def test_each_thread_s_stack_is_the_resident_size_of_the_mapping_its_pointer_lies_in(tmp_path):
    found = stacks.high_water(4242, _proc(tmp_path))
    assert found.threads == 7
    assert found.stacks == (132 * 1024, 24 * 1024, 16 * 1024)  # 102, 101, the main thread's [stack]
    assert found.largest == 132 * 1024 and found.total == 172 * 1024
    assert found.unread == 2  # running, and a pointer in no mapping
    assert found.shared == 2  # the 64 MiB mapping two threads point into is neither's stack
    assert found.huge_bytes == 0
    assert found.summary()["largest_bytes"] == 132 * 1024


def test_huge_pages_in_a_stack_are_counted(tmp_path):
    smaps = SMAPS.replace("Rss:                 132 kB\nAnonHugePages:         0 kB",
                          "Rss:                2048 kB\nAnonHugePages:      2048 kB")  # fmt: skip
    found = stacks.high_water(4242, _proc(tmp_path, smaps=smaps))
    assert found.largest == 2048 * 1024 and found.huge_bytes == 2048 * 1024


def test_no_thread_blocked_no_stack(tmp_path):
    found = stacks.high_water(4242, _proc(tmp_path, threads={100: "running"}))
    assert found.stacks == () and found.largest is None and found.unread == 1


def test_a_process_that_has_gone_is_a_stack_error(tmp_path):
    with pytest.raises(stacks.StackError, match="the stacks of process 4242 cannot be read"):
        stacks.high_water(4242, tmp_path)


@pytest.mark.parametrize(
    ("line", "pointer"),
    [("running", None), ("-1 0x7ffd1234 0x4000", 0x7FFD1234), ("0 0x1 0x2 0x3 0x4 0x5 0x6 0xabc0 0x400", 0xABC0)],
)
def test_the_stack_pointer_is_the_second_last_field(line, pointer):
    assert stacks.stack_pointer(line) == pointer


def test_a_remote_target_s_agent_reads_the_stacks_there_and_sends_them_back(tmp_path, capsys):
    """The agent's `stacks` answer, as the ssh target reads it: here on this test's own process
    (the agent reads /proc as stacks.high_water does), then the ways it says it could not."""
    from uabench.proc import agent
    from uabench.targets.ssh import stacks_from_agent

    pidfile = tmp_path / "role-1.adapter.pid"
    pidfile.write_text(f"{os.getpid()}\n")
    assert agent.main(["stacks", str(pidfile)]) == 0
    found = stacks_from_agent(0, capsys.readouterr().out, "")
    assert found.threads >= 1 and found.largest is not None and found.largest > 0
    assert stacks.Stacks.from_fields(found.fields()) == found
    assert agent.main(["stacks", str(tmp_path / "none.pid")]) == 0
    with pytest.raises(stacks.StackError, match="there: no adapter pid in .*none.pid"):
        stacks_from_agent(0, capsys.readouterr().out, "")
    pidfile.write_text("4194305\n")  # above Linux's largest pid: no such process
    assert agent.main(["stacks", str(pidfile)]) == 0
    with pytest.raises(stacks.StackError, match="the stacks of process 4194305 cannot be read"):
        stacks_from_agent(0, capsys.readouterr().out, "")
    with pytest.raises(stacks.StackError, match=r"read no stacks there \(exit 1\): .*No module named"):
        stacks_from_agent(1, "", "python3: No module named uabench.proc.agent\n")
    with pytest.raises(stacks.StackError, match="is not one"):
        stacks_from_agent(0, '{"threads": 3}\n', "")
    assert "uabench/proc/stacks.py" in agent.SHIPPED
