"""Known deviations of an SDK (sdk.toml [deviations]): only exactly the declared finding is one."""

import pytest

from uabench import sdks

DECLARED = sdks.Deviation("OpenSecureChannel", "connection closed without a status", "closes without ERR")


def test_only_the_declared_finding_matches():
    assert DECLARED.matches("OpenSecureChannel", None, "connection closed without a status (reset)")
    assert not DECLARED.matches("OpenSecureChannel", "BadTcpInternalError", "connection closed without a status")
    assert not DECLARED.matches("Hello", None, "connection closed without a status")  # another step
    assert not DECLARED.matches("OpenSecureChannel", None, "no answer within 5 s")  # another finding


def test_a_deviation_with_a_key_it_does_not_know_is_refused(tmp_path):
    toml = tmp_path / "sdk.toml"
    toml.write_text(
        'id = "x"\nlanguage = "C"\nversion = "1"\n[deviations."unoffered policy"]\nstep = "Hello"\nwhen = "?"\n'
    )
    with pytest.raises(ValueError, match="deviations"):
        sdks._load(toml)


def test_the_declared_deviations_load():
    declared = {sdk.id: sdk.deviations for sdk in sdks.all_sdks()}
    assert all(isinstance(d, sdks.Deviation) and d.why for each in declared.values() for d in each.values())


def test_a_deviation_may_name_the_wrong_status_it_answers_with():
    wrong = sdks.Deviation("ActivateSession", "", "answers a non-security status", status="BadTcpEndpointUrlInvalid")
    assert wrong.matches("ActivateSession", "BadTcpEndpointUrlInvalid", "answered at ActivateSession")
    assert not wrong.matches("ActivateSession", None, "closed")  # silence is not what it declares
    assert not wrong.matches("ActivateSession", "BadSecurityPolicyRejected", "")  # a proper refusal is no deviation
