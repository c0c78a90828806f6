"""footprint/inspector.py's exchange with V8's inspector, on a recorded exchange (the integration
test test_heap.py talks to a real Node): events that come before an answer are passed over, an
error answer and an answer that is not process.memoryUsage() are InspectorErrors."""

import json

import pytest

from uabench.footprint import inspector


class Recorded:
    """A WebSocket that answers each request with the messages given for its method."""

    def __init__(self, answers: dict[str, list[dict]]) -> None:
        self.answers, self.pending, self.sent = answers, [], []

    def send(self, text: str) -> None:
        request = json.loads(text)
        self.sent.append(request["method"])
        self.pending += [m if "method" in m else {**m, "id": request["id"]} for m in self.answers[request["method"]]]

    def recv(self) -> str:
        return json.dumps(self.pending.pop(0))

    def close(self) -> None:
        pass


def _heap(monkeypatch, answers):
    connection = Recorded(answers)
    monkeypatch.setattr(inspector, "_url", lambda pid: "ws://127.0.0.1:9229/x")
    monkeypatch.setattr(inspector.websocket, "create_connection", lambda *a, **k: connection)
    return inspector.collected_heap(4242), connection.sent


MEMORY = {"result": {"result": {"type": "string", "value": json.dumps({"heapUsed": 3_000_000, "external": 500})}}}


def test_the_heap_is_heap_used_and_external_after_the_collection(monkeypatch):
    event = {"method": "HeapProfiler.addHeapSnapshotChunk", "params": {}}
    found, sent = _heap(
        monkeypatch, {"HeapProfiler.collectGarbage": [event, {"result": {}}], "Runtime.evaluate": [MEMORY]}
    )
    assert found == 3_000_500
    assert sent == ["HeapProfiler.collectGarbage", "Runtime.evaluate"]


def test_an_error_answer_is_an_inspector_error(monkeypatch):
    refused = {"error": {"code": -32601, "message": "'HeapProfiler.collectGarbage' wasn't found"}}
    with pytest.raises(inspector.InspectorError, match="HeapProfiler.collectGarbage: .*wasn't found"):
        _heap(monkeypatch, {"HeapProfiler.collectGarbage": [refused]})


def test_an_answer_that_is_not_memory_usage_is_an_inspector_error(monkeypatch):
    thrown = {"result": {"result": {"type": "object", "subtype": "error"}}}
    with pytest.raises(inspector.InspectorError, match=r"process.memoryUsage\(\) gave None"):
        _heap(monkeypatch, {"HeapProfiler.collectGarbage": [{"result": {}}], "Runtime.evaluate": [thrown]})
