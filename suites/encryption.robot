*** Settings ***
Documentation     Every security policy and mode a server and the reference client share,
...               relative to None; and the negative tests every server must pass.
...               The test cases are created from the adapters present when the suite
...               starts, from its plan (suites/plans/encryption.toml).
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    encryption    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
