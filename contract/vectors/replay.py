"""Replays contract/vectors/verification.json through the Python clients' verifiers
(uabench_contract.read_verification and .write_verification) with a real SDK's DataValue
types, as each other adapter's test runner does with its own.

Run by the SDK's interpreter with the SDK's import name (asyncua or opcua, the import names
of asyncua and python-opcua) and optionally another vectors file; prints one JSON list of
problems and exits 1 if any. test_contract.py runs it in both SDKs' environments.
"""

from __future__ import annotations

import importlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uabench_contract as contract
from uabench_contract.read_verification import ReadVerifier
from uabench_contract.write_verification import LowestInFlight, WriteReadBack

VECTORS = Path(__file__).resolve().parent / "verification.json"


class Failures:
    def __init__(self) -> None:
        self.read_back = 0
        self.judged: list[str | None] = []

    def verification(self, failure: str | None) -> None:
        self.judged.append(failure)


def kept(failure: str | None, fragments: list[str] | None) -> bool:
    if fragments is None:
        return failure is None
    return failure is not None and all(f in failure for f in fragments)


class Replay:
    def __init__(self, ua: Any) -> None:
        self.ua = ua
        self.problems: list[str] = []

    def data_value(
        self, type_name: str, value: Any, source_us: int | None, status: int = 0
    ) -> Any:
        ua = self.ua
        variant = (
            None
            if value is None
            else ua.Variant(value, getattr(ua.VariantType, type_name))
        )
        data_value = ua.DataValue(variant)
        data_value.StatusCode = ua.StatusCode(status)
        if source_us is not None:
            data_value.SourceTimestamp = datetime.fromtimestamp(
                source_us / 1e6, UTC
            ).replace(tzinfo=None)
        return data_value

    def expect(
        self, where: str, failure: str | None, fragments: list[str] | None
    ) -> None:
        if not kept(failure, fragments):
            self.problems.append(f"{where}: got {failure!r}, expected {fragments!r}")

    def read(self, case: dict) -> None:
        failures = Failures()
        verifier = ReadVerifier(case["nodes"], case["sessions"], failures)
        sent: dict[str, int] = {}
        for number, step in enumerate(case["steps"]):
            if "send" in step:
                sent[step["send"]["request"]] = verifier.high_water(
                    step["send"]["session"]
                )
                continue
            response = step["response"]
            values = response["values"]
            data_values = [
                self.data_value(v["type"], v["value"], v["source_us"]) for v in values
            ]
            names = [v["node"] for v in values]
            request = response["request"]
            failures.judged.clear()
            verifier.response(
                response["session"],
                names,
                data_values,
                response["received_us"] / 1e6,
                response["measured"],
                sent_high=sent.pop(request) if request is not None else -1,
            )
            if not response["measured"]:
                continue  # warm-up values are judged but not recorded
            for k, fragments in enumerate(response["fails"]):
                self.expect(
                    f"read {case['name']!r} step {number} value {k}",
                    failures.judged[k],
                    fragments,
                )
        if verifier.ticks_advanced != case["ticks_advanced"]:
            self.problems.append(
                f"read {case['name']!r}: ticks_advanced {verifier.ticks_advanced}, expected {case['ticks_advanced']}"
            )

    def read_back(self, case: dict) -> None:
        failures = Failures()
        judge = WriteReadBack(
            case["nodes"], case["sessions"], case["nodes_per_request"], failures
        )
        data_value = self.data_value(
            case["type"], case["value"], None, case["status_code"]
        )
        failure = judge.judge(case["node"], data_value, case["lowest"], case["request"])
        self.expect(f"read_back {case['name']!r}", failure, case["fails"])

    def lowest_in_flight(self, case: dict) -> None:
        tracker = LowestInFlight()
        for step in case["steps"]:
            if "finished" in step:
                tracker.finished(step["finished"])
            elif "lowest" in step and tracker.lowest != step["lowest"]:
                self.problems.append(
                    f"lowest_in_flight {case['name']!r}: {tracker.lowest}, expected {step['lowest']}"
                )


def main() -> int:
    ua = importlib.import_module(sys.argv[1]).ua
    path = Path(sys.argv[2]) if len(sys.argv) > 2 else VECTORS
    vectors = json.loads(path.read_text(encoding="utf-8"))
    replay = Replay(ua)
    for case in vectors["read"]:
        replay.read(case)
    for case in vectors["read_back"]:
        replay.read_back(case)
    for case in vectors["lowest_in_flight"]:
        replay.lowest_in_flight(case)
    for case in vectors["lifetime"]:
        got = contract.lifetime_count(
            case["session_timeout_ms"],
            case["publishing_interval_ms"],
            case["keep_alive_count"],
        )
        if got != case["lifetime_count"]:
            replay.problems.append(f"lifetime {case}: {got}")
    for case in vectors["timeline"]:
        timeline = contract.Timeline(case["window_ms"])
        if case["begin"] is not None:
            timeline.begin(
                case["begin"]["start_ns"],
                case["begin"]["span_ns"],
                case["begin"]["offset_ns"],
            )
        for at_ns, values in case["completions"]:
            timeline.completed(at_ns, values)
        if timeline.record(case["end_ns"]) != case["record"]:
            replay.problems.append(
                f"timeline {case['name']!r}: {timeline.record(case['end_ns'])}"
            )
    print(json.dumps(replay.problems))
    return 1 if replay.problems else 0


if __name__ == "__main__":
    sys.exit(main())
