"""The hostile batches (tools/uabench_tools/hostile.py runs them), named here for the harness, which does
not import asyncua: the fuzzers over the recorded corpus, then the targeted attacks."""

FUZZ = (
    "fuzz-bitflip",
    "fuzz-length",
    "fuzz-truncate",
    "fuzz-huge-array",
    "fuzz-huge-string",
    "fuzz-nested",
    "fuzz-nodeid",
)
ATTACKS = (
    "hello-buffers",
    "chunk-flood",
    "oversize-message",
    "slowloris",
    "idle-connections",
    "session-flood",
    "subscription-flood",
    "monitored-item-flood",
    "publish-flood",
)
BATCHES = FUZZ + ATTACKS
ABOUT = {
    "fuzz-bitflip": "recorded messages with bits flipped (zzuf)",
    "fuzz-length": "a size field or an inner length prefix corrupted",
    "fuzz-truncate": "a message cut short, its size field unchanged, held open",
    "fuzz-huge-array": "a Read claiming 2³¹ nodes",
    "fuzz-huge-string": "a String NodeId claiming 2³¹ bytes",
    "fuzz-nested": "a Write of a Variant nested up to 100 000 deep",
    "fuzz-nodeid": "NodeIds with invalid encoding bytes",
    "hello-buffers": "Hellos with absurd buffer sizes, limits and URL",
    "chunk-flood": "a request in 20 000 chunks",
    "oversize-message": "one 64 MiB message",
    "slowloris": "connections sending their Hello a byte every 200 ms",
    "idle-connections": "TCP connections that never send a Hello",
    "session-flood": "sessions past the server's maximum",
    "subscription-flood": "subscriptions past the server's maximum",
    "monitored-item-flood": "monitored items past the server's maximum, a thousand per request",
    "publish-flood": "Publish requests without acknowledgements",
}

# Typical seconds of one batch besides the hostile client's start (2 cores). A fuzz case opens a
# channel and a session, sends its message and waits for the answer: a server that answers
# malformed input at once (or closes) costs little, one that stays silent costs the hostile
# client's answer timeout. Which a server does depends on its SDK, so each sdk.toml declares its
# cost per case ([expectations] fuzz_case_s), measured in `uabench run robustness --profile quick`
# (40 cases a batch, 24 Nov 2026: the test's time less its fixed part, per case): mutated recorded
# messages (bit flips, length fields) and built ones (huge arrays and strings, nesting, NodeIds);
# an SDK that declares none is taken as silent.
# A truncated message is held open HOLD_S (hostile.py) whatever the server does.
SILENT_CASE_S = (1.5, 1.5)
TRUNCATED_CASE_S = 1.02
MUTATED = ("fuzz-bitflip", "fuzz-length")
ATTACK_S = {
    "hello-buffers": 1.0,
    "chunk-flood": 3.0,
    "oversize-message": 3.0,
    "slowloris": 10.0,
    "idle-connections": 6.0,
    "session-flood": 8.0,
    "subscription-flood": 4.0,
    "monitored-item-flood": 6.0,
    "publish-flood": 4.0,
}
HOSTILE_START_S = 1.0


def typical_seconds(batch: str, cases: int, time_s: float, case_s: tuple[float, float] | None = None) -> float:
    """One batch against a server whose fuzz cases take `case_s` (mutated, built: its sdk.toml
    [expectations] fuzz_case_s; None: silent), within its time bound."""
    if batch == "fuzz-truncate":
        own = cases * TRUNCATED_CASE_S
    elif batch in FUZZ:
        mutated, built = case_s or SILENT_CASE_S
        own = cases * (mutated if batch in MUTATED else built)
    else:
        own = ATTACK_S.get(batch, 5.0)
    return HOSTILE_START_S + min(own, time_s)
