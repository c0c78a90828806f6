// Config files of SPEC §3 (and §2 "Unreadable config"): the file is read with the limits every
// adapter applies, validated against contract/schema with santhosh-tekuri/jsonschema (JSON Schema
// 2020-12), its defaults filled in from the same schema, and the few rules a JSON Schema cannot
// state are checked here. Any problem is a config error naming the key, before anything connects.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

const (
	configMaxBytes = 16 * 1024 * 1024
	configMaxDepth = 64
	schemaPrefix   = "urn:uabench:contract:"
)

// englishPrinter renders the validator's messages (it has no default printer).
var englishPrinter = message.NewPrinter(language.English)

var schemaNames = []string{"common", "server", "client", "publisher", "subscriber", "result", "event", "capabilities"}

// schemaDir is contract/schema: $UABENCH_SCHEMA_DIR (the run script and the container image set
// it), else found from the working directory upwards (go test runs in adapters/gopcua).
func schemaDir() string {
	if dir := os.Getenv("UABENCH_SCHEMA_DIR"); dir != "" {
		return dir
	}
	dir, _ := os.Getwd()
	for {
		candidate := filepath.Join(dir, "contract", "schema")
		if _, err := os.Stat(filepath.Join(candidate, "client.json")); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("contract", "schema")
		}
		dir = parent
	}
}

// schemas holds the contract's schema documents (for their defaults) and the compiler (for
// validating), loaded once.
type schemas struct {
	docs     map[string]any
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	compiled map[string]*jsonschema.Schema
}

var (
	contractSchemas     *schemas
	contractSchemasErr  error
	contractSchemasOnce sync.Once
)

func loadSchemas() (*schemas, error) {
	contractSchemasOnce.Do(func() {
		dir := schemaDir()
		s := &schemas{docs: map[string]any{}, compiler: jsonschema.NewCompiler(), compiled: map[string]*jsonschema.Schema{}}
		for _, name := range schemaNames {
			f, err := os.Open(filepath.Join(dir, name+".json"))
			if err != nil {
				contractSchemasErr = fmt.Errorf("contract schema: %v (set UABENCH_SCHEMA_DIR to contract/schema)", err)
				return
			}
			doc, err := jsonschema.UnmarshalJSON(f)
			f.Close()
			if err != nil {
				contractSchemasErr = fmt.Errorf("contract schema %s: %v", name, err)
				return
			}
			s.docs[schemaPrefix+name] = doc
			if err := s.compiler.AddResource(schemaPrefix+name, doc); err != nil {
				contractSchemasErr = fmt.Errorf("contract schema %s: %v", name, err)
				return
			}
		}
		contractSchemas = s
	})
	return contractSchemas, contractSchemasErr
}

// schema compiles (once) the schema at location, e.g. "urn:uabench:contract:client" or a
// subschema "urn:uabench:contract:client#/allOf/0/if".
func (s *schemas) schema(location string) *jsonschema.Schema {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[location]; ok {
		return sch
	}
	sch, err := s.compiler.Compile(location)
	if err != nil {
		panic(fmt.Sprintf("contract schema %s: %v", location, err))
	}
	s.compiled[location] = sch
	return sch
}

// resolve is the raw schema object at location (document id, '#', JSON pointer).
func (s *schemas) resolve(location string) map[string]any {
	doc, pointer, _ := strings.Cut(location, "#")
	node := s.docs[doc]
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[part]
		case []any:
			i, _ := strconv.Atoi(part)
			node = n[i]
		}
	}
	obj, _ := node.(map[string]any)
	return obj
}

func refLocation(from, ref string) string {
	if strings.HasPrefix(ref, "#") {
		doc, _, _ := strings.Cut(from, "#")
		return doc + ref
	}
	if !strings.Contains(ref, "#") {
		return ref + "#"
	}
	return ref
}

// fillDefaults puts in every default the schema at location gives for a key the instance lacks,
// following $ref, allOf and if/then/else (the `if` judged by the validator), as ajv's
// useDefaults does for the node-opcua adapter.
func (s *schemas) fillDefaults(location string, instance any) {
	sch := s.resolve(location)
	if sch == nil {
		return
	}
	if ref, ok := sch["$ref"].(string); ok {
		s.fillDefaults(refLocation(location, ref), instance)
	}
	if obj, ok := instance.(map[string]any); ok {
		if props, ok := sch["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, key := range keys {
				prop, _ := props[key].(map[string]any)
				if _, has := obj[key]; !has {
					if d, ok := prop["default"]; ok {
						obj[key] = deepCopy(d)
					}
				}
				if value, has := obj[key]; has {
					s.fillDefaults(location+"/properties/"+key, value)
				}
			}
		}
	}
	if arr, ok := instance.([]any); ok && sch["items"] != nil {
		for _, item := range arr {
			s.fillDefaults(location+"/items", item)
		}
	}
	if all, ok := sch["allOf"].([]any); ok {
		for i := range all {
			s.fillDefaults(location+"/allOf/"+strconv.Itoa(i), instance)
		}
	}
	if _, ok := sch["if"]; ok {
		branch := "/else"
		if s.schema(location+"/if").Validate(instance) == nil {
			branch = "/then"
		}
		if _, ok := sch[branch[1:]]; ok {
			s.fillDefaults(location+branch, instance)
		}
	}
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

// keyOf names an instance location as SPEC's messages do: security.endpoints[0].policy.
func keyOf(location []string) string {
	var b strings.Builder
	for _, part := range location {
		if _, err := strconv.Atoi(part); err == nil {
			b.WriteString("[" + part + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}

func leaves(err *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(err.Causes) == 0 {
		return append(out, err)
	}
	for _, cause := range err.Causes {
		out = leaves(cause, out)
	}
	return out
}

// isUnknownKey: a key no property allows (additionalProperties, or unevaluatedProperties:
// false, which reports the key itself against the false schema).
func isUnknownKey(e *jsonschema.ValidationError) bool {
	switch e.ErrorKind.(type) {
	case *kind.AdditionalProperties, *kind.FalseSchema:
		return true
	}
	return false
}

// describe is one problem in SPEC's words, naming the key.
func describe(e *jsonschema.ValidationError, instance any) string {
	key := keyOf(e.InstanceLocation)
	prefix := ""
	if key != "" {
		prefix = key + "."
	}
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		return fmt.Sprintf("config: unknown key '%s%s'", prefix, strings.Join(k.Properties, "', '"+prefix))
	case *kind.FalseSchema:
		return fmt.Sprintf("config: unknown key '%s'", key)
	case *kind.Required:
		return fmt.Sprintf("config: missing required key '%s%s'", prefix, strings.Join(k.Missing, "', '"+prefix))
	}
	got, _ := json.Marshal(valueAt(instance, e.InstanceLocation))
	return fmt.Sprintf("config: key '%s' %s, got %s", key, e.ErrorKind.LocalizedString(englishPrinter), got)
}

func valueAt(instance any, location []string) any {
	for _, part := range location {
		switch t := instance.(type) {
		case map[string]any:
			instance = t[part]
		case []any:
			i, _ := strconv.Atoi(part)
			instance = t[i]
		}
	}
	return instance
}

// schemaProblems is every problem of instance against the role's schema, the one to report first:
// a value error of the deepest key before an unknown key (a key whose value failed may also be
// reported as unevaluated).
func schemaProblems(role string, instance any) ([]string, error) {
	s, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	verr := s.schema(schemaPrefix + role).Validate(instance)
	if verr == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return []string{"config: " + verr.Error()}, nil
	}
	found := leaves(ve, nil)
	sort.SliceStable(found, func(i, j int) bool {
		ui, uj := isUnknownKey(found[i]), isUnknownKey(found[j])
		if ui != uj {
			return !ui
		}
		return len(found[i].InstanceLocation) > len(found[j].InstanceLocation)
	})
	out := make([]string, len(found))
	for i, e := range found {
		out[i] = describe(e, instance)
	}
	return out, nil
}

// checkConfig validates raw (as read by readConfig) for role and returns it with its defaults
// filled in, or a config error naming the key.
func checkConfig(role string, raw map[string]any) (map[string]any, error) {
	problems, err := schemaProblems(role, raw)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, configError("%s", problems[0])
	}
	if err := rejectFractionalIntegers(role, raw, raw, nil); err != nil {
		return nil, err
	}
	config := deepCopy(raw).(map[string]any)
	contractSchemas.fillDefaults(schemaPrefix+role+"#", config)
	return config, nil
}

// rejectFractionalIntegers: to JSON Schema 5.0 is an integer; to SPEC an integer key written as
// "5.0" or "1e3" is a bad config. Such a number is refused when the schema wants an integer
// there, which it shows by rejecting the number plus one half with a type error at that key.
func rejectFractionalIntegers(role string, root map[string]any, node any, location []string) error {
	switch t := node.(type) {
	case map[string]any:
		for k, v := range t {
			if err := rejectFractionalIntegers(role, root, v, append(append([]string{}, location...), k)); err != nil {
				return err
			}
		}
	case []any:
		for i, v := range t {
			if err := rejectFractionalIntegers(role, root, v, append(append([]string{}, location...), strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case json.Number:
		text := string(t)
		if !strings.ContainsAny(text, ".eE") {
			return nil
		}
		f, err := t.Float64()
		if err != nil || f != float64(int64(f)) {
			return nil
		}
		probe := deepCopy(root).(map[string]any)
		setAt(probe, location, json.Number(strconv.FormatFloat(f+0.5, 'f', -1, 64)))
		verr := contractSchemas.schema(schemaPrefix + role).Validate(probe)
		var ve *jsonschema.ValidationError
		if errors.As(verr, &ve) {
			for _, e := range leaves(ve, nil) {
				if _, isType := e.ErrorKind.(*kind.Type); isType && keyOf(e.InstanceLocation) == keyOf(location) {
					return configError("config: key '%s' must be an integer, got %s", keyOf(location), text)
				}
			}
		}
	}
	return nil
}

func setAt(root any, location []string, value any) {
	parent := valueAt(root, location[:len(location)-1])
	last := location[len(location)-1]
	switch t := parent.(type) {
	case map[string]any:
		t[last] = value
	case []any:
		i, _ := strconv.Atoi(last)
		t[i] = value
	}
}

// readConfig reads a config file with the limits of SPEC §2 "Unreadable config" and returns its
// object (numbers as json.Number, as written).
func readConfig(file string) (map[string]any, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, configError("config: cannot read %s: %v", file, err)
	}
	defer f.Close()
	// At most configMaxBytes + 1 bytes, so a huge file (or a device) is never read whole.
	data, err := io.ReadAll(io.LimitReader(f, configMaxBytes+1))
	if err != nil {
		return nil, configError("config: cannot read %s: %v", file, err)
	}
	return parseConfig(file, data)
}

func parseConfig(file string, data []byte) (map[string]any, error) {
	if len(data) > configMaxBytes {
		return nil, configError("config: %s is larger than %d bytes", file, configMaxBytes)
	}
	// utf8.Valid refuses overlong forms, encoded surrogates, code points above U+10FFFF and a
	// cut sequence: never read as U+FFFD.
	if !utf8.Valid(data) {
		return nil, configError("config: %s is not UTF-8", file)
	}
	if deeperThanLimit(data) {
		return nil, configError("config: %s is nested deeper than %d levels", file, configMaxDepth)
	}
	// json.Valid is RFC 8259 (no BOM, comments, NaN, single quotes, text after the value), but
	// encoding/json turns "\u0000"-free bad escapes of surrogates into U+FFFD silently, so the
	// raw text's escapes are checked too.
	if !json.Valid(data) {
		return nil, configError("config: %s is not valid JSON", file)
	}
	if problem := badEscape(data); problem != "" {
		return nil, configError("config: %s is not valid JSON: a string holds %s", file, problem)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value any
	if err := dec.Decode(&value); err != nil {
		return nil, configError("config: %s is not valid JSON: %v", file, err)
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, configError("config: %s must hold a JSON object", file)
	}
	return obj, nil
}

// deeperThanLimit counts the nesting of JSON text before parsing; brackets inside strings do not
// count.
func deeperThanLimit(data []byte) bool {
	depth := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > configMaxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// badEscape finds a string escaping U+0000 or an unpaired surrogate in (valid) JSON text.
func badEscape(data []byte) string {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			inString = c == '"'
			continue
		}
		if c == '"' {
			inString = false
			continue
		}
		if c != '\\' {
			continue
		}
		i++
		if data[i] != 'u' {
			continue
		}
		u, _ := strconv.ParseUint(string(data[i+1:i+5]), 16, 16)
		i += 4
		switch {
		case u == 0:
			return `\u0000`
		case u >= 0xDC00 && u <= 0xDFFF:
			return "an unpaired surrogate"
		case u >= 0xD800 && u <= 0xDBFF:
			if i+6 < len(data) && data[i+1] == '\\' && data[i+2] == 'u' {
				low, _ := strconv.ParseUint(string(data[i+3:i+7]), 16, 16)
				if low >= 0xDC00 && low <= 0xDFFF {
					i += 6
					continue
				}
			}
			return "an unpaired surrogate"
		}
	}
	return ""
}

// Endpoint is one {policy, mode} pair.
type Endpoint struct {
	Policy string `json:"policy"`
	Mode   string `json:"mode"`
}

// ServerConfig is the server config of SPEC §3, defaults filled in.
type ServerConfig struct {
	Host             string   `json:"host"`
	Port             int      `json:"port"`
	Signals          int      `json:"signals"`
	UpdateIntervalMs int      `json:"update_interval_ms"`
	Writes           int      `json:"writes"`
	Nodesets         []string `json:"nodesets"`
	Security         struct {
		Endpoints           []Endpoint `json:"endpoints"`
		Certificate         *string    `json:"certificate"`
		PrivateKey          *string    `json:"private_key"`
		ApplicationURI      string     `json:"application_uri"`
		TrustedCertificates []string   `json:"trusted_certificates"`
	} `json:"security"`
}

// ClientConfig is the client config of SPEC §3, defaults filled in; Raw is it as a JSON object
// for the result record.
type ClientConfig struct {
	Endpoint string `json:"endpoint"`
	Workload string `json:"workload"`
	Security struct {
		Policy         string  `json:"policy"`
		Mode           string  `json:"mode"`
		Certificate    *string `json:"certificate"`
		PrivateKey     *string `json:"private_key"`
		ApplicationURI string  `json:"application_uri"`
	} `json:"security"`
	Sessions             int      `json:"sessions"`
	WarmupS              float64  `json:"warmup_s"`
	DurationS            float64  `json:"duration_s"`
	Verify               bool     `json:"verify"`
	TimelineMs           int      `json:"timeline_ms"`
	Reconnect            bool     `json:"reconnect"`
	RequestTimeoutMs     *int     `json:"request_timeout_ms"`
	Nodes                []string `json:"nodes"`
	NodesPerRequest      int      `json:"nodes_per_request"`
	InFlight             int      `json:"in_flight"`
	Rate                 *float64 `json:"rate"`
	ThinkMs              float64  `json:"think_ms"`
	RecordLatencies      bool     `json:"record_latencies"`
	Subscriptions        int      `json:"subscriptions"`
	PublishingIntervalMs float64  `json:"publishing_interval_ms"`
	SamplingIntervalMs   float64  `json:"sampling_interval_ms"`
	QueueSize            int      `json:"queue_size"`

	Raw map[string]any `json:"-"`
}

func decodeInto(config map[string]any, target any) error {
	data, err := json.Marshal(config)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, target)
}

func requireReadable(key, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return configError("config: key '%s': cannot read %s: %v", key, file, err)
	}
	return f.Close()
}

func serverConfig(raw map[string]any) (*ServerConfig, error) {
	filled, err := checkConfig("server", raw)
	if err != nil {
		return nil, err
	}
	var c ServerConfig
	if err := decodeInto(filled, &c); err != nil {
		return nil, configError("config: %v", err)
	}
	if c.Security.Certificate != nil {
		if err := requireReadable("security.certificate", *c.Security.Certificate); err != nil {
			return nil, err
		}
	}
	if c.Security.PrivateKey != nil {
		if err := requireReadable("security.private_key", *c.Security.PrivateKey); err != nil {
			return nil, err
		}
	}
	for i, file := range c.Security.TrustedCertificates {
		if err := requireReadable(fmt.Sprintf("security.trusted_certificates[%d]", i), file); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func clientConfig(raw map[string]any) (*ClientConfig, error) {
	filled, err := checkConfig("client", raw)
	if err != nil {
		return nil, err
	}
	c := ClientConfig{Raw: filled}
	if err := decodeInto(filled, &c); err != nil {
		return nil, configError("config: %v", err)
	}
	if c.Security.Policy != "None" {
		if err := requireReadable("security.certificate", *c.Security.Certificate); err != nil {
			return nil, err
		}
		if err := requireReadable("security.private_key", *c.Security.PrivateKey); err != nil {
			return nil, err
		}
	}
	// SPEC §3: the think time belongs to the closed loop; an open loop sends at fixed times.
	if c.ThinkMs > 0 && c.Rate != nil {
		return nil, configError("config: key 'think_ms' is the closed loop's wait between a response and the next request; it cannot be %g with a rate (open loop)", c.ThinkMs)
	}
	return &c, nil
}
