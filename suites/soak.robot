*** Settings ***
Documentation     Every server under a steady subscription with session churn beside it: RSS, threads and file
...               descriptors sampled over the run, their growth per hour with an interval, and a leak flagged
...               where the interval excludes zero.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
