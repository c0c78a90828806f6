*** Settings ***
Documentation     The highest open-loop read rate each server sustains within the plan's latency bound,
...               and how it behaves at 1.5 times that rate.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
