"""SPEC §3 Message sizes: a server that cannot send a large response (sdk.toml [limits]
server_max_response_bytes) is not asked to; the size of a read workload's largest response."""

import uabench_contract as contract

from uabench import sdks

EVERY_TYPE = ["Signal_0", "Tick", "Real", "Page", "SDD", "Image", "Array_10", "Array_10000", "Write_0"]


def test_the_largest_response_is_the_largest_request_window():
    scalar = contract.DATA_VALUE_OVERHEAD + contract.SCALAR_BYTES
    image = contract.DATA_VALUE_OVERHEAD + 4 + contract.IMAGE_LENGTH
    assert contract.response_bytes(["Tick"], 1) == contract.RESPONSE_OVERHEAD + scalar
    assert contract.response_bytes(EVERY_TYPE, 1) == contract.RESPONSE_OVERHEAD + contract.DATA_VALUE_OVERHEAD + 80004
    # 3 per request over [Image, Tick]: a request holds Image, Tick, Image at most
    assert contract.response_bytes(["Image", "Tick"], 3) == contract.RESPONSE_OVERHEAD + 2 * image + scalar
    assert contract.response_bytes(["Image"] * 40, 40) > 2_600_000


def _server(limit):
    return sdks.Sdk(
        "s",
        "Go",
        "1",
        ("server",),
        (),
        ("None",),
        ("None",),
        server_max_response_bytes=limit,
        limits_reason="one chunk only",
    )


def test_a_server_limit_refuses_only_what_exceeds_it():
    small = {"workload": "read", "nodes": [f"Signal_{i}" for i in range(100)], "nodes_per_request": 100}
    every = {"workload": "read", "nodes": EVERY_TYPE, "nodes_per_request": 1}
    assert _server(65535).cannot_send(small) is None
    why = _server(65535).cannot_send(every)
    assert why and "65535" in why and "80146" in why and "one chunk only" in why
    assert _server(None).cannot_send(every) is None  # no limit declared
    assert _server(65535).cannot_send({**every, "workload": "write"}) is None  # a write's response is small


def test_the_declared_limits_load():
    declared = {sdk.id: sdk for sdk in sdks.all_sdks()}
    for sdk in declared.values():
        assert sdk.server_max_response_bytes is None or sdk.limits_reason  # a limit says why


def test_a_refused_client_is_not_tried_for_figures_but_is_in_interop():
    from uabench.engine.session import _refused

    known = sdks.KnownFailure(("ref",), "BadSecurityChecksFailed", "a null nonce", refused=True)
    server = sdks.Sdk("s", "Rust", "1", ("server",), (), ("None",), ("None",), interop={"read": known})
    client, other = (sdks.Sdk(name, "C", "1", ("client",), ("read",), ("None",), ("None",)) for name in ("ref", "x"))
    assert "a null nonce" in (server.refuses("ref") or "") and server.refuses("x") is None
    assert server.refuses("ref", "write") is None  # declared for read only
    assert _refused("throughput", client, server, {"workload": "read"})
    assert _refused("interop", client, server, {"workload": "read"}) is None  # the claim stays tested
    assert _refused("throughput", other, server, {"workload": "read"}) is None
    unrefused = sdks.KnownFailure(("ref",), "BadSecurityChecksFailed", "a null nonce")  # matched after it ran only
    assert unrefused.refuses("ref") is None and unrefused.matches("ref", "connect: BadSecurityChecksFailed")


def test_a_known_failure_may_take_several_forms(tmp_path):
    toml = tmp_path / "sdk.toml"
    toml.write_text(
        'id = "s"\nlanguage = "Go"\nversion = "1"\n[interop.subscribe]\nclients = ["c"]\n'
        'found = ["BadTimeout", "no operation was attempted"]\nwhy = "w"\n'
    )
    known = sdks._load(toml)[0].interop["subscribe"]
    assert known.matches("c", "CreateSubscription: BadTimeout") and known.matches("c", "no operation was attempted")
    assert not known.matches("c", "BadNodeIdUnknown") and not known.matches("other", "BadTimeout")
