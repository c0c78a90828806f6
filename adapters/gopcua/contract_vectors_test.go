// The golden vectors of contract/vectors run through this adapter's own functions: `go test`
// in adapters/gopcua. A few bad configs also go through the real binary, to see the error
// event of kind config and exit 2.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// vectorFile is contract/vectors/<name>.json, found beside the schema (UABENCH_SCHEMA_DIR may
// point to a copy).
func vectorFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(schemaDir(), "..", "vectors", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func vectors(t *testing.T, name string) map[string]any {
	t.Helper()
	// The adapter's own parser, so "sessions": 2.0 stays written with a fraction.
	v, err := parseConfig(name, vectorFile(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func list(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}

// roleCheck is the config function of a role this adapter has (they also check that
// certificate files are readable).
func roleCheck(role string, raw map[string]any) error {
	var err error
	switch role {
	case "server":
		_, err = serverConfig(raw)
	case "client":
		_, err = clientConfig(raw)
	}
	return err
}

func TestBadConfigs(t *testing.T) {
	for _, v := range list(vectors(t, "configs")["bad"]) {
		role, key := v["role"].(string), v["key"].(string)
		config := v["config"].(map[string]any)
		problems, err := schemaProblems(role, config)
		if err != nil {
			t.Fatal(err)
		}
		if (len(problems) > 0) != v["schema"].(bool) {
			t.Errorf("%s %v: schema rejects it: %v, the vector says %v", role, config, problems, v["schema"])
		}
		if role != "server" && role != "client" {
			continue
		}
		err = roleCheck(role, config)
		if err == nil {
			t.Errorf("%s %v: accepted, should name '%s'", role, config, key)
			continue
		}
		if ke, ok := err.(*kindError); !ok || ke.kind != kindConfig || !strings.Contains(err.Error(), key) {
			t.Errorf("%s %v: %q does not name '%s'", role, config, err, key)
		}
	}
}

func canonical(t *testing.T, v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGoodConfigs(t *testing.T) {
	for _, v := range list(vectors(t, "configs")["good"]) {
		role := v["role"].(string)
		filled, err := checkConfig(role, v["config"].(map[string]any))
		if err != nil {
			t.Errorf("%s %v: %v", role, v["config"], err)
			continue
		}
		if got, want := canonical(t, filled), canonical(t, v["filled"]); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %v:\n got %v\nwant %v", role, v["config"], got, want)
		}
		if err := roleCheck(role, v["config"].(map[string]any)); err != nil {
			t.Errorf("%s %v: %v", role, v["config"], err)
		}
	}
}

func fileBytes(parts []any) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		pair := p.([]any)
		chunk, _ := hex.DecodeString(pair[0].(string))
		b.Write(bytes.Repeat(chunk, int(num(pair[1]))))
	}
	return b.Bytes()
}

func TestUnreadableConfigs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.json")
	for _, v := range list(vectors(t, "configs")["unreadable"]) {
		if err := os.WriteFile(file, fileBytes(v["parts"].([]any)), 0o600); err != nil {
			t.Fatal(err)
		}
		roles := []string{v["role"].(string)}
		if v["any_role"].(bool) {
			roles = []string{"server", "client"}
		}
		for _, role := range roles {
			raw, err := readConfig(file)
			if err == nil {
				err = roleCheck(role, raw)
			}
			says := v["says"].(string)
			if err == nil || !strings.Contains(err.Error(), says) || err.(*kindError).kind != kindConfig {
				t.Errorf("%s (%s): %v does not say %q", v["name"], role, err, says)
			}
		}
	}
}

func TestHistogram(t *testing.T) {
	h := vectors(t, "histogram")
	for _, b := range list(h["buckets"]) {
		if got := bucket(int64(num(b["value_ns"]))); got != int64(num(b["bucket"])) {
			t.Errorf("bucket(%v) = %d, want %v", b["value_ns"], got, b["bucket"])
		}
	}
	for _, c := range list(h["histograms"]) {
		hist := histogram{}
		for _, v := range c["values_ns"].([]any) {
			n, _ := v.(json.Number).Int64()
			hist.record(n)
		}
		if got, want := canonical(t, hist.sparse()), canonical(t, c["sparse"]); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %v want %v", c["values_ns"], got, want)
		}
	}
}

func checkArray(t *testing.T, name string, spec map[string]any, length int, at func(int) float64, le func(*bytes.Buffer, int)) {
	if int(num(spec["length"])) != length {
		t.Errorf("%s: length %d", name, length)
	}
	for _, s := range spec["samples"].([]any) {
		pair := s.([]any)
		if at(int(num(pair[0]))) != num(pair[1]) {
			t.Errorf("%s[%v] = %v, want %v", name, pair[0], at(int(num(pair[0]))), pair[1])
		}
	}
	sum := 0.0
	var b bytes.Buffer
	for k := 0; k < length; k++ {
		sum += at(k)
		le(&b, k)
	}
	if sum != num(spec["sum"]) {
		t.Errorf("%s: sum %v", name, sum)
	}
	digest := sha256.Sum256(b.Bytes())
	if hex.EncodeToString(digest[:]) != spec["sha256_le"] {
		t.Errorf("%s: sha256 differs", name)
	}
}

func TestValues(t *testing.T) {
	v := vectors(t, "values")
	for _, c := range list(v["signal"]) {
		tick, _ := c["tick"].(json.Number).Int64()
		if got := signal(int(num(c["index"])), uint64(tick)); float64(got) != num(c["value"]) {
			t.Errorf("signal(%v, %v) = %v", c["index"], c["tick"], got)
		}
	}
	for _, c := range list(v["signal_tick"]) {
		if got := int(num(c["value"])) % tickModulus; got != int(num(c["tick"])) {
			t.Errorf("tick of %v = %d", c["value"], got)
		}
	}
	for _, c := range list(v["verify"]) {
		valid := verifyNumber(c["node"].(string), c["value"].(json.Number)) == ""
		if valid != c["valid"].(bool) {
			t.Errorf("verify %v %v: %v", c["node"], c["value"], valid)
		}
	}
	if float64(realValue) != num(v["real"]) {
		t.Error("Real")
	}
	p, s, im := page(), sdd(), image()
	checkArray(t, "Page", v["page"].(map[string]any), len(p), func(k int) float64 { return float64(p[k]) },
		func(b *bytes.Buffer, k int) { _ = binary.Write(b, binary.LittleEndian, p[k]) })
	checkArray(t, "SDD", v["sdd"].(map[string]any), len(s), func(k int) float64 { return float64(s[k]) },
		func(b *bytes.Buffer, k int) { b.WriteByte(s[k]) })
	checkArray(t, "Image", v["image"].(map[string]any), len(im), func(k int) float64 { return float64(im[k]) },
		func(b *bytes.Buffer, k int) { b.WriteByte(im[k]) })
	for name, spec := range v["arrays"].(map[string]any) {
		a := doubleArray(arrays[name])
		checkArray(t, name, spec.(map[string]any), len(a), func(k int) float64 { return a[k] },
			func(b *bytes.Buffer, k int) { _ = binary.Write(b, binary.LittleEndian, math.Float64bits(a[k])) })
	}
	for _, c := range list(v["write_value"]) {
		got := writeValue(int(num(c["session"])), int(num(c["request"])), int(num(c["nodes_per_request"])), int(num(c["position"])))
		if got != num(c["value"]) {
			t.Errorf("write value %v = %v", c, got)
		}
	}
	for _, c := range list(v["write_verification_value"]) {
		if got := writeVerificationValue(int(num(c["pattern"])), int(num(c["position"]))); got != num(c["value"]) {
			t.Errorf("write verification value %v = %v", c, got)
		}
	}
	for _, c := range list(v["request_nodes"]) {
		var nodes []string
		for _, n := range c["nodes"].([]any) {
			nodes = append(nodes, n.(string))
		}
		var got []any
		for _, pos := range requestNodes(nodes, int(num(c["request"])), int(num(c["nodes_per_request"]))) {
			got = append(got, nodes[pos])
		}
		if !reflect.DeepEqual(got, c["result"]) {
			t.Errorf("request nodes %v: %v", c, got)
		}
	}
}

// A few bad configs through the real binary: the error event of kind config and exit 2.
func TestBinaryRefusesBadConfig(t *testing.T) {
	binary := filepath.Join(t.TempDir(), "uabench-gopcua")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cases := []struct{ role, config, key string }{
		{"server", `{"port": 4840, "signalz": 10}`, "signalz"},
		{"client", `{"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"], "sessions": 2.0}`, "sessions"},
		{"client", `{"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"], "think_ms": 5, "rate": 10}`, "think_ms"},
		{"server", "{\"port\": 4840, \"host\": \"\\udc80\"}", "is not valid JSON"},
	}
	for _, c := range cases {
		file := filepath.Join(t.TempDir(), "config.json")
		_ = os.WriteFile(file, []byte(c.config), 0o600)
		cmd := exec.Command(binary, c.role, "--config", file)
		cmd.Env = append(os.Environ(), "UABENCH_SCHEMA_DIR="+schemaDir())
		out, err := cmd.Output()
		exit, _ := err.(*exec.ExitError)
		if exit == nil || exit.ExitCode() != 2 {
			t.Errorf("%s %s: exit %v", c.role, c.config, err)
		}
		var event map[string]any
		if json.Unmarshal(out, &event) != nil || event["event"] != "error" || event["kind"] != "config" ||
			!strings.Contains(event["message"].(string), c.key) {
			t.Errorf("%s %s: stdout %q", c.role, c.config, out)
		}
	}
}
