*** Settings ***
Documentation     Memory per session, subscription and monitored item, the address space's cost
...               per 1,000 signals, time to ready and a new session's first request of every
...               server; memory per session of every client.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
