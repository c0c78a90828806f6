*** Settings ***
Documentation     Write service across every client x server pair of the adapters present:
...               every write must succeed and read back as written.
...               The test cases are created from the adapters present when the suite
...               starts, from its plan (suites/plans/write.toml): a new adapter joins the matrix by itself.
Resource          benchmark.resource
Library           uabench.robot.library.UabenchLibrary    write    plan=${PLAN}    profile=${PROFILE}
...               store=${STORE}    sdks=${SDKS}    run_dir=${RUN_DIR}
Suite Setup       Start Benchmark Run
Suite Teardown    Finish Benchmark Run

*** Test Cases ***
Every Adapter Should Answer As Its sdk.toml Declares
    Adapters Should Be Installed
