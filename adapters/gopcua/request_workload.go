// Drives one session's requests through the phases of a run (SPEC §3): closed loop with
// `in_flight` goroutines each with one outstanding request (gopcua's Read/Write block their
// goroutine while the SecureChannel multiplexes the requests), or open loop at fixed scheduled
// times where latency runs from the scheduled time, so waiting for a free slot is part of it.
package main

import (
	"sync"
	"time"

	"github.com/gopcua/opcua/ua"
)

// outcome of one request; check (if set) verifies its values, measured or not (warm-up does the
// same work), recording only measured verifications.
type outcome struct {
	ok      bool
	values  int
	problem string
	check   func(measured bool)
}

type pendingRequest struct {
	k         int
	measured  bool
	abandoned bool
}

// requestsInFlight numbers one session's requests (k counts from its first, warm-up included)
// and holds those not yet finished. Its lowest is W1's C. Guarded by its sessionLoad's mu.
type requestsInFlight struct {
	next    int
	pending map[*pendingRequest]struct{}
}

// send numbers the next request and holds it in flight until finish.
func (r *requestsInFlight) send(measured bool) *pendingRequest {
	if r.pending == nil {
		r.pending = map[*pendingRequest]struct{}{}
	}
	entry := &pendingRequest{k: r.next, measured: measured}
	r.next++
	r.pending[entry] = struct{}{}
	return entry
}

// finish: the request's response arrived, or it failed.
func (r *requestsInFlight) finish(entry *pendingRequest) { delete(r.pending, entry) }

// lowest is W1's C for a request sent now: the lowest index in flight, or the next request's
// if none is. A scan, not a running minimum: it runs for one request in 64 (readBackSampled) and
// in_flight bounds what it scans.
func (r *requestsInFlight) lowest() int {
	lowest := r.next
	for entry := range r.pending {
		lowest = min(lowest, entry.k)
	}
	return lowest
}

type sessionLoad struct {
	send     func(k int) outcome
	rec      *recorder
	p        phase
	inFlight int
	rate     *float64
	sessions int
	index    int
	readBack *writeReadBack
	think    time.Duration
	retry    time.Duration

	mu       sync.Mutex
	requests requestsInFlight
	unsent   []time.Time // open loop: scheduled in the phase, never sent by the end of the drain
	wg       sync.WaitGroup
}

func (l *sessionLoad) dispatch(reference time.Time) bool {
	l.mu.Lock()
	entry := l.requests.send(l.p.measured(reference))
	k := entry.k
	// W1's C: the lowest request index of session 0 still in flight, k itself if none other is.
	lowest := -1
	if l.readBack != nil && readBackSampled(k, entry.measured) {
		lowest = l.requests.lowest()
	}
	l.mu.Unlock()
	// SPEC §6 send_lag_ns: the request goes to the SDK's call right below.
	if entry.measured && l.rate != nil {
		l.rec.sent(time.Since(reference))
	}
	out := l.send(k)
	done := time.Now()

	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests.finish(entry)
	if entry.abandoned {
		return out.ok
	}
	if out.ok {
		l.rec.completed(done, out.values)
		if lowest >= 0 {
			l.readBack.start(k, lowest)
		}
	}
	if entry.measured {
		l.rec.operation(done.Sub(reference), out.ok, out.values, out.problem, reference)
	}
	if out.ok && out.check != nil {
		out.check(entry.measured)
	}
	return out.ok
}

func (l *sessionLoad) closedLoop() {
	for i := 0; i < l.inFlight; i++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for t := time.Now(); t.Before(l.p.measureUntil); t = time.Now() {
				ok := l.dispatch(t)
				// A failed request's slot waits retry (a dead connection is not spun on), or think_ms.
				wait := l.think
				if !ok {
					wait = max(l.think, l.retry)
				}
				if wait > 0 {
					until := time.Now().Add(wait)
					if !until.Before(l.p.measureUntil) {
						return
					}
					time.Sleep(time.Until(until))
				}
			}
		}()
	}
}

// openLoop: this session's share of the rate on its own evenly offset schedule. A send waits
// for a free in_flight slot in schedule order; a Go timer sleeps (no busy polling) until the next
// scheduled instant.
func (l *sessionLoad) openLoop() {
	interval := time.Duration(1e9 * float64(l.sessions) / *l.rate)
	offset := time.Duration(float64(l.index) * 1e9 / *l.rate)
	slots := make(chan struct{}, l.inFlight)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		n := 0
		for at := l.p.start.Add(offset); at.Before(l.p.measureUntil); at = l.p.start.Add(offset + time.Duration(n)*interval) {
			n++
			if wait := time.Until(at); wait > 0 {
				time.Sleep(wait)
			}
			select {
			case slots <- struct{}{}:
			case <-time.After(time.Until(l.p.graceUntil)):
				// The drain ended with this and later scheduled requests never sent.
				l.mu.Lock()
				for ; at.Before(l.p.measureUntil); at = l.p.start.Add(offset + time.Duration(n)*interval) {
					n++
					l.unsent = append(l.unsent, at)
				}
				l.mu.Unlock()
				return
			}
			l.wg.Add(1)
			go func(reference time.Time) {
				defer l.wg.Done()
				l.dispatch(reference)
				<-slots
			}(at)
		}
	}()
}

// run returns when nothing measured is outstanding any more, read-backs included, or at the end
// of the drain.
func (l *sessionLoad) run() {
	if l.rate == nil {
		l.closedLoop()
	} else {
		l.openLoop()
	}
	done := make(chan struct{})
	go func() {
		l.wg.Wait()
		if l.readBack != nil {
			l.readBack.settled()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(l.p.graceUntil)):
	}
}

// abandon: after the drain, whatever measured is still outstanding or unsent has failed.
func (l *sessionLoad) abandon() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for entry := range l.requests.pending {
		entry.abandoned = true
		if entry.measured {
			l.rec.operation(0, false, 0, "no response within 5 s after the measured phase", time.Time{})
		}
	}
	for _, at := range l.unsent {
		if l.p.measured(at) {
			l.rec.operation(0, false, 0, "not sent within 5 s after the measured phase", at)
		}
	}
	l.unsent = nil
	if l.readBack != nil {
		l.readBack.abandon()
	}
}

// requestNodeIDs caches each request's nodes: requests repeat with period len(nodes)/gcd.
type requestNodeIDs struct {
	nodes      []string
	perRequest int
	ids        []*ua.NodeID
}

func newRequestNodeIDs(s *uaSession, nodes []string, perRequest int) *requestNodeIDs {
	r := &requestNodeIDs{nodes: nodes, perRequest: perRequest, ids: make([]*ua.NodeID, len(nodes))}
	for i, name := range nodes {
		r.ids[i] = s.nodeID(name)
	}
	return r
}

// of is request k's positions in the node list and their NodeIds.
func (r *requestNodeIDs) of(k int) ([]int, []*ua.NodeID) {
	positions := requestNodes(r.nodes, k, r.perRequest)
	ids := make([]*ua.NodeID, len(positions))
	for j, p := range positions {
		ids[j] = r.ids[p]
	}
	return positions, ids
}

func readValueIDs(ids []*ua.NodeID) []*ua.ReadValueID {
	out := make([]*ua.ReadValueID, len(ids))
	for j, id := range ids {
		out[j] = &ua.ReadValueID{NodeID: id, AttributeID: ua.AttributeIDValue}
	}
	return out
}

func firstBad(statuses []ua.StatusCode) error {
	for _, s := range statuses {
		if !isGood(s) {
			return s
		}
	}
	return nil
}

// readRequests: request k of the read workload, with the verification of SPEC §3 (R1–R5).
func readRequests(s *uaSession, config *ClientConfig, rec *recorder, ticks *tickCheck) func(int) outcome {
	requests := newRequestNodeIDs(s, config.Nodes, config.NodesPerRequest)
	return func(k int) outcome {
		positions, ids := requests.of(k)
		sentAfter := ticks.sentAfter() // R2: what this session had received before sending
		values, err := s.read(readValueIDs(ids))
		if err != nil {
			return outcome{problem: oneLine(err)}
		}
		for _, dv := range values {
			if !isGood(dv.Status) {
				return outcome{problem: dv.Status.Error()}
			}
		}
		out := outcome{ok: true, values: len(ids)}
		if config.Verify {
			out.check = func(measured bool) {
				received := time.Now()
				first := positions[0]
				tick := ticks.responseTick(first, values)
				for j, dv := range values {
					name := config.Nodes[positions[j]]
					failure := verifyValue(name, dv.Value)
					if failure == "" {
						failure = ticks.judge(positions[j], dv, tick, sentAfter, received, measured)
					}
					if measured {
						rec.verification(failure)
					}
				}
			}
		}
		return out
	}
}

// writeRequests: request k of session `session` writes s·1e9 + k·n + j to its nodes.
func writeRequests(s *uaSession, config *ClientConfig, session int) func(int) outcome {
	requests := newRequestNodeIDs(s, config.Nodes, config.NodesPerRequest)
	return func(k int) outcome {
		_, ids := requests.of(k)
		values := make([]float64, len(ids))
		for j := range ids {
			values[j] = writeValue(session, k, config.NodesPerRequest, j)
		}
		statuses, err := s.write(ids, values)
		if err != nil {
			return outcome{problem: oneLine(err)}
		}
		if bad := firstBad(statuses); bad != nil {
			return outcome{problem: bad.Error()}
		}
		return outcome{ok: true, values: len(ids)}
	}
}
