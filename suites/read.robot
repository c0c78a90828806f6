*** Settings ***
Documentation     Read service across every client x server pair of the adapters present.
...               Each interop test reads one variant with verification of every value;
...               each throughput test ranks a server under the reference client's load.
...               The test cases are created from the adapters present when the suite
...               starts, from its plan (suites/plans/read.toml): a new adapter joins the matrix by itself.
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    read    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
