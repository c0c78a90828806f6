"""The reference SDK of each role comes from suites/references.toml or the environment."""

import pytest

from uabench import paths, references


def test_the_committed_file_declares_every_role(monkeypatch):
    for role in references.ROLES:
        monkeypatch.delenv(f"UABENCH_REFERENCE_{role.upper()}", raising=False)
        assert references.declared(role)


def test_the_environment_overrides_the_file(monkeypatch):
    monkeypatch.setenv("UABENCH_REFERENCE_CLIENT", "milo")
    assert references.declared("client") == "milo"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('client = "a"\nserver = "a"\nloader = "a"\n', "unknown key 'loader'"),
        ('client = ""\n', "key 'client' must name an SDK"),
        ("client = 3\n", "key 'client' must name an SDK"),
        ('server = "a"\n', "key 'client' must name an SDK, got None"),
        ("client = [\n", "cannot read the reference SDKs"),
    ],
)
def test_a_bad_file_is_one_line_naming_it(tmp_path, monkeypatch, text, message):
    monkeypatch.delenv("UABENCH_REFERENCE_CLIENT", raising=False)
    monkeypatch.setattr(paths, "SUITES", tmp_path)
    (tmp_path / references.FILE).write_text(text)
    with pytest.raises(ValueError, match=message) as raised:
        references.declared("client")
    assert str(tmp_path / references.FILE) in str(raised.value)
