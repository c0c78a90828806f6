"""The engine's rules, each in one place: when a result counts as limited by its load generator,
how long a measured process may take beyond its planned time."""

# The sustain rule of subscription and PubSub points (SUSTAINED_CYCLE_RATIO, MAX_MISSED_SHARE):
# results/sustain.py, beside the records it is applied to (the report reads it too).

# The load generators (clients, subscribers) used at least this share of the CPU they were
# given: their figures may show their own limit, not the server's or the publisher's.
CLIENT_BOUND_PERCENT = 90.0

# Seconds a client may take beyond warm-up + duration: start-up (a JVM), connect, drain
# in-flight requests, verification.
CLIENT_GRACE_S = 45.0

# Seconds a subscriber may take beyond warm-up + duration: start-up (a large DataSet's address
# space), a backlog to work off (SPEC §8), the result. Large DataSets get 1 s per 5000 signals more.
SUBSCRIBER_GRACE_S = 90.0
SIGNALS_PER_EXTRA_SECOND = 5000
# Either grace is at least this where a role runs emulated (qemu: the VM target, a foreign-arch
# container): an emulated server answers several times slower (node-opcua's 100 sessions on the
# arm64 VM took more than 45 s to open), as targets/ssh.py gives its start EMULATED_READY_TIMEOUT_S.
EMULATED_GRACE_S = 300.0
# And there a client's sessions get this much more each: clients may open them one after another
# (open62541's does), and an emulated JVM server took up to 5 s a session on the arm64 VM.
EMULATED_SESSION_S = 5.0
# Where a role runs emulated, every client is given this request_timeout_ms (SPEC §3): its SDK's
# own timeouts (open62541's 5 s connect) timed out an emulated server's connects and
# CreateMonitoredItems (Milo on the arm64 VM). A bound no native request nears; natively the
# adapters keep their own (the key is not sent), so no native figure changes with it.
EMULATED_REQUEST_TIMEOUT_MS = 60_000

# The capacity search halves the offered rate below its start rate down to this, no further.
MIN_CAPACITY_RATE = 10.0

# Overload behaviour (engine/capacity.classify_overload), at each overload factor: completions
# "hold" at or above GRACEFUL_SHARE of the capacity's (0.9: a server that holds its throughput
# still loses a little to queueing); COLLAPSE_SHARE is kept for the stores of older commits,
# whose "degrading" lay between the two.
GRACEFUL_SHARE = 0.9
COLLAPSE_SHARE = 0.5
# A server sheds load when at least SHED_SHARE of the offered requests were refused with an
# explicit busy status (capacity.BUSY_STATUSES); its latency queues when the p99 of the
# requests sent in the second half of the window is QUEUE_GROWTH × or more that of the first
# half (a queue without bound grows with the length of the run; a bounded one does not).
SHED_SHARE = 0.01
QUEUE_GROWTH = 1.5
# The overload classes in words (classify_overload applies them; the report prints them): here
# with the numbers they name, so the report states the rule without importing the engine.
OVERLOAD_RULE = (
    "crash = the server exited or answered nothing; shed = at least {shed:.0%} of the offered requests refused "
    "with an explicit busy status (Bad_TooManyOperations, Bad_ServerTooBusy, …) while the latency of the "
    "requests it served did not queue; collapse = completions fell below {hold:.0%} of the capacity's without "
    "such refusals; queue = completions held (≥ {hold:.0%}) while the latency grew with the length of the run "
    "(p99 of the requests sent in the window's second half ≥ {growth:g}× that of its first half); holds = "
    "completions held and the latency did not grow (its bound was missed by a constant margin)"
)

# The capacity search probes the capacity it found again, and the next lower rate that held if
# that one misses, this many times at most (a short probe can miss once).
CONFIRM_ROUNDS = 2
# A missed rate that holds when probed again: the search climbs on from it, this many times at
# most (then that rate, held twice, is the capacity).
RESUME_ROUNDS = 2

# A capacity probe whose p99 send lag (the load generator's actual − scheduled send) exceeds this
# share of the latency bound measured the client's lag as much as the server: it is marked, and
# a miss there is the load generator's, not the server's.
GENERATOR_LAG_SHARE = 0.25

# Repetitions of each side of the load generator's headroom check (one process against two):
# whether one process limits the load is a yes/no question, not a ranked figure.
HEADROOM_REPETITIONS = 3

# A repetition disturbed by other load on the host (proc.host.disturbed) is measured again this
# many times; the last attempt is kept whatever it met, its interference recorded with it.
DISTURBED_RETRIES = 1
