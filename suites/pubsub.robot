*** Settings ***
Documentation     PubSub (OPC UA Part 14, UADP over UDP multicast): a signal-rate sweep of every publisher
...               at 100 ms, a subscriber-count sweep with every subscriber on its own host (a network
...               namespace on a Linux bridge, created and removed by the harness), and every publisher →
...               subscriber pair with every value verified. Needs root (ip netns) for the
...               subscriber-count sweep.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Declare Its PubSub Roles
    PubSub Adapters Should Be Installed
