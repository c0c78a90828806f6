"""The benchmark engine, one for every communication model:

- constants: its rules (client-bound, grace times, retries; the sustain rule is results.sustain), each in one place;
- cells: one measured cell (N clients or subscribers against a server or publisher),
  its one outcome type and one judge;
- session: a run in the store, its working directory, PKI and servers;
- warmup: warm-up to steady state (short chunks of load until the throughput is stable);
- schedule: block order from a seed, the adaptive stop rule, the disturbed-repeat rule;
- interleave: interleaved, randomised, adaptive blocks of the things a figure compares;
- search: sweeps and the headroom experiment as plain functions;
- capacity: the open-loop capacity search, the overload probes beyond it and the latency table's loads;
- overhead: what resource sampling costs the throughput (sampling on vs off, interleaved);
- pubsub: the PubSub scenarios on cells and search;
- adapters: the first check of a suite (the adapters answer as they declare);
- orphans: what a killed harness left (runs still `running`, processes, namespaces, cgroups), found
  and removed by the next invocation.

How figures that rank are measured (issue 11):

1. Steady state, not a fixed warm-up. Before a server is measured under a load, it is loaded
   in short unmeasured chunks (verification off) until `STEADY_RUN` successive chunks agree
   within ±2 % or the last five show no trend (warmup.steady_from), at most the plan's
   `server_warmup_s` per profile. Every chunk is stored (kind
   "warmup"), and the verdict with the time and load to steady state (kind "steady-state",
   status pass or never_steady), per server and load: a JIT runtime's warm-up cost is a
   figure. Rankings warm each (server, load, security) up with its own load; other cells that
   need a warm server get the reference load once per server process; interop cells are
   correctness runs and are not warmed; subscription sweeps are not either (their figure is
   the cycle time the server's update loop sets, not how fast it answers requests).
2. Interleaved and randomised. A ranking (or a comparison of variants, such as security modes
   against None) runs in blocks: block r measures every (server, variant) once, in an order
   shuffled per block from a seed kept in the run's provenance (`UABENCH_SEED` replays it).
   The repetition number of a cell is its block, so ratios pair cells of the same block.
3. Adaptive. Blocks repeat until every compared figure's 95 % interval (results.stats.estimate)
   is within ±3 % of its estimate, at least `repetitions` (≥ 5 for figures that rank) and at
   most `max_repetitions` blocks of the profile. A repetition whose host interference
   (proc.host: steal time, other processes' CPU) passed the threshold is stored with status
   "disturbed" and its reason, and measured again (`DISTURBED_RETRIES` times at most); sweep
   points are measured again the same way.

Sweeps with a stop condition (subscription signal rate, sessions), the scenarios' sweeps and
the capacity search still run server after server: their points depend on the point before.

Servers between cells — the choice, and why. Only one server may run at a time: another
server's update loop on the server cores distorts what the measured one does. Restarting a
server for every cell of an interleaved schedule would throw away a JIT runtime's warm-up each
time (Milo, node-opcua need seconds of load to compile), and warming each restart up to steady
state again would cost more than the measurement. Keeping every server alive and idle would
leave their update loops running beside the measured one. So servers of the default config
stay alive but paused: SIGSTOP to the whole process group while another server is measured,
SIGCONT before its own next cell. A paused process uses no CPU and keeps its compiled code and
its state; its update loop resumes where it stopped, and each cell's own client warm-up
(`warmup_s`) covers the moment it catches up. Servers with config overrides (sweep points)
are stopped when another server is needed, as before.
"""
