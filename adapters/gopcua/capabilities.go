// `run capabilities` (SPEC §2): what this adapter offers, with the version of gopcua actually
// linked in, read from the binary's module build info (never a copy of sdk.toml).
package main

import (
	"runtime/debug"
)

const sdkModule = "github.com/gopcua/opcua"

// sdkVersion is gopcua's module version as linked into this binary, without the leading "v".
func sdkVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == sdkModule {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			if len(dep.Version) > 1 && dep.Version[0] == 'v' {
				return dep.Version[1:]
			}
			return dep.Version
		}
	}
	return "unknown"
}

// securityEndpoints: what both roles offer. gopcua's server has no certificate validation, so it
// cannot reject an untrusted client (SPEC §3): only None (see sdk.toml [not_supported]).
var securityEndpoints = []Endpoint{{Policy: "None", Mode: "None"}}

func capabilities() map[string]any {
	return map[string]any{
		"sdk":       "gopcua",
		"version":   sdkVersion(),
		"language":  "Go",
		"roles":     []string{"server", "client"},
		"workloads": []string{"read", "write", "subscribe"},
		"security":  securityEndpoints,
	}
}
