// contract/vectors/verification.json replayed through this adapter's own verifiers with gopcua's
// types (ua.DataValue, ua.Variant, ua.StatusCode, time.Time): read verification R1–R4
// (tick_check.go), W1's judgement of a value read back (read_back.go) and its C
// (request_workload.go), the subscription's lifetime count (subscribe.go) and the timeline
// (recorder.go). The format is the file's "description" and contract/README.md.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopcua/opcua/ua"
)

// vectorValue is one value a client reads: its node, built-in type, number (null: none) and
// SourceTimestamp in µs since 1970 (null: none).
type vectorValue struct {
	Node     string   `json:"node"`
	Type     string   `json:"type"`
	Value    *float64 `json:"value"`
	SourceUs *int64   `json:"source_us"`
}

type readVector struct {
	Name     string   `json:"name"`
	Nodes    []string `json:"nodes"`
	Sessions int      `json:"sessions"`
	Steps    []struct {
		Send *struct {
			Session int    `json:"session"`
			Request string `json:"request"`
		} `json:"send"`
		Response *struct {
			Session    int           `json:"session"`
			Request    *string       `json:"request"` // null: sent before any tick arrived
			First      int           `json:"first"`
			ReceivedUs int64         `json:"received_us"`
			Measured   bool          `json:"measured"`
			Values     []vectorValue `json:"values"`
			Fails      [][]string    `json:"fails"`
		} `json:"response"`
	} `json:"steps"`
	TicksAdvanced int64 `json:"ticks_advanced"`
}

type readBackVector struct {
	Name            string   `json:"name"`
	Nodes           []string `json:"nodes"`
	Sessions        int      `json:"sessions"`
	NodesPerRequest int      `json:"nodes_per_request"`
	Request         int      `json:"request"`
	Lowest          int      `json:"lowest"`
	Status          string   `json:"status"` // status_code's name, for a reader of the file
	StatusCode      uint32   `json:"status_code"`
	vectorValue
	Fails []string `json:"fails"`
}

type lowestVector struct {
	Name  string `json:"name"`
	Steps []struct {
		Sent     *int `json:"sent"`
		Finished *int `json:"finished"`
		Lowest   *int `json:"lowest"`
	} `json:"steps"`
}

type lifetimeVector struct {
	SessionTimeoutMs     float64 `json:"session_timeout_ms"`
	PublishingIntervalMs float64 `json:"publishing_interval_ms"`
	KeepAliveCount       uint32  `json:"keep_alive_count"`
	LifetimeCount        uint32  `json:"lifetime_count"`
}

type timelineVector struct {
	Name     string `json:"name"`
	WindowMs int    `json:"window_ms"`
	Begin    *struct {
		StartNs  int64 `json:"start_ns"`
		SpanNs   int64 `json:"span_ns"`
		OffsetNs int64 `json:"offset_ns"`
	} `json:"begin"`
	Completions [][2]int64     `json:"completions"`
	EndNs       int64          `json:"end_ns"`
	Record      timelineRecord `json:"record"`
}

type verificationVectors struct {
	Description    string           `json:"description"`
	Read           []readVector     `json:"read"`
	ReadBack       []readBackVector `json:"read_back"`
	LowestInFlight []lowestVector   `json:"lowest_in_flight"`
	Lifetime       []lifetimeVector `json:"lifetime"`
	Timeline       []timelineVector `json:"timeline"`
}

// dataValue is a vector value as a Read response delivers it: built with gopcua's types, then
// encoded and decoded by gopcua's own binary codec, so the verifier sees what it sees on the
// wire (e.g. an empty Variant, not nil, when the value is absent).
func dataValue(t *testing.T, v vectorValue, status uint32) *ua.DataValue {
	t.Helper()
	dv := &ua.DataValue{Status: ua.StatusCode(status)}
	if v.Value != nil {
		switch v.Type {
		case "UInt32":
			dv.Value = ua.MustVariant(uint32(*v.Value))
		case "Float":
			dv.Value = ua.MustVariant(float32(*v.Value))
		case "Double":
			dv.Value = ua.MustVariant(*v.Value)
		default:
			t.Fatalf("a vector type this runner does not know: %s", v.Type)
		}
	}
	if v.SourceUs != nil {
		dv.SourceTimestamp = time.UnixMicro(*v.SourceUs).UTC()
	}
	dv.UpdateMask()
	wire, err := dv.Encode()
	if err != nil {
		t.Fatal(err)
	}
	decoded := &ua.DataValue{}
	if _, err := decoded.Decode(wire); err != nil {
		t.Fatal(err)
	}
	return decoded
}

// expectFailure: fragments nil means the value passes (""); otherwise the failure contains
// every fragment (a Double's rendering between them may differ by language).
func expectFailure(t *testing.T, where, failure string, fragments []string) {
	t.Helper()
	ok := failure == ""
	if fragments != nil {
		ok = !ok
		for _, f := range fragments {
			ok = ok && strings.Contains(failure, f)
		}
	}
	switch {
	case ok:
	case fragments == nil:
		t.Errorf("%s: got %q, want no failure", where, failure)
	default:
		t.Errorf("%s: got %q, want a failure with %q", where, failure, fragments)
	}
}

func TestVerificationVectors(t *testing.T) {
	var v verificationVectors
	decoder := json.NewDecoder(bytes.NewReader(vectorFile(t, "verification")))
	// A field this runner does not know could be a rule it does not replay: fail, not skip.
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&v); err != nil {
		t.Fatal(err)
	}
	t.Run("read", func(t *testing.T) {
		for _, c := range v.Read {
			t.Run(c.Name, func(t *testing.T) { replayRead(t, c) })
		}
	})
	t.Run("read_back", func(t *testing.T) {
		for _, c := range v.ReadBack {
			t.Run(c.Name, func(t *testing.T) {
				dv := dataValue(t, c.vectorValue, c.StatusCode)
				failure := judgeReadBack(c.Node, dv, c.Nodes, c.Sessions, c.NodesPerRequest, c.Request, c.Lowest)
				expectFailure(t, c.Node, failure, c.Fails)
			})
		}
	})
	t.Run("lowest_in_flight", func(t *testing.T) {
		for _, c := range v.LowestInFlight {
			t.Run(c.Name, func(t *testing.T) { replayLowest(t, c) })
		}
	})
	t.Run("lifetime", func(t *testing.T) {
		for _, c := range v.Lifetime {
			name := fmt.Sprintf("timeout %g ms, interval %g ms, keep-alive %d", c.SessionTimeoutMs, c.PublishingIntervalMs, c.KeepAliveCount)
			t.Run(name, func(t *testing.T) {
				if got := lifetimeCount(c.SessionTimeoutMs, c.PublishingIntervalMs, c.KeepAliveCount); got != c.LifetimeCount {
					t.Errorf("lifetime count %d, want %d", got, c.LifetimeCount)
				}
			})
		}
	})
	t.Run("timeline", func(t *testing.T) {
		for _, c := range v.Timeline {
			t.Run(c.Name, func(t *testing.T) {
				tl := timeline{windowMs: c.WindowMs}
				if b := c.Begin; b != nil {
					tl.begin(b.StartNs, b.SpanNs, b.OffsetNs)
				}
				for _, done := range c.Completions {
					tl.completed(done[0], int(done[1]))
				}
				if got := tl.record(c.EndNs); !reflect.DeepEqual(got, c.Record) {
					t.Errorf("got %+v\nwant %+v", got, c.Record)
				}
			})
		}
	})
}

// replayRead plays one script as the read workload does (readRequests): a tickCheck per
// session, sentAfter kept when a request is sent, then its response's values judged in order.
func replayRead(t *testing.T, c readVector) {
	checks := make([]*tickCheck, c.Sessions)
	for i := range checks {
		checks[i] = newTickCheck(c.Nodes)
	}
	kept := map[string]int{}
	for n, step := range c.Steps {
		if s := step.Send; s != nil {
			kept[s.Request] = checks[s.Session].sentAfter()
			continue
		}
		r := step.Response
		sentAfter := noTick
		if r.Request != nil {
			var ok bool
			if sentAfter, ok = kept[*r.Request]; !ok {
				t.Fatalf("step %d: a response to request %q, never sent", n, *r.Request)
			}
			delete(kept, *r.Request)
		}
		values := make([]*ua.DataValue, len(r.Values))
		for i, value := range r.Values {
			values[i] = dataValue(t, value, uint32(ua.StatusOK))
		}
		check, received := checks[r.Session], time.UnixMicro(r.ReceivedUs)
		tick := check.responseTick(r.First, values)
		for i, dv := range values {
			position := (r.First + i) % len(c.Nodes)
			if node := c.Nodes[position]; node != r.Values[i].Node {
				t.Fatalf("step %d value %d: position %d is %s, the vector reads %s", n, i, position, node, r.Values[i].Node)
			}
			// An unmeasured value is judged the same; the workload only does not record it.
			failure := check.judge(position, dv, tick, sentAfter, received, r.Measured)
			expectFailure(t, fmt.Sprintf("step %d value %d (%s)", n, i, r.Values[i].Node), failure, r.Fails[i])
		}
	}
	if got := ticksAdvanced(checks); got != c.TicksAdvanced {
		t.Errorf("ticks_advanced %d, want %d", got, c.TicksAdvanced)
	}
}

// replayLowest plays session 0's requests through the tracker the workload numbers them with.
func replayLowest(t *testing.T, c lowestVector) {
	var requests requestsInFlight
	entries := map[int]*pendingRequest{}
	for n, step := range c.Steps {
		switch {
		case step.Sent != nil:
			entry := requests.send(true)
			if entry.k != *step.Sent {
				t.Fatalf("step %d: the request sent is number %d, the vector's %d", n, entry.k, *step.Sent)
			}
			entries[entry.k] = entry
		case step.Finished != nil:
			requests.finish(entries[*step.Finished])
		case step.Lowest != nil:
			if got := requests.lowest(); got != *step.Lowest {
				t.Errorf("step %d: lowest in flight %d, want %d", n, got, *step.Lowest)
			}
		}
	}
}
