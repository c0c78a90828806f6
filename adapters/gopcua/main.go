// uabench adapter for gopcua (github.com/gopcua/opcua): `capabilities`, `server --config F`,
// `client --config F`. See adapters/SPEC.md. Stdout carries only the protocol's JSON lines;
// logs go to stderr.
package main

import (
	"log"
	"os"
)

func configPath(args []string) (string, error) {
	if len(args) != 2 || args[0] != "--config" || args[1] == "" {
		return "", configError("config: usage: run server|client --config FILE")
	}
	return args[1], nil
}

// readConfigArg reads the file of `--config FILE` (SPEC §2 "Unreadable config").
func readConfigArg(args []string) (map[string]any, error) {
	file, err := configPath(args)
	if err != nil {
		return nil, err
	}
	return readConfig(file)
}

func run(args []string) error {
	if len(args) == 0 {
		return configError("config: usage: run capabilities | run server --config FILE | run client --config FILE")
	}
	switch args[0] {
	case "capabilities":
		emit(capabilities())
		return nil
	case "server":
		raw, err := readConfigArg(args[1:])
		if err != nil {
			return err
		}
		config, err := serverConfig(raw)
		if err != nil {
			return err
		}
		return runServer(config)
	case "client":
		raw, err := readConfigArg(args[1:])
		if err != nil {
			return err
		}
		config, err := clientConfig(raw)
		if err != nil {
			return err
		}
		record, err := runClient(config)
		if err != nil {
			return err
		}
		emit(record)
		return nil
	case "publisher", "subscriber":
		return notSupported("role '%s': gopcua has no PubSub (no UADP or Part 14 package in github.com/gopcua/opcua %s)", args[0], sdkVersion())
	default:
		return configError("config: unknown command '%s'", args[0])
	}
}

func main() {
	// gopcua's server and client log with the standard logger ("Started listening on ...",
	// subscription warnings): stderr, never stdout.
	log.SetOutput(os.Stderr)
	if err := run(os.Args[1:]); err != nil {
		fail(err)
	}
	os.Exit(0)
}
