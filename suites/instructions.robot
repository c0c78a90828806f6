*** Settings ***
Documentation     Simulated instructions per request of every natively compiled server (valgrind's
...               cachegrind, the difference of two runs), beside the same workload timed without
...               valgrind; servers on a JIT or an interpreter say why they have no count.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
