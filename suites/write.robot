*** Settings ***
Documentation     Write service across every client x server pair of the adapters present: every write
...               must succeed and read back as written.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
