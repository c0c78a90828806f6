// One uabench session: its own gopcua opcua.Client, hence its own SecureChannel and Session,
// the namespace index of urn:uabench:model as this server numbers it, and its losses and
// restorations (SPEC §3 Connection loss) from gopcua's connection state channel
// (opcua.StateChangedCh) and from failing requests.
package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gopcua/opcua"
	"github.com/gopcua/opcua/ua"
)

// connectTimeout: SPEC §2, a session not set up within 10 s (or request_timeout_ms, when that is
// longer) is the connect error.
const connectTimeout = 10 * time.Second

// sdkTimeouts: SPEC §3 request_timeout_ms through gopcua's own options. RequestTimeout bounds
// every request on the SecureChannel (OpenSecureChannel, CreateSession and ActivateSession
// included), DialTimeout the TCP connect. gopcua also waits for a Publish at least
// RequestTimeout (Subscription.publishTimeout), so a long one lengthens that wait too; there is
// no option to keep Publish apart. nil (null): no options, the SDK's defaults (10 s each).
func sdkTimeouts(config *ClientConfig) []opcua.Option {
	if config.RequestTimeoutMs == nil {
		return nil
	}
	d := time.Duration(*config.RequestTimeoutMs) * time.Millisecond
	return []opcua.Option{opcua.RequestTimeout(d), opcua.DialTimeout(d)}
}

// setupTimeout bounds one session's whole set-up (the context of GetEndpoints, Connect and the
// namespace lookup). Hello/Acknowledge has no other bound in gopcua, and a shorter context would
// cut the SDK's own timeouts short, so it is never below request_timeout_ms.
func setupTimeout(config *ClientConfig) time.Duration {
	if config.RequestTimeoutMs == nil {
		return connectTimeout
	}
	return max(connectTimeout, time.Duration(*config.RequestTimeoutMs)*time.Millisecond)
}

type uaSession struct {
	index    int
	workload string
	endpoint string
	client   *opcua.Client
	ns       uint16
	setup    time.Duration
	conn     *connectionLog
	states   chan opcua.ConnState
	closing  atomic.Bool
	// sdkDown: gopcua's state channel said Disconnected/Reconnecting, so its Connected is the
	// restoration; a loss only a request saw is restored by the next request that succeeds.
	sdkDown atomic.Bool
	fate    atomic.Pointer[subscriptionFate]
}

func openSession(config *ClientConfig, index int, conn *connectionLog) (*uaSession, error) {
	s := &uaSession{index: index, workload: config.Workload, endpoint: config.Endpoint, conn: conn,
		states: make(chan opcua.ConnState, 64)}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout(config))
	defer cancel()
	// SPEC §6 session set-up: from opening the connection (GetEndpoints where a secure policy
	// needs the server's certificate) until the session is activated.
	started := time.Now()
	security, err := clientSecurity(ctx, config)
	if err != nil {
		return nil, err
	}
	opts := append(append(security, sdkTimeouts(config)...),
		opcua.ApplicationName("uabench gopcua client"),
		// gopcua reconnects by itself (AutoReconnect, on by default): kept on only with
		// `reconnect`, so without it a lost connection stays lost (SPEC §3); its retry interval
		// (ReconnectInterval, 5 s) is the SDK's default.
		opcua.AutoReconnect(config.Reconnect),
		opcua.StateChangedCh(s.states),
	)
	client, err := opcua.NewClient(config.Endpoint, opts...)
	if err != nil {
		return nil, connectError("connect to %s: %v", config.Endpoint, err)
	}
	s.client = client
	go s.watch()
	if err := client.Connect(ctx); err != nil {
		s.close()
		return nil, connectError("connect to %s: %s", config.Endpoint, oneLine(err))
	}
	s.setup = time.Since(started)
	namespaces, err := client.NamespaceArray(ctx)
	if err != nil {
		s.close()
		return nil, connectError("connect to %s: NamespaceArray: %s", config.Endpoint, oneLine(err))
	}
	found := -1
	for i, uri := range namespaces {
		if uri == namespaceURI {
			found = i
		}
	}
	if found < 0 {
		s.close()
		return nil, connectError("server has no namespace %s (NamespaceArray %q)", namespaceURI, namespaces)
	}
	s.ns = uint16(found)
	return s, nil
}

func oneLine(err error) string {
	text, _, _ := strings.Cut(err.Error(), "\n")
	if len(text) > 200 {
		text = text[:200]
	}
	return text
}

// watch turns gopcua's connection states into the session's losses and restorations.
func (s *uaSession) watch() {
	for state := range s.states {
		if s.closing.Load() {
			continue
		}
		switch state {
		case opcua.Disconnected, opcua.Reconnecting, opcua.Closed:
			s.sdkDown.Store(true)
			s.lost()
		case opcua.Connected:
			if s.sdkDown.Swap(false) {
				s.restored()
			}
		}
	}
}

func (s *uaSession) lost() {
	if s.closing.Load() {
		return
	}
	s.conn.markLost(s.index)
}

func (s *uaSession) restored() {
	var subscriptions *string
	if s.workload == "subscribe" {
		fate := "unknown"
		if f := s.fate.Load(); f != nil {
			fate = f.restored(s.client)
		}
		subscriptions = &fate
	}
	s.conn.markRestored(s.index, subscriptions)
}

// failed: a request failed with err; a connection error is a loss.
func (s *uaSession) failed(err error) {
	if isConnectionError(err) {
		s.lost()
	}
}

// succeeded: a request succeeded; it restores a loss gopcua's state channel never reported.
func (s *uaSession) succeeded() {
	if !s.sdkDown.Load() && s.conn.isDown(s.index) {
		s.restored()
	}
}

func (s *uaSession) nodeID(name string) *ua.NodeID { return ua.NewStringNodeID(s.ns, name) }

// outcome judges one service call: err or a Bad service result fails it (a connection error is a
// loss); results must be one per node; success may restore a loss.
func (s *uaSession) outcome(err error, res ua.Response, results func() int, nodes int) error {
	if err == nil && !isGood(res.Header().ServiceResult) {
		err = res.Header().ServiceResult
	}
	if err != nil {
		s.failed(err)
		return err
	}
	if n := results(); n != nodes {
		return fmt.Errorf("%d results for %d nodes", n, nodes)
	}
	s.succeeded()
	return nil
}

// read is the Read service with maxAge 0 and TimestampsToReturn Source (SPEC §3).
func (s *uaSession) read(ids []*ua.ReadValueID) ([]*ua.DataValue, error) {
	res, err := s.client.Read(context.Background(), &ua.ReadRequest{
		MaxAge: 0, TimestampsToReturn: ua.TimestampsToReturnSource, NodesToRead: ids,
	})
	if err := s.outcome(err, res, func() int { return len(res.Results) }, len(ids)); err != nil {
		return nil, err
	}
	return res.Results, nil
}

// write writes Doubles (the value only, no timestamps) and returns the per-node statuses.
func (s *uaSession) write(ids []*ua.NodeID, values []float64) ([]ua.StatusCode, error) {
	nodes := make([]*ua.WriteValue, len(ids))
	for j, id := range ids {
		nodes[j] = &ua.WriteValue{NodeID: id, AttributeID: ua.AttributeIDValue,
			Value: &ua.DataValue{EncodingMask: ua.DataValueValue, Value: ua.MustVariant(values[j])}}
	}
	res, err := s.client.Write(context.Background(), &ua.WriteRequest{NodesToWrite: nodes})
	if err := s.outcome(err, res, func() int { return len(res.Results) }, len(ids)); err != nil {
		return nil, err
	}
	return res.Results, nil
}

func (s *uaSession) close() {
	s.closing.Store(true)
	done := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.client.Close(ctx)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}
