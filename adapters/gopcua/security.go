// Security of both roles: which policies gopcua offers where, and the client's certificate and
// key files.
package main

import (
	"context"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"

	"github.com/gopcua/opcua"
	"github.com/gopcua/opcua/ua"
)

// serverSecurity: gopcua's server (server.EnableSecurity) lists secure endpoints but validates
// no client certificate (no trust list, no validator hook; its own example server marks the
// secure modes "not implemented yet"), so it cannot reject an untrusted client as SPEC §3
// requires: any endpoint but None is not supported.
func serverSecurity(config *ServerConfig) error {
	for _, e := range config.Security.Endpoints {
		if e.Policy != "None" {
			return notSupported("security endpoint %s/%s: gopcua %s's server has no certificate validation or trust list (server.EnableSecurity accepts any client certificate), so it cannot reject an untrusted client", e.Policy, e.Mode, sdkVersion())
		}
	}
	return nil
}

var modes = map[string]ua.MessageSecurityMode{
	"None":           ua.MessageSecurityModeNone,
	"Sign":           ua.MessageSecurityModeSign,
	"SignAndEncrypt": ua.MessageSecurityModeSignAndEncrypt,
}

// loadKeyPair reads the DER certificate and the PEM private key (PKCS#8 or traditional RSA).
func loadKeyPair(certificateFile, keyFile string) ([]byte, *rsa.PrivateKey, error) {
	cert, err := os.ReadFile(certificateFile)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, err
	}
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, nil, fmt.Errorf("%s holds no PEM block", keyFile)
	}
	var key any
	if key, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", keyFile, err)
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not an RSA key", keyFile)
	}
	if _, err := tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert}), keyPEM); err != nil {
		return nil, nil, fmt.Errorf("certificate and key do not match: %v", err)
	}
	return cert, rsaKey, nil
}

// clientSecurity: the client's security options. gopcua's client does the secure policies
// (opcua.SecurityFromEndpoint with the server's endpoint from GetEndpoints, whose certificate it
// trusts as SPEC §3 says); sdk.toml declares only None because the server lacks them.
func clientSecurity(ctx context.Context, config *ClientConfig) ([]opcua.Option, error) {
	s := config.Security
	// No AuthAnonymous: without a token gopcua's CreateSession picks the anonymous policy id the
	// server's endpoints name; SecurityFromEndpoint does the same for a secure endpoint.
	opts := []opcua.Option{opcua.ApplicationURI(s.ApplicationURI)}
	if s.Policy == "None" {
		return append(opts, opcua.SecurityPolicy(ua.SecurityPolicyURINone), opcua.SecurityMode(ua.MessageSecurityModeNone)), nil
	}
	cert, key, err := loadKeyPair(*s.Certificate, *s.PrivateKey)
	if err != nil {
		return nil, configError("config: key 'security.certificate': %v", err)
	}
	// The GetEndpoints connection is set up like the session's (SPEC §3 request_timeout_ms).
	endpoints, err := opcua.GetEndpoints(ctx, config.Endpoint, sdkTimeouts(config)...)
	if err != nil {
		return nil, connectError("connect to %s: GetEndpoints: %s", config.Endpoint, oneLine(err))
	}
	endpoint, err := opcua.SelectEndpoint(endpoints, policyURIPrefix+s.Policy, modes[s.Mode])
	if err != nil || endpoint == nil {
		return nil, notSupported("the server at %s offers no endpoint %s/%s", config.Endpoint, s.Policy, s.Mode)
	}
	return append(opts, opcua.SecurityFromEndpoint(endpoint, ua.UserTokenTypeAnonymous),
		opcua.Certificate(cert), opcua.PrivateKey(key)), nil
}

const policyURIPrefix = "http://opcfoundation.org/UA/SecurityPolicy#"
