// Counts one client run and builds the result record of SPEC §6: operations, verification,
// histograms, the timeline (completions per window, arrays allocated once) and `latencies`.
package main

import (
	"math"
	"sync"
	"time"
)

const (
	maxExamples  = 5
	maxLatencies = 1_000_000
)

// phase: the instants of a run on the monotonic clock, as time.Time (Go keeps a monotonic
// reading in it), and the wall clock the record reports.
type phase struct {
	start, measureFrom, measureUntil, graceUntil time.Time
}

const drain = 5 * time.Second

func makePhase(warmupS, durationS float64) phase {
	start := time.Now()
	from := start.Add(time.Duration(math.Round(warmupS * 1e9)))
	until := from.Add(time.Duration(math.Round(durationS * 1e9)))
	return phase{start: start, measureFrom: from, measureUntil: until, graceUntil: until.Add(drain)}
}

func (p phase) measured(t time.Time) bool {
	return !t.Before(p.measureFrom) && t.Before(p.measureUntil)
}

// The adapter's clock is monoNs, ns on the monotonic clock since the process started;
// referenceWall is the one offset that maps it to Unix ns for the whole run, so that start_ns
// minus the timeline's start_ns is exactly the warm-up.
var (
	referenceMono = time.Now()
	referenceWall = referenceMono.UnixNano()
)

func monoNs(t time.Time) int64 { return int64(t.Sub(referenceMono)) }

func wallNs(t time.Time) int64 { return referenceWall + monoNs(t) }

// timeline is the record's `timeline` (SPEC §6, uabench_contract.Timeline): successful
// completions and their values per window, from the start of the workload (warm-up included),
// arrays allocated once at begin. Times are on the adapter's clock (monoNs); offset maps them
// to the record's. A timeline never begun counts nothing.
type timeline struct {
	windowMs      int
	start, offset int64
	begun         bool
	ops, values   []int64
}

// timelineRecord is the record's `timeline` as JSON.
type timelineRecord struct {
	WindowMs int     `json:"window_ms"`
	StartNs  int64   `json:"start_ns"`
	Ops      []int64 `json:"ops"`
	Values   []int64 `json:"values"`
}

// windowsOf: how many windows of w ns cover span ns, the last maybe partial.
func windowsOf(span, w int64) int64 { return max(0, (span+w-1)/w) }

// begin: the workload starts at start and runs span (warm-up + measured phase).
func (tl *timeline) begin(start, span, offset int64) {
	tl.start, tl.offset, tl.begun = start, offset, true
	windows := windowsOf(span, int64(tl.windowMs)*1e6)
	tl.ops, tl.values = make([]int64, windows), make([]int64, windows)
}

// completed: one operation completed successfully at `at`, carrying values.
func (tl *timeline) completed(at int64, values int) {
	// Before the start is no window: Go's / truncates toward zero, so it would be window 0.
	if at < tl.start {
		return
	}
	if k := (at - tl.start) / (int64(tl.windowMs) * 1e6); k < int64(len(tl.ops)) {
		tl.ops[k]++
		tl.values[k] += int64(values)
	}
}

// record: the windows cut or padded to end at the record's end_ns. One never begun starts at
// end_ns, empty (a run that never started has nothing to show).
func (tl *timeline) record(endNs int64) timelineRecord {
	start := endNs
	if tl.begun {
		start = tl.start + tl.offset
	}
	windows := windowsOf(endNs-start, int64(tl.windowMs)*1e6)
	r := timelineRecord{WindowMs: tl.windowMs, StartNs: start, Ops: make([]int64, windows), Values: make([]int64, windows)}
	copy(r.Ops, tl.ops)
	copy(r.Values, tl.values)
	return r
}

type recorder struct {
	mu sync.Mutex

	attempted, succeeded, failed, values   int64
	checked, verificationFailed, readBacks int64
	verificationExamples, errorExamples    []string
	ticksAdvanced                          int64

	latency, sendLag, sessionSetup histogram

	timeline timeline

	recordLatencies bool
	sendNs          []int64
	latencyNs       []int64
	truncated       int64

	connection *connectionLog
	p          phase
}

func newRecorder(windowMs int, recordLatencies bool, connection *connectionLog) *recorder {
	return &recorder{
		timeline: timeline{windowMs: windowMs}, recordLatencies: recordLatencies, connection: connection,
		verificationExamples: []string{}, errorExamples: []string{},
		latency: histogram{}, sendLag: histogram{}, sessionSetup: histogram{},
	}
}

// begin: the workload starts now; its windows span warm-up and the measured phase.
func (r *recorder) begin(p phase) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p = p
	r.timeline.begin(monoNs(p.start), int64(p.measureUntil.Sub(p.start)), referenceWall)
}

// completed: one operation completed successfully at `at`, carrying values (the timeline).
func (r *recorder) completed(at time.Time, values int) {
	r.mu.Lock()
	r.timeline.completed(monoNs(at), values)
	r.mu.Unlock()
}

// operation: one measured request; sent is its (open loop: scheduled) send instant.
func (r *recorder) operation(latency time.Duration, ok bool, values int, problem string, sent time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempted++
	if !ok {
		r.failed++
		r.addError(problem)
		return
	}
	r.succeeded++
	r.values += int64(values)
	ns := max(int64(latency), 1)
	r.latency.record(ns)
	if r.recordLatencies {
		if len(r.sendNs) < maxLatencies {
			r.sendNs = append(r.sendNs, max(int64(sent.Sub(r.p.start)), 0))
			r.latencyNs = append(r.latencyNs, ns)
		} else {
			r.truncated++
		}
	}
}

// sent: open loop, a measured request went to the SDK lag after its scheduled time.
func (r *recorder) sent(lag time.Duration) {
	r.mu.Lock()
	r.sendLag.record(max(int64(lag), 1))
	r.mu.Unlock()
}

// notification: one data change of the subscribe workload (no latency).
func (r *recorder) notification(ok bool, problem string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempted++
	if ok {
		r.succeeded++
		r.values++
	} else {
		r.failed++
		r.addError(problem)
	}
}

func (r *recorder) sessionReady(setup time.Duration) {
	r.mu.Lock()
	r.sessionSetup.record(max(int64(setup), 1))
	r.mu.Unlock()
}

func (r *recorder) addError(problem string) {
	if problem != "" && len(r.errorExamples) < maxExamples {
		if len(problem) > 200 {
			problem = problem[:200]
		}
		r.errorExamples = append(r.errorExamples, problem)
	}
}

func (r *recorder) error(problem string) {
	r.mu.Lock()
	r.addError(problem)
	r.mu.Unlock()
}

// verification: one checked value, "" or its failure.
func (r *recorder) verification(failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verify(failure)
}

func (r *recorder) verify(failure string) {
	r.checked++
	if failure != "" {
		r.verificationFailed++
		if len(r.verificationExamples) < maxExamples {
			r.verificationExamples = append(r.verificationExamples, failure)
		}
	}
}

// readBack: one value read back under load (SPEC §3 W1).
func (r *recorder) readBack(failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.readBacks++
	r.verify(failure)
}

func (r *recorder) result(config *ClientConfig) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	startNs, endNs := wallNs(r.p.measureFrom), wallNs(r.p.measureUntil)
	seconds := max(float64(endNs-startNs)/1e9, 1e-9)
	record := map[string]any{
		"event": "result", "sdk": "gopcua", "version": sdkVersion(), "role": "client",
		"workload": config.Workload, "config": config.Raw,
		"start_ns": startNs, "end_ns": endNs,
		"operations": map[string]any{"attempted": r.attempted, "succeeded": r.succeeded, "failed": r.failed},
		"values":     r.values,
		"verification": map[string]any{"checked": r.checked, "failed": r.verificationFailed,
			"examples": r.verificationExamples, "ticks_advanced": r.ticksAdvanced, "read_back": r.readBacks},
		"errors":           map[string]any{"examples": r.errorExamples},
		"throughput":       map[string]any{"ops_per_s": float64(r.succeeded) / seconds, "values_per_s": float64(r.values) / seconds},
		"latency_ns":       r.latency.sparse(),
		"send_lag_ns":      r.sendLag.sparse(),
		"session_setup_ns": r.sessionSetup.sparse(),
		"connection":       r.connection.record(),
		"timeline":         r.timeline.record(endNs),
	}
	if config.RecordLatencies {
		send, lat := r.sendNs, r.latencyNs
		if send == nil {
			send, lat = []int64{}, []int64{}
		}
		record["latencies"] = map[string]any{"send_ns": send, "latency_ns": lat, "truncated": r.truncated}
	}
	return record
}
