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
    "publish-flood": "Publish requests without acknowledgements",
}
