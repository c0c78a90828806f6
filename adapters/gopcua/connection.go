// SPEC §3 "Client — connection loss" and §6 `connection`: per session whether it is down, and the
// events of its losses and restorations (the first 100, the rest counted in `truncated`), as the
// reference's uabench_contract.Connection keeps them; and the errors that say a connection is lost.
package main

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/gopcua/opcua/ua"
)

const (
	connectionEvents = 100
	// SPEC §3: a closed-loop slot's wait after a failed request when the run goes on (reconnect).
	retryWait = 10 * time.Millisecond
)

type connectionEvent struct {
	TNs           int64   `json:"t_ns"`
	Session       int     `json:"session"`
	State         string  `json:"state"`
	Subscriptions *string `json:"subscriptions"`
}

type connectionLog struct {
	mu        sync.Mutex
	down      []bool
	events    []connectionEvent
	lost      int
	restored  int
	truncated int
}

func newConnectionLog(sessions int) *connectionLog {
	return &connectionLog{down: make([]bool, sessions), events: []connectionEvent{}}
}

func (c *connectionLog) isDown(session int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down[session]
}

// markLost records a loss; a session already lost is not lost again. It says whether it did.
func (c *connectionLog) markLost(session int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down[session] {
		return false
	}
	c.down[session] = true
	c.lost++
	c.add(session, "lost", nil)
	return true
}

// markRestored records a restoration of a lost session; subscriptions is what became of its
// subscriptions in `subscribe`, else nil.
func (c *connectionLog) markRestored(session int, subscriptions *string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.down[session] {
		return false
	}
	c.down[session] = false
	c.restored++
	c.add(session, "restored", subscriptions)
	return true
}

func (c *connectionLog) add(session int, state string, subscriptions *string) {
	if len(c.events) < connectionEvents {
		c.events = append(c.events, connectionEvent{TNs: time.Now().UnixNano(), Session: session, State: state, Subscriptions: subscriptions})
	} else {
		c.truncated++
	}
}

func (c *connectionLog) record() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return map[string]any{"lost": c.lost, "restored": c.restored, "events": c.events, "truncated": c.truncated}
}

// connectionStatuses are the status codes of SPEC §3 that say the connection is lost.
var connectionStatuses = map[ua.StatusCode]bool{
	ua.StatusBadConnectionClosed:       true,
	ua.StatusBadSecureChannelClosed:    true,
	ua.StatusBadSecureChannelIDInvalid: true,
	ua.StatusBadSessionClosed:          true,
	ua.StatusBadSessionIDInvalid:       true,
	ua.StatusBadSessionNotActivated:    true,
	ua.StatusBadTimeout:                true,
	ua.StatusBadRequestTimeout:         true,
	ua.StatusBadNotConnected:           true,
	ua.StatusBadServerNotConnected:     true,
	ua.StatusBadCommunicationError:     true,
	ua.StatusBadNoCommunication:        true,
	ua.StatusBadDisconnect:             true,
	ua.StatusBadServerHalted:           true,
	ua.StatusBadConnectionRejected:     true,
}

// isConnectionError: a status of the list, or gopcua's own error for a closed connection or a
// timeout (io.EOF from its secure channel, a network error, a context deadline).
func isConnectionError(err error) bool {
	var status ua.StatusCode
	if errors.As(err, &status) {
		return connectionStatuses[status]
	}
	var netErr net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr)
}

// isGood: a StatusCode of severity Good, whatever its info bits (a data change may carry Good
// with the Overflow bit, 0x00000080, when a queue of size 1 dropped a value).
func isGood(status ua.StatusCode) bool { return uint32(status)&0xC0000000 == 0 }
