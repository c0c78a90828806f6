"""The conformance checks (issue 17): what each check expects of a server, where the specification
says so, and the judgement of what the probe (tools/uabench_tools/probe.py) observed. Plain functions of
the observation, so each can be shown to fail on a deviating answer without any server.

Grouped under the conformance units of OPC UA Part 7 (the units the OPC Foundation's Compliance
Test Tool tests), each citing the clause of OPC 10000 v1.05 it follows (section numbers of the
1.05.04 text at reference.opcfoundation.org/specs; the 1.05.02 pages number Part 4's service
sets one lower). The capacity gates are the Standard 2017 UA Server Profile's minimums (Part 7
v1.04 Table 93 and its facets: the 1.05 profile tables were not available to check against)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

OUTCOMES = ("pass", "deviation", "not_supported", "inconclusive", "error")
SESSION_GONE = ("BadSessionIdInvalid", "BadSessionClosed")
# A keep-alive later than MaxKeepAliveCount × the publishing interval by more than this share,
# plus a timer's slack, is late: servers publish on their own timer, so one cycle of jitter is
# not a deviation.
KEEP_ALIVE_SLACK = 1.5
KEEP_ALIVE_SLACK_MS = 250.0
# Part 4 §5.14.2.2: the lifetime count shall be at least three times the keep-alive count.
LIFETIME_PER_KEEP_ALIVE = 3
PAGE = [(k * 37) % 65536 - 32768 for k in range(512)]  # SPEC.md §4: the Page variable's elements
# SPEC.md §4's variables the attribute check reads: DataType NodeId, array or scalar, writable
VARIABLES = {
    "Signal_0": ("i=10", "Float", False, False),
    "Tick": ("i=7", "UInt32", False, False),
    "Real": ("i=10", "Float", False, False),
    "Page": ("i=4", "Int16", True, False),
    "Array_10": ("i=11", "Double", True, False),
    "SDD": ("i=15", "ByteString", False, False),
    "Write_0": ("i=11", "Double", False, True),
}
CURRENT_READ, CURRENT_WRITE = 0x01, 0x02  # AccessLevel bits (Part 3 §8.57)


@dataclass(frozen=True)
class Verdict:
    outcome: str  # one of OUTCOMES
    got: str  # what came back, in one line
    headroom: float | None = None  # a capacity gate: the level reached over the profile's minimum


@dataclass(frozen=True)
class Check:
    id: str  # the probe's method
    unit: str  # the Part 7 conformance unit
    title: str
    cite: str
    expected: str
    judge: Callable[[dict, dict], Verdict]


def judge(check_id: str, observed: dict | None, context: dict | None = None, error: str | None = None) -> Verdict:
    """The verdict on one check: `observed` as the probe printed it, `context` what the check
    needs besides; `error` is the probe's own failure."""
    if error is not None:
        return Verdict("error", f"the probe failed: {error}")
    assert observed is not None
    if "no_answer" in observed:
        return Verdict("deviation", observed["no_answer"])
    if "session_refused" in observed:
        return Verdict("deviation", f"the session this check needs was refused: {observed['session_refused']}")
    return CHECKS[check_id].judge(observed, context or {})


# --- helpers ----------------------------------------------------------------------------------


def _status(observed: dict) -> str:
    """The answer as one status: the service result when Bad, else the operations'."""
    if observed.get("service") != "Good" or "statuses" not in observed:
        return f"service {observed.get('service')}"
    return ", ".join(observed["statuses"]) or "service Good, no results"


def _service(*expected: str) -> Callable[[dict, dict], Verdict]:
    def judge_service(observed: dict, _: dict) -> Verdict:
        ok = observed.get("service") in expected
        return Verdict("pass" if ok else "deviation", _status(observed))

    return judge_service


def _operation(*expected: str) -> Callable[[dict, dict], Verdict]:
    def judge_operation(observed: dict, _: dict) -> Verdict:
        statuses = observed.get("statuses") or []
        ok = observed.get("service") == "Good" and len(statuses) == 1 and statuses[0] in expected
        return Verdict("pass" if ok else "deviation", _status(observed))

    return judge_operation


def _verdict(problems: list[str], fine: str) -> Verdict:
    return Verdict("deviation", "; ".join(problems)) if problems else Verdict("pass", fine)


# --- Attribute Read, Address Space Base --------------------------------------------------------


def _index_range(observed: dict, _: dict) -> Verdict:
    value = observed.get("value") or {}
    expected = PAGE[2:6]
    if observed.get("statuses") != ["Good"] or observed.get("service") != "Good":
        return Verdict("deviation", _status(observed))
    if value.get("type") != "Int16" or value.get("value") != expected:
        got = value.get("value")
        shown = (
            f"[{len(got)} elements: {', '.join(map(str, got[:4]))}, …]"
            if isinstance(got, list) and len(got) > 4
            else got
        )
        return Verdict("deviation", f"{value.get('type')} {shown}, not Int16 {expected}")
    return Verdict("pass", f"Int16 {expected}")


def _variable_attributes(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good":
        return Verdict("deviation", f"service {observed.get('service')}")
    problems = []
    for name, (datatype, value_type, array, writable) in VARIABLES.items():
        found = observed.get("variables", {}).get(name, {})
        problems += [f"{name}: {p}" for p in _attributes_problems(found, datatype, value_type, array, writable)]
    return _verdict(problems, f"{len(VARIABLES)} variables consistent")


def _attributes_problems(found: dict, datatype: str, value_type: str, array: bool, writable: bool) -> list[str]:
    problems = []
    for attribute in ("DataType", "ValueRank", "AccessLevel", "Value"):
        if found.get(attribute, {}).get("status") != "Good":
            problems.append(f"{attribute} {found.get(attribute, {}).get('status', 'missing')}")
    if problems:
        return problems
    if found["DataType"]["value"] != datatype:
        problems.append(f"DataType {found['DataType']['value']}, expected {datatype}")
    rank = found["ValueRank"]["value"]
    if rank != (1 if array else -1):
        problems.append(f"ValueRank {rank}, expected {1 if array else -1}")
    value = found["Value"]
    if value["type"] != value_type or value["array"] != array:
        problems.append(f"Value is {value['type']}{'[]' if value['array'] else ''}, the attributes say {value_type}")
    dimensions = found.get("ArrayDimensions", {})
    if dimensions.get("status") == "Good" and dimensions.get("value"):
        # Part 3 §5.6.2: one entry per dimension; 0 or the length for a rank-1 array
        if not array or len(dimensions["value"]) != 1 or dimensions["value"][0] not in (0, value.get("length")):
            problems.append(f"ArrayDimensions {dimensions['value']} for a {'array' if array else 'scalar'}")
    access = found["AccessLevel"]["value"]
    if not isinstance(access, int) or not access & CURRENT_READ:
        problems.append(f"AccessLevel {access} without CurrentRead")
    elif bool(access & CURRENT_WRITE) != writable:
        problems.append(
            f"AccessLevel {access}: CurrentWrite {'missing' if writable else 'set on a read-only variable'}"
        )
    return problems


# --- Attribute Write Values --------------------------------------------------------------------


def _type_mismatch(observed: dict, _: dict) -> Verdict:
    after = observed.get("after") or {}
    got = _status(observed) + (f"; Write_2 is now {after.get('type')}" if after.get("type") != "Double" else "")
    ok = observed.get("service") == "Good" and observed.get("statuses") == ["BadTypeMismatch"]
    return Verdict("pass" if ok and after.get("type") == "Double" else "deviation", got)


def _read_back(observed: dict, _: dict) -> Verdict:
    after = observed.get("after") or {}
    if observed.get("service") != "Good" or observed.get("statuses") != ["Good"]:
        return Verdict("deviation", _status(observed))
    if after != {"type": "Double", "value": observed.get("written")}:
        return Verdict("deviation", f"wrote Double {observed.get('written')}, read back {after}")
    return Verdict("pass", f"Double {observed.get('written')} read back")


# --- View --------------------------------------------------------------------------------------


def _browse_object(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good" or observed.get("status") != "Good":
        return Verdict("deviation", f"service {observed.get('service')}, result {observed.get('status')}")
    names, expected = observed.get("names", []), observed.get("expected", [])
    missing = [n for n in expected if n not in names]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if missing and observed.get("continuation"):  # the server may page even when not asked to
        return Verdict("inconclusive", f"{len(names)} references and a continuation point without a limit asked")
    problems = [f"missing {', '.join(missing[:5])}"] if missing else []
    problems += [f"repeated {', '.join(repeated[:5])}"] if repeated else []
    return _verdict(problems, f"all {len(expected)} variables")


def _browse_next(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good":
        return Verdict("deviation", f"Browse: service {observed.get('service')}")
    pages, limit, expected = observed.get("pages", []), observed.get("limit", 0), observed.get("expected", [])
    names = [n for page in pages for n in page]
    problems = []
    over = [len(p) for p in pages if len(p) > limit]
    if over:
        problems.append(f"{max(over)} references in one result, {limit} asked for at most")
    if len(pages) < 2:
        problems.append("no continuation point")
    if "next_service" in observed:
        problems.append(f"BrowseNext: service {observed['next_service']}")
    bad = [s for s in observed.get("statuses", []) if s != "Good"]
    if bad:
        problems.append(f"result {bad[0]}")
    missing = [n for n in expected if n not in names]
    if missing:
        problems.append(f"missing after BrowseNext: {', '.join(missing[:5])}")
    if len(set(names)) != len(names):
        problems.append("a reference returned twice")
    return _verdict(problems, f"{len(names)} references in {len(pages)} results of at most {limit}")


def _translate(observed: dict, _: dict) -> Verdict:
    got = f"{observed.get('status')} {observed.get('targets')}"
    ok = (
        observed.get("service") == "Good" and observed.get("status") == "Good" and observed.get("targets") == ["s=Tick"]
    )
    return Verdict("pass" if ok else "deviation", got if observed.get("service") == "Good" else _status(observed))


def _no_match(observed: dict, _: dict) -> Verdict:
    ok = observed.get("service") == "Good" and observed.get("status") == "BadNoMatch"
    return Verdict("pass" if ok else "deviation", f"{observed.get('status')} {observed.get('targets') or ''}".strip())


# --- Subscription Basic, Monitor Basic ---------------------------------------------------------


def _revised(observed: dict, what: str) -> list[str]:
    """A subscription's revised parameters: an interval, and a lifetime of at least three
    keep-alives."""
    problems = []
    if not observed.get("interval_ms", 0) > 0:
        problems.append(f"{what}: revised publishing interval {observed.get('interval_ms')}")
    keep_alive, lifetime = observed.get("keep_alive", 0), observed.get("lifetime", 0)
    if not keep_alive >= 1:
        problems.append(f"{what}: revised MaxKeepAliveCount {keep_alive}")
    elif lifetime < LIFETIME_PER_KEEP_ALIVE * keep_alive:
        problems.append(f"{what}: revised lifetime {lifetime} below 3 × keep-alive {keep_alive}")
    return problems


def _subscription_revised(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good":
        return Verdict("deviation", f"CreateSubscription: service {observed.get('service')}")
    problems = _revised(observed, "CreateSubscription")
    items = observed.get("items") or {}
    if items.get("service") != "Good" or any(s != "Good" for s in items.get("statuses", [])):
        problems.append(f"CreateMonitoredItems: {_status(items)}")
    else:
        if any(not (s >= 0) for s in items.get("sampling_ms", [])):
            problems.append(f"revised sampling intervals {items['sampling_ms']}")
        if any(q < 1 for q in items.get("queue_sizes", [])):
            problems.append(f"revised queue sizes {items['queue_sizes']}")
    fine = (
        f"interval {observed.get('interval_ms')} ms, lifetime {observed.get('lifetime')}, keep-alive "
        f"{observed.get('keep_alive')}; sampling {items.get('sampling_ms')} ms, queue {items.get('queue_sizes')}"
    )
    return _verdict(problems, fine)


def _keep_alive(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good":
        return Verdict("deviation", f"CreateSubscription: service {observed.get('service')}")
    kinds, gaps = observed.get("kinds", []), observed.get("gaps_ms", [])
    period = observed.get("keep_alive", 0) * observed.get("interval_ms", 0)
    bound = period * KEEP_ALIVE_SLACK + KEEP_ALIVE_SLACK_MS
    if any(k != "keep-alive" for k in kinds):
        return Verdict("deviation", f"answers to Publish with nothing to report: {kinds}")
    if len(gaps) < 2:
        return Verdict("deviation", f"{len(kinds)} keep-alives within {4 * period / 1000 + 5:g} s, expected 4")
    late = max(gaps)
    revised = f"{observed['keep_alive']} × {observed['interval_ms']:g} ms"
    got = f"keep-alives {min(gaps):.0f}–{late:.0f} ms apart, revised {revised}"
    return Verdict("pass" if late <= bound else "deviation", got)


def _set_publishing_mode(observed: dict, _: dict) -> Verdict:
    ok = observed.get("service") == "Good" and observed.get("statuses") == ["Good", "BadSubscriptionIdInvalid"]
    return Verdict("pass" if ok else "deviation", f"known, unknown id: {_status(observed)}")


def _modify_subscription(observed: dict, _: dict) -> Verdict:
    known, unknown = observed.get("known", {}), observed.get("unknown", {})
    problems = [] if known.get("service") == "Good" else [f"known id: service {known.get('service')}"]
    problems += _revised(known, "ModifySubscription") if not problems else []
    if unknown.get("service") != "BadSubscriptionIdInvalid":
        problems.append(f"unknown id: service {unknown.get('service')}")
    return _verdict(problems, f"revised to {known.get('interval_ms')} ms; unknown id BadSubscriptionIdInvalid")


def _delete_subscriptions(observed: dict, _: dict) -> Verdict:
    first, again = observed.get("first", {}), observed.get("again", {})
    problems = [] if _status(first) == "Good" else [f"delete: {_status(first)}"]
    if _status(again) != "BadSubscriptionIdInvalid":
        problems.append(f"delete again: {_status(again)}")
    return _verdict(problems, "Good, then BadSubscriptionIdInvalid")


# --- Session Base, SecureChannel, Discovery ----------------------------------------------------


def _session_timeout(observed: dict, _: dict) -> Verdict:
    revised = observed.get("revised_ms", 0) / 1000
    if "service" not in observed:
        return Verdict(
            "inconclusive",
            f"revised timeout {revised:g} s: waiting past it exceeds the probe's {observed.get('bound_s')} s",
        )
    got = f"after {observed.get('waited_s', 0):g} s idle (revised timeout {revised:g} s): {_status(observed)}"
    return Verdict("pass" if observed["service"] in SESSION_GONE else "deviation", got)


# Part 4 §5.7.2.2 and §5.7.3.2: each serverNonce "shall have a minimum length of 32 bytes"
# (whatever the SecurityPolicy: a client signs it and encrypts user tokens with it).
MIN_NONCE_BYTES = 32


def _session_nonces(observed: dict, _: dict) -> Verdict:
    answers = {"CreateSession": observed.get("create"), "ActivateSession": observed.get("activate")}
    got = ", ".join(f"{service} {'null' if size is None else f'{size} bytes'}" for service, size in answers.items())
    short = [service for service, size in answers.items() if size is None or size < MIN_NONCE_BYTES]
    return Verdict("deviation" if short else "pass", f"serverNonce: {got}")


def _closed_session(observed: dict, _: dict) -> Verdict:
    if observed.get("close") != "Good":
        return Verdict("deviation", f"CloseSession: {observed.get('close')}")
    return Verdict("pass" if observed.get("service") in SESSION_GONE else "deviation", _status(observed))


def _channel_renewal(observed: dict, _: dict) -> Verdict:
    lifetime = observed.get("revised_ms", 0) / 1000
    if observed.get("renew") != "Good":
        return Verdict("deviation", f"renew refused: {observed.get('renew')}")
    problems = []
    if observed.get("renewed_token") == observed.get("token"):
        problems.append(f"the renewed token has the old id {observed.get('token')}")
    after = observed.get("read_after_renewal") or {}
    if _status(after) != "Good":
        problems.append(f"read after renewal: {_status(after)}")
    expired = observed.get("read_after_expiry")
    if expired is not None and _status(expired) != "Good":
        problems.append(f"read after the first token's lifetime: {_status(expired)}")
    if problems:
        return Verdict("deviation", "; ".join(problems))
    if expired is None:
        return Verdict("inconclusive", f"renewed, but the revised lifetime {lifetime:g} s is past the probe's bound")
    return Verdict("pass", f"token {observed['token']} → {observed['renewed_token']} (revised lifetime {lifetime:g} s)")


def _get_endpoints(observed: dict, _: dict) -> Verdict:
    if observed.get("service") != "Good":
        return Verdict("deviation", f"service {observed.get('service')}")
    offered = sorted({(e["policy"], e["mode"]) for e in observed.get("endpoints", [])})
    configured = sorted({(e["policy"], e["mode"]) for e in observed.get("configured", [])})
    problems = []
    if offered != configured:
        extra = [f"{p}/{m}" for p, m in offered if (p, m) not in configured]
        missing = [f"{p}/{m}" for p, m in configured if (p, m) not in offered]
        problems.append(f"extra {extra}, missing {missing}".replace("extra [], ", "").replace(", missing []", ""))
    port = observed.get("url", "").rsplit(":", 1)[-1].split("/")[0]
    elsewhere = [e["url"] for e in observed.get("endpoints", []) if e["url"].rsplit(":", 1)[-1].split("/")[0] != port]
    if elsewhere:
        problems.append(f"endpoint URLs on another port: {elsewhere[:2]}")
    return _verdict(problems, f"{len(offered)} endpoints, as configured")


# --- Base Info Server Capabilities -------------------------------------------------------------


def _limit(name: str) -> Callable[[dict, dict], Verdict]:
    def judge_limit(observed: dict, _: dict) -> Verdict:
        declared = observed.get("declared")
        if not declared:
            return Verdict("not_supported", f"declares no {name} ({declared!r}: no limit)")
        if "above_limit" not in observed:
            return Verdict(
                "inconclusive", f"declares {name} {declared}, above the {observed.get('probed_up_to')} probed"
            )
        at, above = observed["at_limit"], observed["above_limit"]
        problems = []
        if at["service"] != "Good" or at["bad"]:
            problems.append(f"{declared} operations (the limit): {at['service']} {at['bad']}".rstrip(" []"))
        if above["service"] != "BadTooManyOperations":
            problems.append(f"{declared + 1} operations: {above['service']} with {above['count']} results")
        if problems:
            return Verdict("deviation", f"declares {name} {declared}; " + "; ".join(problems))
        return Verdict("pass", f"{name} {declared}: at it Good, above it BadTooManyOperations")

    return judge_limit


# --- Profile capacity gates (Part 7) -----------------------------------------------------------


def _gate(what: str, minimum: int) -> Callable[[dict, dict], Verdict]:
    def judge_gate(observed: dict, _: dict) -> Verdict:
        reached, cap, refused = observed.get("reached", 0), observed.get("cap", 0), observed.get("refused")
        end = f"refused at {reached + 1} with {refused}" if refused else f"the probe stopped at its cap {cap}"
        headroom = reached / minimum if minimum else None
        got = f"{reached} {what} ({end})"
        if observed.get("last_read") and _status(observed["last_read"]) != "Good":
            return Verdict(
                "deviation", f"{got}, but the last session's read: {_status(observed['last_read'])}", headroom
            )
        if cap < minimum:
            return Verdict("inconclusive", f"{got}: the cap is below the minimum {minimum}", headroom)
        return Verdict("pass" if reached >= minimum else "deviation", got, headroom)

    return judge_gate


P4 = "OPC 10000-4 v1.05"
_ALL = [
    Check("read_unknown_node", "Attribute Read", "Read of an unknown NodeId", f"{P4} §5.11.2.4",
          "BadNodeIdUnknown for the operation", _operation("BadNodeIdUnknown")),
    Check("read_invalid_attribute", "Attribute Read", "Read of AttributeId 999", f"{P4} §5.11.2.4",
          "BadAttributeIdInvalid for the operation", _operation("BadAttributeIdInvalid")),
    Check("read_nothing_to_do", "Attribute Read", "Read with no NodesToRead", f"{P4} §5.11.2.3",
          "service result BadNothingToDo", _service("BadNothingToDo")),
    Check("read_negative_max_age", "Attribute Read", "Read with maxAge −1", f"{P4} §5.11.2.3",
          "service result BadMaxAgeInvalid", _service("BadMaxAgeInvalid")),
    Check("read_invalid_timestamps", "Attribute Read", "Read with TimestampsToReturn 7", f"{P4} §5.11.2.3",
          "service result BadTimestampsToReturnInvalid", _service("BadTimestampsToReturnInvalid")),
    Check("read_index_range", "Attribute Read", "IndexRange 2:5 of Page", f"{P4} §7.27",
          "the four elements 2…5 of Page, Int16", _index_range),
    Check("read_index_range_invalid", "Attribute Read", "IndexRange 5:2 (bounds reversed)", f"{P4} §7.27",
          "BadIndexRangeInvalid for the operation", _operation("BadIndexRangeInvalid")),
    Check("read_index_range_no_data", "Attribute Read", "IndexRange 600:610 of a 512-element array",
          f"{P4} §7.27", "BadIndexRangeNoData for the operation", _operation("BadIndexRangeNoData")),
    Check("read_variable_attributes", "Address Space Base", "DataType, ValueRank, ArrayDimensions and "
          "AccessLevel consistent with each variable's value", "OPC 10000-3 v1.05 §5.6.2, §8.57",
          "the types of SPEC.md §4; CurrentWrite only on Write_j", _variable_attributes),
    Check("write_type_mismatch", "Attribute Write Values", "Write of an Int32 into a Double variable",
          f"{P4} §5.11.4.4, §7.38", "BadTypeMismatch; the variable stays Double", _type_mismatch),
    Check("write_read_only", "Attribute Write Values", "Write to a read-only variable", f"{P4} §5.11.4.4",
          "BadNotWritable or BadUserAccessDenied", _operation("BadNotWritable", "BadUserAccessDenied")),
    Check("write_unknown_node", "Attribute Write Values", "Write to an unknown NodeId", f"{P4} §5.11.4.4",
          "BadNodeIdUnknown for the operation", _operation("BadNodeIdUnknown")),
    Check("write_read_back", "Attribute Write Values", "A written Double reads back exactly", f"{P4} §5.11.4",
          "Good, then the same Double", _read_back),
    Check("browse_object", "View Basic", "Browse of the uabench object", f"{P4} §5.9.2",
          "every variable of SPEC.md §4, once", _browse_object),
    Check("browse_next", "View Minimum Continuation Point 01", "Browse with RequestedMaxReferencesPerNode 5, "
          "then BrowseNext", f"{P4} §5.9.2, §5.9.3, §7.9", "at most 5 per result, continuation points, every "
          "variable once", _browse_next),
    Check("translate_path", "View TranslateBrowsePath", "TranslateBrowsePathsToNodeIds Objects/uabench/Tick",
          f"{P4} §5.9.4", "the NodeId s=Tick", _translate),
    Check("translate_no_match", "View TranslateBrowsePath", "TranslateBrowsePathsToNodeIds of an unknown name",
          f"{P4} §5.9.4", "BadNoMatch", _no_match),
    Check("subscription_revised", "Subscription Basic", "Revised publishing interval, counts, sampling "
          "interval and queue size", f"{P4} §5.14.2.2, §5.13.2.2", "all reported; lifetime ≥ 3 × keep-alive",
          _subscription_revised),
    Check("monitored_item_unknown_node", "Monitor Basic", "Monitored item on an unknown NodeId",
          f"{P4} §5.13.2.4", "BadNodeIdUnknown for the item", _operation("BadNodeIdUnknown")),
    Check("keep_alive", "Subscription Basic", "Keep-alive when nothing changes", f"{P4} §5.14.1.1, §5.14.2.2",
          "a keep-alive every MaxKeepAliveCount × interval (× 1.5 + 250 ms slack)", _keep_alive),
    Check("republish_unknown", "Subscription Basic", "Republish of a sequence number never sent",
          f"{P4} §5.14.6.3", "service result BadMessageNotAvailable", _service("BadMessageNotAvailable")),
    Check("set_publishing_mode", "Subscription Basic", "SetPublishingMode on a known and an unknown id",
          f"{P4} §5.14.4", "Good, BadSubscriptionIdInvalid", _set_publishing_mode),
    Check("modify_subscription", "Subscription Basic", "ModifySubscription on a known and an unknown id",
          f"{P4} §5.14.3", "revised values; BadSubscriptionIdInvalid", _modify_subscription),
    Check("delete_subscriptions", "Subscription Basic", "DeleteSubscriptions, then the same id again",
          f"{P4} §5.14.8", "Good, then BadSubscriptionIdInvalid", _delete_subscriptions),
    Check("session_timeout", "Session Base", "A session idle past its revised timeout is closed",
          f"{P4} §5.7.2", "the next request gets BadSessionIdInvalid (or BadSessionClosed)", _session_timeout),
    Check("session_nonces", "Session Base", "The server nonces of CreateSession and ActivateSession",
          f"{P4} §5.7.2.2, §5.7.3.2", f"each at least {MIN_NONCE_BYTES} random bytes", _session_nonces),
    Check("closed_session", "Session Base", "A request on a closed session", f"{P4} §5.7.4",
          "BadSessionIdInvalid or BadSessionClosed", _closed_session),
    Check("channel_renewal", "Security Policy None (SecureChannel)", "A short-lived token renewed",
          f"{P4} §5.6.2; OPC 10000-6 v1.05 §6.7.4", "a new token id; requests work past the first token's "
          "lifetime", _channel_renewal),
    Check("get_endpoints", "Discovery Get Endpoints", "GetEndpoints against the configured endpoints",
          f"{P4} §5.5.4", "exactly the configured policies and modes, on the server's port", _get_endpoints),
    Check("max_nodes_per_read", "Base Info Server Capabilities", "MaxNodesPerRead enforced",
          "OPC 10000-5 v1.05 §6.3.11; " + f"{P4} §5.11.2.3", "the limit works, one more gets "
          "BadTooManyOperations", _limit("MaxNodesPerRead")),
    Check("max_nodes_per_write", "Base Info Server Capabilities", "MaxNodesPerWrite enforced",
          "OPC 10000-5 v1.05 §6.3.11; " + f"{P4} §5.11.4.3", "the limit works, one more gets "
          "BadTooManyOperations", _limit("MaxNodesPerWrite")),
    Check("max_nodes_per_browse", "Base Info Server Capabilities", "MaxNodesPerBrowse enforced",
          "OPC 10000-5 v1.05 §6.3.11; " + f"{P4} §5.9.2.3", "the limit works, one more gets "
          "BadTooManyOperations", _limit("MaxNodesPerBrowse")),
    Check("gate_sessions", "Session Minimum 50 Parallel", "Parallel sessions", "OPC 10000-7 v1.04 Table 93 "
          "(Standard 2017 UA Server Profile)", "at least 50 sessions, each on its own channel", _gate("sessions", 50)),
    Check("gate_subscriptions", "Subscription Minimum 05", "Subscriptions in one session", "OPC 10000-7 v1.04 "
          "Table 93 (Enhanced DataChange Subscription 2017 Server Facet)", "at least 5", _gate("subscriptions", 5)),
    Check("gate_monitored_items", "Monitor Items 500", "Monitored items in one subscription", "OPC 10000-7 v1.04 "
          "Table 93 (Enhanced DataChange Subscription 2017 Server Facet)", "at least 500",
          _gate("monitored items", 500)),
]  # fmt: skip
CHECKS = {check.id: check for check in _ALL}

# The Robot suite's tests: one per group of units and server (one probe process each).
GROUP_OF_UNIT = {
    "Attribute Read": "Attribute services",
    "Address Space Base": "Attribute services",
    "Attribute Write Values": "Attribute services",
    "View Basic": "View services",
    "View Minimum Continuation Point 01": "View services",
    "View TranslateBrowsePath": "View services",
    "Subscription Basic": "Subscription services",
    "Monitor Basic": "Subscription services",
    "Session Base": "Session and SecureChannel",
    "Security Policy None (SecureChannel)": "Session and SecureChannel",
    "Discovery Get Endpoints": "Session and SecureChannel",
    "Base Info Server Capabilities": "Operation limits",
    "Session Minimum 50 Parallel": "Profile capacity gates",
    "Subscription Minimum 05": "Profile capacity gates",
    "Monitor Items 500": "Profile capacity gates",
}
GROUPS = tuple(dict.fromkeys(GROUP_OF_UNIT.values()))


def of_group(group: str) -> list[Check]:
    if group not in GROUPS:
        raise ValueError(f"unknown conformance group {group!r} (known: {', '.join(GROUPS)})")
    return [check for check in _ALL if GROUP_OF_UNIT[check.unit] == group]
