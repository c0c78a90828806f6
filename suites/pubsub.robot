*** Settings ***
Documentation     PubSub (OPC UA Part 14, UADP over UDP multicast): a signal-rate sweep of every
...               publisher at 100 ms, a subscriber-count sweep with every subscriber on its own
...               host (a network namespace on a Linux bridge, created and removed by the
...               harness), and every publisher → subscriber pair with every value verified.
...               The test cases are created from the adapters present when the suite starts,
...               from its plan (suites/plans/pubsub.toml). Needs root (ip netns) for the
...               subscriber-count sweep.
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    pubsub    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Declare Its PubSub Roles
    PubSub Adapters Should Be Installed
