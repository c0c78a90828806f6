// The `client` role: opens the sessions, runs one workload through its phases and returns the
// result record (SPEC §6).
package main

import (
	"sync"
	"time"
)

// Sessions connect a few at a time: a thousand simultaneous handshakes would push some past the
// connect timeout on a small machine.
const connectingAtOnce = 16

func openAll(config *ClientConfig, conn *connectionLog) ([]*uaSession, error) {
	sessions := make([]*uaSession, config.Sessions)
	errs := make([]error, config.Sessions)
	next := make(chan int, config.Sessions)
	for i := range sessions {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(connectingAtOnce, config.Sessions); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sessions[i], errs[i] = openSession(config, i, conn)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			closeAll(sessions)
			return nil, err
		}
	}
	return sessions, nil
}

func closeAll(sessions []*uaSession) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		if s == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
}

func runRequests(sessions []*uaSession, config *ClientConfig, rec *recorder) phase {
	p := makePhase(config.WarmupS, config.DurationS)
	rec.begin(p)
	ticks := make([]*tickCheck, len(sessions))
	var readBack *writeReadBack
	if config.Workload == "write" && config.Verify {
		// SPEC §3 W1: session 0 reads back a sample of its writes during the phase.
		readBack = newWriteReadBack(sessions[0], config, rec)
	}
	retry := time.Duration(0)
	if config.Reconnect {
		retry = retryWait
	}
	loads := make([]*sessionLoad, len(sessions))
	for i, s := range sessions {
		ticks[i] = newTickCheck(config.Nodes)
		load := &sessionLoad{rec: rec, p: p, inFlight: config.InFlight, rate: config.Rate, sessions: config.Sessions,
			index: i, think: time.Duration(config.ThinkMs * 1e6), retry: retry}
		if config.Workload == "read" {
			load.send = readRequests(s, config, rec, ticks[i])
		} else {
			load.send = writeRequests(s, config, i)
		}
		if i == 0 {
			load.readBack = readBack
		}
		loads[i] = load
	}
	var wg sync.WaitGroup
	for _, l := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.run()
		}()
	}
	wg.Wait()
	for _, l := range loads {
		l.abandon()
	}
	for _, t := range ticks {
		t.mu.Lock()
	}
	rec.mu.Lock()
	rec.ticksAdvanced = ticksAdvanced(ticks)
	rec.mu.Unlock()
	for _, t := range ticks {
		t.mu.Unlock()
	}
	if config.Workload == "write" && config.Verify {
		verifyWrites(sessions[0], config, rec)
	}
	return p
}

func runClient(config *ClientConfig) (map[string]any, error) {
	// SPEC §3 Connection loss: every session's losses and restorations, from its set-up on.
	conn := newConnectionLog(config.Sessions)
	sessions, err := openAll(config, conn)
	if err != nil {
		return nil, err
	}
	rec := newRecorder(config.TimelineMs, config.RecordLatencies, conn)
	for _, s := range sessions {
		rec.sessionReady(s.setup)
	}
	var extra map[string]any
	if config.Workload == "subscribe" {
		var p phase
		p, extra, err = runSubscribe(sessions, config, rec)
		if err != nil {
			closeAll(sessions)
			return nil, err
		}
		_ = p
	} else {
		runRequests(sessions, config, rec)
	}
	record := rec.result(config)
	closeAll(sessions)
	for k, v := range extra {
		record[k] = v
	}
	return record, nil
}
