"""The hostile batches (robustness/hostile.py runs them), named here for the harness, which does
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

# Typical seconds of one batch besides the hostile client's start (2 cores): a fuzz case opens a
# channel and a session first; the attacks hold connections for fixed times (hostile.py).
PER_FUZZ_CASE_S = 0.15
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


def typical_seconds(batch: str, cases: int, time_s: float) -> float:
    own = cases * PER_FUZZ_CASE_S if batch in FUZZ else ATTACK_S.get(batch, 5.0)
    return HOSTILE_START_S + min(own, time_s)
