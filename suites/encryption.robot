*** Settings ***
Documentation     Every security policy and mode a server and the reference client share, relative to
...               None; and the negative tests every server must pass.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
