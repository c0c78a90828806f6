*** Settings ***
Documentation     How each server follows the OPC UA services it is benchmarked on: the conformance probe's
...               checks grouped under Part 7's conformance units, each citing its clause, and the Standard
...               2017 UA Server Profile's capacity minimums with each server's headroom above them.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
