*** Settings ***
Documentation     Subscriptions across every client x server pair, then the signal-rate and session sweeps
...               of the reference client on every server.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
