*** Settings ***
Documentation     Round-trip delay over emulated networks (Nakutis et al.): client and server in their own
...               network namespaces joined by a veth pair, delay and jitter from toxiproxy, bandwidth from
...               tbf, loss from iptables. Every RTD of the reference client against every server over
...               each network profile, the RTD–CPU study on a CPU-constrained host, the interop matrix in
...               a short form and subscriptions over each network. Needs root.
Resource          benchmark.resource
Suite Setup       Start Benchmark
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
