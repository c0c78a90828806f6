*** Settings ***
Documentation     Data volume, grouped and concurrent requests on every server.
...               The test cases are created from the adapters present when the suite
...               starts, from its plan (suites/plans/scenarios.toml).
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    scenarios    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
