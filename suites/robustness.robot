*** Settings ***
Documentation     Every server against hostile input: a seeded fuzzer over messages recorded from the reference
...               client and targeted attacks (absurd Hellos, chunk floods, an oversize message, slowloris, idle
...               connections, session, subscription and Publish floods). After each batch: alive, a verified
...               read, resources, and the same after a recovery wait; a crash or a hang keeps its reproducer.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
