// The `subscribe` workload (SPEC §3): every subscription of every session monitors every node
// (opcua.Client.Subscribe, Subscription.Monitor); gopcua hands each subscription's notifications
// to a channel, read here by one goroutine per subscription, measured by their receive time.
package main

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/gopcua/opcua"
	"github.com/gopcua/opcua/ua"
)

// gopcua's default session timeout (opcua.DefaultSessionConfig, 20 min): the one the client asks for.
const sessionTimeoutMs = 20 * 60 * 1000

// lifetimeCap is uabench_contract.LIFETIME_CAP_MS: a lifetime of at most 600 s is asked for.
const lifetimeCap = 600000

// lifetimeCount is uabench_contract.lifetime_count (SPEC §3 subscribe).
func lifetimeCount(sessionTimeout, intervalMs float64, keepAlive uint32) uint32 {
	wanted := math.Ceil(math.Min(sessionTimeout, lifetimeCap) / intervalMs)
	return uint32(math.Min(math.Max(3*float64(keepAlive), wanted), math.MaxUint32))
}

type measurements struct {
	mu            sync.Mutex
	rec           *recorder
	verify        bool
	p             *phase
	tickGaps      int64
	duplicates    int64
	notifications int64
	updates       []int64
	cycleTime     histogram
	delay         histogram
}

func (m *measurements) measured(t time.Time) bool { return m.p != nil && m.p.measured(t) }

// subscriptionFate: what became of one session's subscriptions when gopcua restores it. Its
// monitor goroutine first reactivates the old session (ActivateSession); if the server no longer
// has it, it creates a new session (Client.Session changes), asks TransferSubscriptions and
// republishes, and creates anew, with the same monitored items, every subscription it could not
// transfer (Subscription.SubscriptionID changes then, unless the restarted server hands out the
// same id again). It reports none of this, so it is read off the client after its Connected
// state: the old session reactivated keeps its subscriptions (transferred); a new id is a
// recreation; a new session with the old ids is either, which gopcua does not say (unknown); an id
// the client no longer has is lost.
type subscriptionFate struct {
	mu      sync.Mutex
	subs    []*opcua.Subscription
	ids     []uint32
	session *opcua.Session
}

func (f *subscriptionFate) add(client *opcua.Client, sub *opcua.Subscription) {
	f.mu.Lock()
	f.subs = append(f.subs, sub)
	f.ids = append(f.ids, sub.SubscriptionID)
	f.session = client.Session()
	f.mu.Unlock()
}

// restored runs on gopcua's Connected state, sent after its repair finished.
func (f *subscriptionFate) restored(client *opcua.Client) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	known := map[uint32]bool{}
	for _, id := range client.SubscriptionIDs() {
		known[id] = true
	}
	session := client.Session()
	fate := "transferred"
	if session != f.session {
		fate = "unknown"
	}
	f.session = session
	for i, sub := range f.subs {
		id := sub.SubscriptionID
		switch {
		case !known[id]:
			return "lost"
		case id != f.ids[i]:
			fate = "recreated"
			f.ids[i] = id
		}
	}
	return fate
}

// handle is one subscription's notification loop: per item the last receive time and tick.
func (m *measurements) handle(ch <-chan *opcua.PublishNotificationData, number int, names []string) {
	lastSeen := make([]time.Time, len(names))
	lastTick := make([]int, len(names))
	ticked := make([]bool, len(names))
	for i, n := range names {
		ticked[i] = carriesTick(n)
		lastTick[i] = -1
	}
	for data := range ch {
		if data.Error != nil {
			continue // gopcua's publish errors; losses come from its state channel
		}
		change, ok := data.Value.(*ua.DataChangeNotification)
		if !ok {
			continue
		}
		for _, item := range change.MonitoredItems {
			received := time.Now()
			pos := int(item.ClientHandle)
			if pos < 0 || pos >= len(names) || item.Value == nil {
				continue
			}
			m.one(number, names, pos, item.Value, received, lastSeen, lastTick, ticked)
		}
	}
}

func (m *measurements) one(number int, names []string, pos int, dv *ua.DataValue, received time.Time, lastSeen []time.Time, lastTick []int, ticked []bool) {
	previousSeen, previousTick := lastSeen[pos], lastTick[pos]
	lastSeen[pos] = received
	tick := -1
	if ticked[pos] && dv.Value != nil {
		switch v := dv.Value.Value().(type) {
		case uint32:
			tick = int(v % tickModulus)
		case float32:
			if v >= 0 {
				tick = int(v) % tickModulus
			}
		}
		lastTick[pos] = tick
	}
	good := isGood(dv.Status)
	if good {
		m.rec.completed(received, 1)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.measured(received) {
		return
	}
	// SPEC §3: each data change is an operation (no latency); a Bad status is a failed one.
	m.notifications++
	problem := ""
	if !good {
		problem = fmt.Sprintf("%s: %s", names[pos], dv.Status.Error())
	}
	m.rec.notification(good, problem)
	if !good {
		return
	}
	m.updates[number]++
	if m.verify {
		m.rec.verification(verifyValue(names[pos], dv.Value))
	}
	if !previousSeen.IsZero() {
		m.cycleTime.record(int64(received.Sub(previousSeen)))
	}
	if dv.EncodingMask&ua.DataValueSourceTimestamp != 0 && !dv.SourceTimestamp.IsZero() {
		m.delay.record(max(int64(received.Sub(dv.SourceTimestamp)), 1))
	}
	if tick >= 0 && previousTick >= 0 {
		gaps, duplicates := tickStep(previousTick, tick)
		m.tickGaps += int64(gaps)
		m.duplicates += int64(duplicates)
	}
}

func subscribeSession(s *uaSession, first int, config *ClientConfig, m *measurements) error {
	names := config.Nodes
	// gopcua sends the publishing interval in whole milliseconds (Interval / time.Millisecond),
	// so the counts are computed for the interval it really asks for.
	intervalMs := math.Max(1, math.Floor(config.PublishingIntervalMs))
	// Keep-alives about every 10 s (gopcua's default, 3000 intervals, would be 5 min at 100 ms).
	keepAlive := uint32(math.Max(3, math.Ceil(10000/intervalMs)))
	params := &opcua.SubscriptionParameters{
		Interval:          time.Duration(intervalMs) * time.Millisecond,
		MaxKeepAliveCount: keepAlive,
		LifetimeCount:     lifetimeCount(sessionTimeoutMs, intervalMs, keepAlive),
	}
	filter := ua.NewExtensionObject(&ua.DataChangeFilter{Trigger: ua.DataChangeTriggerStatusValue, DeadbandType: uint32(ua.DeadbandTypeNone)})
	items := make([]*ua.MonitoredItemCreateRequest, len(names))
	for pos, name := range names {
		items[pos] = &ua.MonitoredItemCreateRequest{
			ItemToMonitor:  &ua.ReadValueID{NodeID: s.nodeID(name), AttributeID: ua.AttributeIDValue, DataEncoding: &ua.QualifiedName{}},
			MonitoringMode: ua.MonitoringModeReporting,
			RequestedParameters: &ua.MonitoringParameters{
				ClientHandle:     uint32(pos),
				SamplingInterval: config.SamplingIntervalMs,
				QueueSize:        uint32(config.QueueSize),
				DiscardOldest:    true,
				Filter:           filter,
			},
		}
	}
	fate := &subscriptionFate{}
	s.fate.Store(fate)
	ctx := context.Background()
	for k := 0; k < config.Subscriptions; k++ {
		ch := make(chan *opcua.PublishNotificationData, 1024)
		sub, err := s.client.Subscribe(ctx, params, ch)
		if err != nil {
			return fmt.Errorf("CreateSubscription: %s", oneLine(err))
		}
		go m.handle(ch, first+k, names)
		res, err := sub.Monitor(ctx, ua.TimestampsToReturnBoth, items...)
		if err != nil {
			return fmt.Errorf("CreateMonitoredItems: %s", oneLine(err))
		}
		fate.add(s.client, sub)
		for pos, r := range res.Results {
			// A monitored item the server refuses is a failed operation (SPEC §3).
			if !isGood(r.StatusCode) && pos < len(names) {
				m.rec.notification(false, fmt.Sprintf("%s: %s", names[pos], r.StatusCode.Error()))
			}
		}
	}
	return nil
}

// runSubscribe runs the workload over open sessions and returns the phase and the record's
// subscribe fields (SPEC §6).
func runSubscribe(sessions []*uaSession, config *ClientConfig, rec *recorder) (phase, map[string]any, error) {
	m := &measurements{rec: rec, verify: config.Verify, updates: make([]int64, len(sessions)*config.Subscriptions),
		cycleTime: histogram{}, delay: histogram{}}
	var wg sync.WaitGroup
	errs := make([]error, len(sessions))
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = subscribeSession(s, i*config.Subscriptions, config, m)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			continue
		}
		// With reconnect the run goes on whatever happens to the connection (SPEC §3): a
		// subscription that could not be set up is a failed operation, and no notification comes.
		if !config.Reconnect {
			return phase{}, nil, err
		}
		rec.notification(false, "subscribe: "+err.Error())
	}
	p := makePhase(config.WarmupS, config.DurationS)
	rec.begin(p)
	m.mu.Lock()
	m.p = &p
	m.mu.Unlock()
	time.Sleep(time.Until(p.measureUntil))
	m.mu.Lock()
	defer m.mu.Unlock()
	minUpdates, maxUpdates := int64(math.MaxInt64), int64(0)
	for _, u := range m.updates {
		minUpdates, maxUpdates = min(minUpdates, u), max(maxUpdates, u)
	}
	rec.mu.Lock()
	values := rec.values
	rec.mu.Unlock()
	return p, map[string]any{
		"subscription": map[string]any{
			"notifications":            m.notifications,
			"values_per_s":             float64(values) / config.DurationS,
			"updates_per_subscription": map[string]any{"min": minUpdates, "max": maxUpdates},
			"tick_gaps":                m.tickGaps,
			"duplicates":               m.duplicates,
		},
		"cycle_time_ns": m.cycleTime.sparse(),
		"delay_ns":      m.delay.sparse(),
	}, nil
}
