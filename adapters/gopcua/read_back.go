// SPEC §3 W1, writes read back under load: session 0 reads back every 64th measured write as
// soon as it succeeded, so a server that answers Good to writes it loses or applies late under
// load fails (the read-back after the phase only sees an idle server). The Read takes no
// in_flight slot and is no operation; the drain waits for it (settled). Also the write
// verification pass after the phase.
package main

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gopcua/opcua/ua"
)

const readBackPeriod = 64

// readBackSampled: session 0's request k is read back: k mod 64 = 63, sent (scheduled) in the
// measured phase.
func readBackSampled(k int, measured bool) bool {
	return measured && k%readBackPeriod == readBackPeriod-1
}

// judgeReadBack judges one value read back after session 0's write k, sent while lowest was the
// lowest request index of session 0 in flight: "" or the failure.
func judgeReadBack(node string, dv *ua.DataValue, nodes []string, sessions, perRequest, k, lowest int) string {
	if !isGood(dv.Status) {
		return fmt.Sprintf("read-back of %s: %s", node, statusName(dv.Status))
	}
	v, double := 0.0, false
	if dv.Value != nil && !isArray(dv.Value) {
		v, double = dv.Value.Value().(float64)
	}
	s := math.Floor(v / sessionStride)
	m := v - s*sessionStride
	// m below the stride: a write index beyond 1e9 / nodes_per_request is out of any run's reach.
	if !double || v != math.Trunc(v) || v < 0 || s >= float64(sessions) || nodes[int(m)%len(nodes)] != node {
		text := strconv.FormatFloat(v, 'f', -1, 64)
		if !double {
			text = describeVariant(dv.Value)
		}
		return fmt.Sprintf("read-back of %s: %s, which no write of this run put there", node, text)
	}
	write := int(m) / perRequest
	if s == 0 && write < lowest {
		return fmt.Sprintf("read-back of %s: session 0's write %d, but its writes before %d had completed when write %d was sent", node, write, lowest, k)
	}
	return ""
}

type readBackRead struct {
	k, lowest int
	abandoned bool
}

// writeReadBack: session 0's read-backs of one run.
type writeReadBack struct {
	s        *uaSession
	config   *ClientConfig
	rec      *recorder
	requests *requestNodeIDs
	mu       sync.Mutex
	inFlight map[*readBackRead]struct{}
	wg       sync.WaitGroup
}

func newWriteReadBack(s *uaSession, config *ClientConfig, rec *recorder) *writeReadBack {
	return &writeReadBack{s: s, config: config, rec: rec, inFlight: map[*readBackRead]struct{}{},
		requests: newRequestNodeIDs(s, config.Nodes, config.NodesPerRequest)}
}

// start: write k succeeded; its Read goes out now (a goroutine, no in_flight slot).
func (w *writeReadBack) start(k, lowest int) {
	r := &readBackRead{k: k, lowest: lowest}
	w.mu.Lock()
	w.inFlight[r] = struct{}{}
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		positions, ids := w.requests.of(k)
		values, err := w.s.read(readValueIDs(ids))
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.inFlight, r)
		if r.abandoned {
			return
		}
		for j, p := range positions {
			name := w.config.Nodes[p]
			if err != nil {
				w.rec.readBack(fmt.Sprintf("read-back of %s: %s", name, oneLine(err)))
				continue
			}
			w.rec.readBack(judgeReadBack(name, values[j], w.config.Nodes, w.config.Sessions, w.config.NodesPerRequest, k, lowest))
		}
	}()
}

func (w *writeReadBack) settled() { w.wg.Wait() }

// abandon: at the end of the drain, each value of a Read still unanswered fails.
func (w *writeReadBack) abandon() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for r := range w.inFlight {
		r.abandoned = true
		positions, _ := w.requests.of(r.k)
		for _, p := range positions {
			w.rec.readBack(fmt.Sprintf("read-back of %s: no response within 5 s after the measured phase", w.config.Nodes[p]))
		}
	}
	w.inFlight = map[*readBackRead]struct{}{}
}

// verifyWrites: after the measured phase session 0 writes a per-run pattern to every node, reads
// it back and counts each value that differs. After one request gets no answer (gopcua's own
// request timeout) it sends nothing more: the rest fail at once.
func verifyWrites(s *uaSession, config *ClientConfig, rec *recorder) {
	pattern := int(time.Now().UnixMilli()%1000) + 1
	nodes := config.Nodes
	chunk := min(config.NodesPerRequest, 1000)
	gaveUp := ""
	for from := 0; from < len(nodes); from += chunk {
		to := min(from+chunk, len(nodes))
		ids := make([]*ua.NodeID, 0, to-from)
		values := make([]float64, 0, to-from)
		for i := from; i < to; i++ {
			ids = append(ids, s.nodeID(nodes[i]))
			values = append(values, writeVerificationValue(pattern, i))
		}
		if gaveUp != "" {
			rec.error("write verification: " + gaveUp)
			continue
		}
		if _, err := s.write(ids, values); err != nil {
			rec.error("write verification: " + oneLine(err))
			if isConnectionError(err) {
				gaveUp = oneLine(err)
			}
		}
	}
	for from := 0; from < len(nodes); from += chunk {
		to := min(from+chunk, len(nodes))
		ids := make([]*ua.NodeID, 0, to-from)
		for i := from; i < to; i++ {
			ids = append(ids, s.nodeID(nodes[i]))
		}
		var results []*ua.DataValue
		var err error
		if gaveUp == "" {
			results, err = s.read(readValueIDs(ids))
			if err != nil && isConnectionError(err) {
				gaveUp = oneLine(err)
			}
		} else {
			err = fmt.Errorf("%s", gaveUp)
		}
		for i := from; i < to; i++ {
			expected := writeVerificationValue(pattern, i)
			if err != nil {
				rec.verification(fmt.Sprintf("%s: read-back failed: %s", nodes[i], oneLine(err)))
				continue
			}
			dv := results[i-from]
			got, ok := 0.0, false
			if isGood(dv.Status) && dv.Value != nil {
				got, ok = dv.Value.Value().(float64)
			}
			switch {
			case !isGood(dv.Status):
				rec.verification(fmt.Sprintf("%s: read back %s, wrote %v", nodes[i], dv.Status.Error(), expected))
			case !ok || got != expected:
				rec.verification(fmt.Sprintf("%s: read back %s, wrote %v", nodes[i], describeVariant(dv.Value), expected))
			default:
				rec.verification("")
			}
		}
	}
}
