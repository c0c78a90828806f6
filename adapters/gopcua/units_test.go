// The rules of tick_check.go, read_back.go, connection.go and model.go's tick step on hand-made
// values.
package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gopcua/opcua/ua"
)

func TestTickStep(t *testing.T) {
	cases := []struct{ last, next, gaps, dups int }{
		{5, 6, 0, 0}, {5, 9, 3, 0}, {5, 5, 0, 1}, {16383, 0, 0, 0}, {16383, 2, 2, 0}, {9000, 10, 7393, 0}, {10, 9000, 0, 0},
	}
	for _, c := range cases {
		if g, d := tickStep(c.last, c.next); g != c.gaps || d != c.dups {
			t.Errorf("tickStep(%d, %d) = %d, %d", c.last, c.next, g, d)
		}
	}
}

func sample(v any, at time.Time) *ua.DataValue {
	return &ua.DataValue{EncodingMask: ua.DataValueValue | ua.DataValueSourceTimestamp, Value: ua.MustVariant(v), SourceTimestamp: at}
}

func TestTickRules(t *testing.T) {
	nodes := []string{"Tick", "Signal_3"}
	now := time.Now()
	c := newTickCheck(nodes)
	// R1: a Signal 2 ticks behind the Tick of its response.
	values := []*ua.DataValue{sample(uint32(25), now), sample(signal(3, 23), now)}
	tick := c.responseTick(0, values)
	if got := c.judge(0, values[0], tick, noTick, now, true); got != "" {
		t.Errorf("Tick: %q", got)
	}
	if got := c.judge(1, values[1], tick, noTick, now, true); !strings.Contains(got, "in the same response") {
		t.Errorf("R1: %q", got)
	}
	// R2: older than what arrived before the send (high water 25 now).
	sent := c.sentAfter()
	if got := c.judge(1, sample(signal(3, 22), now), noTick, sent, now, true); !strings.Contains(got, "had arrived before") {
		t.Errorf("R2: %q", got)
	}
	if got := c.judge(1, sample(signal(3, 24), now), noTick, sent, now, true); got != "" {
		t.Errorf("R2 one behind: %q", got)
	}
	// R4: no SourceTimestamp; an earlier one for a later tick; one far in the future.
	if got := c.judge(0, &ua.DataValue{EncodingMask: ua.DataValueValue, Value: ua.MustVariant(uint32(26))}, noTick, noTick, now, true); !strings.Contains(got, "no SourceTimestamp") {
		t.Errorf("R4 none: %q", got)
	}
	c.judge(0, sample(uint32(30), now), noTick, noTick, now, true)
	if got := c.judge(0, sample(uint32(31), now.Add(-time.Second)), noTick, noTick, now, true); !strings.Contains(got, "earlier SourceTimestamp") {
		t.Errorf("R4 order: %q", got)
	}
	if got := c.judge(0, sample(uint32(40), now.Add(3*time.Second)), noTick, noTick, now, true); !strings.Contains(got, "in the future") {
		t.Errorf("R4 future: %q", got)
	}
	// R3: Tick went 25 -> 30 -> 31 -> 40 (26 had no timestamp).
	if got := ticksAdvanced([]*tickCheck{c}); got != 15 {
		t.Errorf("ticks advanced %d", got)
	}
}

func TestReadBackJudgement(t *testing.T) {
	nodes := []string{"Write_0", "Write_1"}
	good := sample(writeValue(0, 10, 1, 0), time.Time{})
	if got := judgeReadBack("Write_0", good, nodes, 1, 1, 12, 9); got != "" {
		t.Errorf("good: %q", got)
	}
	if got := judgeReadBack("Write_0", good, nodes, 1, 1, 12, 11); !strings.Contains(got, "had completed") {
		t.Errorf("stale: %q", got)
	}
	if got := judgeReadBack("Write_1", good, nodes, 1, 1, 12, 9); !strings.Contains(got, "which no write") {
		t.Errorf("foreign: %q", got)
	}
	if got := judgeReadBack("Write_0", &ua.DataValue{Status: ua.StatusBadNodeIDUnknown}, nodes, 1, 1, 12, 9); !strings.HasPrefix(got, "read-back of Write_0: ") {
		t.Errorf("bad status: %q", got)
	}
	if !readBackSampled(63, true) || readBackSampled(63, false) || readBackSampled(64, true) {
		t.Error("sampling")
	}
}

func TestConnectionLog(t *testing.T) {
	c := newConnectionLog(2)
	if !c.markLost(1) || c.markLost(1) || c.markRestored(0, nil) {
		t.Error("a session is lost once and restored only when lost")
	}
	fate := "recreated"
	c.markRestored(1, &fate)
	r := c.record()
	if r["lost"] != 1 || r["restored"] != 1 || len(r["events"].([]connectionEvent)) != 2 {
		t.Errorf("%v", r)
	}
	for i := 0; i < 120; i++ {
		c.markLost(0)
		c.markRestored(0, nil)
	}
	if r := c.record(); len(r["events"].([]connectionEvent)) != connectionEvents || r["truncated"] != 142 {
		t.Errorf("truncated %v", r["truncated"])
	}
	if !isConnectionError(io.EOF) || !isConnectionError(ua.StatusBadServerNotConnected) || isConnectionError(ua.StatusBadNodeIDUnknown) || isConnectionError(errors.New("x")) {
		t.Error("connection errors")
	}
}

func TestLifetimeCount(t *testing.T) {
	// uabench_contract.lifetime_count: 600 s cap, three keep-alives.
	if got := lifetimeCount(sessionTimeoutMs, 100, 100); got != 6000 {
		t.Errorf("100 ms: %d", got)
	}
	if got := lifetimeCount(sessionTimeoutMs, 1, 10000); got != 600000 {
		t.Errorf("1 ms: %d", got)
	}
	if got := lifetimeCount(60000, 100, 3000); got != 9000 {
		t.Errorf("keep-alives: %d", got)
	}
}
