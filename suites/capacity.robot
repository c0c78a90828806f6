*** Settings ***
Documentation     The highest open-loop read rate each server sustains within the plan's
...               latency bound, and how it behaves at 1.5 times that rate.
...               The test cases are created from the adapters present when the suite
...               starts, from its plan (suites/plans/capacity.toml).
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    capacity    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
