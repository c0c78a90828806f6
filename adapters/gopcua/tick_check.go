// The read verification rules that span values (SPEC §3, R1–R4): the ticks of one response
// agree (R1), are not older than what the session had received before sending the request (R2),
// advance over the measured phase (R3: counted here, judged by the harness) and carry a
// plausible SourceTimestamp (R4). R5 (wire types) is verifyValue's; only values that passed it
// reach this code. State is per session, sized by the node list once.
package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/gopcua/opcua/ua"
)

const (
	half = tickModulus / 2
	// A SourceTimestamp may run ahead of the client's receive time by this much (clock skew).
	futureSlack = time.Second
	noTick      = -1
)

type tickCheck struct {
	mu        sync.Mutex
	slotOf    []int // per position in the node list: its slot (a distinct Tick/Signal node) or -1
	names     []string
	isTick    []bool
	last      []int64 // per slot: the furthest tick seen (Tick: whole; Signal: mod 16384), or -1
	lastSrc   []time.Time
	advanced  []int64
	highWater int // R2: the highest tick (mod 16384) of any Tick or Signal judged, or -1
}

func newTickCheck(nodes []string) *tickCheck {
	t := &tickCheck{slotOf: make([]int, len(nodes)), highWater: noTick}
	index := map[string]int{}
	for i, node := range nodes {
		t.slotOf[i] = -1
		if !carriesTick(node) {
			continue
		}
		slot, ok := index[node]
		if !ok {
			slot = len(t.names)
			index[node] = slot
			t.names = append(t.names, node)
			t.isTick = append(t.isTick, node == "Tick")
		}
		t.slotOf[i] = slot
	}
	t.last = make([]int64, len(t.names))
	for i := range t.last {
		t.last[i] = noTick
	}
	t.lastSrc = make([]time.Time, len(t.names))
	t.advanced = make([]int64, len(t.names))
	return t
}

// sentAfter is the session's high-water tick now (-1 before any), kept with a request when it
// is sent.
func (t *tickCheck) sentAfter() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.highWater
}

// tickOf is the tick a value carries: Tick's whole value, a Signal's value mod 16384.
func tickOf(isTick bool, v *ua.Variant) int64 {
	if isTick {
		return int64(v.Value().(uint32))
	}
	return int64(v.Value().(float32)) % tickModulus
}

// responseTick is the first good Tick of one response (positions first, first+1, ...), or -1.
func (t *tickCheck) responseTick(first int, values []*ua.DataValue) int64 {
	for j, dv := range values {
		slot := t.slotOf[(first+j)%len(t.slotOf)]
		if slot >= 0 && t.isTick[slot] && isGood(dv.Status) && verifyValue("Tick", dv.Value) == "" {
			return tickOf(true, dv.Value)
		}
	}
	return noTick
}

// judge judges one value that passed R5 at position and moves its node's state on; "" or the
// failure. measured: whether its forward steps count towards ticks_advanced.
func (t *tickCheck) judge(position int, dv *ua.DataValue, responseTick int64, sentAfter int, received time.Time, measured bool) string {
	slot := t.slotOf[position]
	if slot < 0 {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	node := t.names[slot]
	tick := tickOf(t.isTick[slot], dv.Value)
	wrapped := int(tick % tickModulus)
	// R2's high-water tick moves on to every value that arrived when it is a forward step.
	beyond := 1
	if t.highWater != noTick {
		beyond = ((wrapped-t.highWater)%tickModulus + tickModulus) % tickModulus
	}
	if beyond >= 1 && beyond < half {
		t.highWater = wrapped
	}
	if dv.EncodingMask&ua.DataValueSourceTimestamp == 0 || dv.SourceTimestamp.IsZero() {
		return node + ": no SourceTimestamp"
	}
	if !t.isTick[slot] && responseTick >= 0 {
		now := int(responseTick % tickModulus)
		ahead := ((wrapped-now)%tickModulus + tickModulus) % tickModulus
		if ahead > 1 && ahead < tickModulus-1 {
			return fmt.Sprintf("%s: tick %d, but Tick %d (mod %d) in the same response", node, wrapped, now, tickModulus)
		}
	}
	if sentAfter != noTick {
		back := ((sentAfter-wrapped)%tickModulus + tickModulus) % tickModulus
		if back >= 2 && back < half {
			return fmt.Sprintf("%s: tick %d, but tick %d had arrived before this request was sent", node, wrapped, sentAfter)
		}
	}
	failure := t.advance(slot, node, tick, dv.SourceTimestamp, measured)
	if failure == "" && dv.SourceTimestamp.After(received.Add(futureSlack)) {
		return fmt.Sprintf("%s: SourceTimestamp %.1f s in the future", node, dv.SourceTimestamp.Sub(received).Seconds())
	}
	return failure
}

// advance: R3's forward steps and the ordering half of R4, per node.
func (t *tickCheck) advance(slot int, node string, tick int64, source time.Time, measured bool) string {
	previous := t.last[slot]
	if previous == noTick {
		t.last[slot], t.lastSrc[slot] = tick, source
		return ""
	}
	var step int64
	if t.isTick[slot] {
		step = max(0, tick-previous)
	} else if forward := (tick - previous + tickModulus) % tickModulus; forward < half {
		// A Signal is ahead below half the modulus (as R2's high-water tick): exactly half
		// is no step, as in the reference and the SPEC's [1, 8192).
		step = forward
	}
	if step == 0 {
		return ""
	}
	if measured {
		t.advanced[slot] += step
	}
	previousSrc := t.lastSrc[slot]
	t.last[slot], t.lastSrc[slot] = tick, source
	if source.Before(previousSrc) {
		return fmt.Sprintf("%s: tick %d has an earlier SourceTimestamp than tick %d", node, tick, previous)
	}
	return ""
}

// ticksAdvanced is verification.ticks_advanced: per node the steps summed over sessions, the
// largest sum.
func ticksAdvanced(checks []*tickCheck) int64 {
	best := int64(0)
	if len(checks) == 0 {
		return 0
	}
	for slot := range checks[0].advanced {
		sum := int64(0)
		for _, c := range checks {
			sum += c.advanced[slot]
		}
		best = max(best, sum)
	}
	return best
}
