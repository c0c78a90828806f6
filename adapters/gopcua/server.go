// Server role (SPEC §2, §3): gopcua's server.Server with the standard address space, its
// update loop, the ready event, and an orderly exit 0 on SIGTERM/SIGINT within 5 s.
package main

import (
	"context"
	"fmt"
	"os"
	ossignal "os/signal"
	"syscall"
	"time"

	"github.com/gopcua/opcua/server"
	"github.com/gopcua/opcua/ua"
	"github.com/gopcua/opcua/uacp"
)

// SPEC §3 message sizes: at least 8 MiB each way.
const maxMessageBytes = 16 * 1024 * 1024

// stderrLogger passes gopcua's server log to stderr at Warn and above.
type stderrLogger struct{}

func (stderrLogger) Debug(string, ...any) {}
func (stderrLogger) Info(string, ...any)  {}
func (stderrLogger) Warn(msg string, args ...any) {
	fmt.Fprintf(os.Stderr, "gopcua server: "+msg+"\n", args...)
}
func (stderrLogger) Error(msg string, args ...any) {
	fmt.Fprintf(os.Stderr, "gopcua server: "+msg+"\n", args...)
}

func runServer(config *ServerConfig) error {
	if err := serverNodesets(config); err != nil {
		return err
	}
	if err := serverSecurity(config); err != nil {
		return err
	}
	// gopcua's server.New has no option for the UACP limits: uacp.Listen, which Server.Start
	// calls with no Acknowledge of its own, offers uacp.DefaultServerACK (MaxMessageSize 2 MiB).
	// Raising that package default is the SDK's one way to accept 8 MiB messages.
	uacp.DefaultServerACK.MaxMessageSize = maxMessageBytes

	srv := server.New(
		server.EndPoint(config.Host, config.Port),
		server.EnableSecurity("None", ua.MessageSecurityModeNone),
		server.EnableAuthMode(ua.UserTokenTypeAnonymous),
		server.ServerName("uabench gopcua server"),
		server.SetLogger(stderrLogger{}),
	)
	space := newAddressSpace(srv, config.Signals, config.Writes)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan os.Signal, 1)
	ossignal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)

	// Go's net.Listen sets SO_REUSEADDR on Linux, so a restarted server binds its port again at
	// once, TIME_WAIT connections of a killed one notwithstanding.
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("server start on %s:%d: %v", config.Host, config.Port, err)
	}
	if config.UpdateIntervalMs > 0 {
		go space.updateLoop(ctx, time.Duration(config.UpdateIntervalMs)*time.Millisecond)
	}
	emit(map[string]any{"event": "ready", "endpoint": srv.URLs()[0], "pid": os.Getpid()})

	<-stop
	cancel()
	// Server.Close waits up to 10 s for its channels; SPEC §2 wants an exit within 5 s.
	closed := make(chan struct{})
	go func() {
		_ = srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		fmt.Fprintln(os.Stderr, "gopcua server: close did not finish within 3 s, exiting")
	}
	return nil
}
