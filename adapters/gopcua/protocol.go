// The stdout protocol of SPEC §2: one JSON object per line and nothing else on stdout, the
// error event's kinds and their exit codes.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Error kinds of SPEC §2 and their exit codes.
const (
	kindConfig       = "config"
	kindConnect      = "connect"
	kindRuntime      = "runtime"
	kindNotSupported = "not_supported"
)

var exitCodes = map[string]int{kindConfig: 2, kindConnect: 1, kindRuntime: 1, kindNotSupported: 3}

// kindError is an error that stops the role with the error event of its kind.
type kindError struct {
	kind    string
	message string
}

func (e *kindError) Error() string { return e.message }

func configError(format string, args ...any) error {
	return &kindError{kindConfig, fmt.Sprintf(format, args...)}
}

func connectError(format string, args ...any) error {
	return &kindError{kindConnect, fmt.Sprintf(format, args...)}
}

func notSupported(format string, args ...any) error {
	return &kindError{kindNotSupported, fmt.Sprintf(format, args...)}
}

var stdoutMu sync.Mutex

// emit prints one event as a JSON line; os.Stdout is unbuffered, so the line is flushed at once.
func emit(event any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(event); err != nil {
		fmt.Fprintf(os.Stderr, "cannot encode event: %v\n", err)
		return
	}
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	_, _ = os.Stdout.Write(buf.Bytes())
}

// fail prints the error event of err's kind (runtime for any other error) and exits.
func fail(err error) {
	kind := kindRuntime
	var ke *kindError
	if errors.As(err, &ke) {
		kind = ke.kind
	}
	emit(map[string]any{"event": "error", "kind": kind, "message": err.Error()})
	fmt.Fprintf(os.Stderr, "%s: %s\n", kind, err.Error())
	os.Exit(exitCodes[kind])
}
