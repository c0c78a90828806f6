*** Settings ***
Documentation     Sampling profiles of every server under the read and the SignAndEncrypt read load:
...               flame graphs, functions by self time, and where the CPU goes (cryptography,
...               encoding, networking and system calls, the runtime, the SDK's own logic).
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
