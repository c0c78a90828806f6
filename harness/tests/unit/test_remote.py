"""Remote hosts over SSH (uabench.targets.remote), as `uabench run … --server-target ssh://…`
(uabench.targets.ssh) uses them: the remote wrapper with the harness's agent sampling what it
starts, run here; targets refused before ssh sees them; and, on the stand-in "Pi"
(uabench.checks.fixtures.pi_namespace, a network namespace with its own sshd), the work
directory and what is uploaded into it."""

import pytest

from uabench.targets import remote


@pytest.mark.parametrize(
    ("target", "port", "parent", "message"),
    [
        ("-oProxyCommand=touch /tmp/pwned", 22, "", "not starting with '-'"),
        ("pi@-oProxyCommand=x", 22, "", "not user@host"),
        ("-l root", 22, "", "not user@host"),
        ("", 22, "", "not user@host"),
        ("pi@host; rm -rf /", 22, "", "not user@host"),
        ("pi@host\nProxyCommand x", 22, "", "not user@host"),
        ("pi@raspberrypi.local", 0, "", "port 0 is not between 1 and 65535"),
        ("pi@raspberrypi.local", 22, "relative/dir", "is not an absolute path"),
    ],
)
def test_a_bad_target_is_refused_in_one_line(target, port, parent, message):
    with pytest.raises(remote.RemoteError, match=message) as refused:
        remote.RemoteHost(target, port, parent=parent)
    assert "\n" not in str(refused.value).replace("\\n", "")


def test_good_targets_reach_ssh_after_a_double_dash():
    for target in ("pi@raspberrypi.local", "192.168.1.20", "pi@fe80::1%eth0", "ci-runner_2@host-1"):
        host = remote.RemoteHost(target)
        assert host.ssh_base()[-2:] == ["--", target]
