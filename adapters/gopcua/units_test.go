// Hand-made cases of what verification.json has no vectors for: tick_check.go's half-modulus
// edge, read_back.go's sampling, connection.go and model.go's tick step.
package main

import (
	"encoding/json"
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

// A Signal exactly half the modulus (8192) from the last tick seen is not ahead of it (SPEC §3
// R3, R4: a step forward is below 8192): no step counts and its SourceTimestamp is not compared.
// verification.json has no vector for this edge.
func TestSignalHalfStep(t *testing.T) {
	c := newTickCheck([]string{"Signal_3"})
	now := time.Now()
	judge := func(tick uint64, at time.Time) string {
		return c.judge(0, sample(signal(3, tick), at), noTick, noTick, now, true)
	}
	judge(0, now)
	if got := judge(half, now.Add(-time.Second)); got != "" {
		t.Errorf("half a modulus ahead: %q", got)
	}
	judge(half+1, now) // half + 1 ahead of 0: behind it, still no step
	if got := ticksAdvanced([]*tickCheck{c}); got != 0 {
		t.Errorf("ticks advanced %d, want 0", got)
	}
}

// W1's sample (the judgement of a value read back is verification.json's read_back).
func TestReadBackSampled(t *testing.T) {
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

// SPEC §4, Imported information models: a non-empty `nodesets` is not_supported (gopcua's
// loader maps no namespace indexes, nodesets.go) before the server is built, whatever the paths;
// an empty list starts as before.
func TestNodesetsNotSupported(t *testing.T) {
	config, err := serverConfig(map[string]any{"port": json.Number("4840"), "nodesets": []any{"/no/such/Opc.Ua.Di.NodeSet2.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	err = runServer(config)
	var ke *kindError
	if !errors.As(err, &ke) || ke.kind != kindNotSupported || !strings.Contains(err.Error(), "nodesets") {
		t.Errorf("nodesets given: %v", err)
	}
	config.Nodesets = nil
	if err := serverNodesets(config); err != nil {
		t.Errorf("no nodesets: %v", err)
	}
}
