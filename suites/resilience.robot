*** Settings ***
Documentation     Every client through a server killed and restarted on its port and a network path cut for a
...               while, with reconnect on: the time to detect, to reconnect and to resume, the operations
...               failed, what became of the subscriptions, notifications lost and delivered twice.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
