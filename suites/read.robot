*** Settings ***
Documentation     Read service across every client x server pair of the adapters present. Each interop
...               test reads one variant with verification of every value; each throughput test ranks a
...               server under the reference client's load.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
