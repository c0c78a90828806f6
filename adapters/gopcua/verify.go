// Value verification of SPEC §4 (rule R5 of §3): a returned Variant's built-in type, array-ness
// and contents. Reasons are "" when the value is right.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/gopcua/opcua/ua"
)

var (
	pageValues  = page()
	sddValues   = sdd()
	imageValues = image()
	arrayValues = map[string][]float64{"Array_10": doubleArray(10), "Array_10000": doubleArray(10000)}
)

// describeVariant is a returned Variant in a failure message: its type and value, at most 60
// characters.
func describeVariant(v *ua.Variant) string {
	if v == nil {
		return "no value"
	}
	var text string
	typ := strings.TrimPrefix(v.Type().String(), "TypeID")
	switch x := v.Value().(type) {
	case []byte:
		text = fmt.Sprintf("%s[%d]", typ, len(x))
	case []int16:
		text = fmt.Sprintf("%s[%d]", typ, len(x))
	case []float64:
		text = fmt.Sprintf("%s[%d]", typ, len(x))
	default:
		text = fmt.Sprintf("%s %v", typ, x)
	}
	if len(text) > 60 {
		text = text[:57] + "..."
	}
	return text
}

func isArray(v *ua.Variant) bool { return v.Has(ua.VariantArrayValues) }

// gopcua names its StatusCodes in Go's style (StatusBadNodeIDUnknown); these are the only
// spellings that differ from OPC 10000-6's names (BadNodeIdUnknown).
var opcuaSpelling = strings.NewReplacer("ID", "Id", "URI", "Uri", "URL", "Url", "TCP", "Tcp")

// statusName is a StatusCode's OPC UA name, as SPEC §3 shows it in a failure
// ("read-back of Write_3: BadNodeIdUnknown"); gopcua's Error() is its description first.
func statusName(code ua.StatusCode) string {
	if d, ok := ua.StatusCodes[code]; ok {
		return opcuaSpelling.Replace(strings.TrimPrefix(d.Name, "Status"))
	}
	return fmt.Sprintf("0x%08X", uint32(code))
}

func signalProblem(node string, index int, v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) || v != math.Trunc(v) || v < 0 || v >= 1<<24 ||
		int(v)/tickModulus != index%signalIndexModulus {
		return fmt.Sprintf("%s: got %v, expected tick-encoded Float for index %d", node, v, index)
	}
	return ""
}

// verifyValue is "" when v is what the standard address space holds at node, else the reason.
func verifyValue(node string, v *ua.Variant) string {
	if v == nil {
		return node + ": no value"
	}
	if i := signalIndex(node); i >= 0 {
		f, ok := v.Value().(float32)
		if !ok || isArray(v) {
			return fmt.Sprintf("%s: got %s, expected tick-encoded Float for index %d", node, describeVariant(v), i)
		}
		return signalProblem(node, i, float64(f))
	}
	switch node {
	case "Tick":
		if _, ok := v.Value().(uint32); !ok || isArray(v) {
			return fmt.Sprintf("Tick: got %s, expected UInt32", describeVariant(v))
		}
	case "Real":
		if f, ok := v.Value().(float32); !ok || isArray(v) || f != realValue {
			return fmt.Sprintf("Real: got %s, expected Float %v", describeVariant(v), realValue)
		}
	case "Page":
		a, ok := v.Value().([]int16)
		if !ok || v.Type() != ua.TypeIDInt16 || !equalSlices(a, pageValues) {
			return fmt.Sprintf("Page: got %s, expected Int16[%d] pattern", describeVariant(v), pageLength)
		}
	case "SDD", "Image":
		want := sddValues
		if node == "Image" {
			want = imageValues
		}
		b, ok := v.Value().([]byte)
		if !ok || v.Type() != ua.TypeIDByteString || isArray(v) || !bytes.Equal(b, want) {
			return fmt.Sprintf("%s: got %s, expected %d-byte pattern", node, describeVariant(v), len(want))
		}
	default:
		if want, ok := arrayValues[node]; ok {
			a, ok := v.Value().([]float64)
			if !ok || !isArray(v) || !equalSlices(a, want) {
				return fmt.Sprintf("%s: got %s, expected Double[%d] of k + 0.5", node, describeVariant(v), len(want))
			}
			return ""
		}
		if strings.HasPrefix(node, "Write_") {
			if _, ok := v.Value().(float64); !ok || isArray(v) {
				return fmt.Sprintf("%s: got %s, expected Double", node, describeVariant(v))
			}
			return ""
		}
		return node + ": not a node of the standard address space"
	}
	return ""
}

func equalSlices[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// verifyNumber judges a number as the value of node, for the vectors of values.json: as the
// Variant a server sends for it (Float for a Signal or Real, UInt32 for Tick, Double for Write).
func verifyNumber(node string, n json.Number) string {
	f, _ := n.Float64()
	switch {
	case signalIndex(node) >= 0:
		return signalProblem(node, signalIndex(node), f)
	case node == "Tick":
		i, err := n.Int64()
		if err != nil || i < 0 || i > math.MaxUint32 {
			return "Tick: got " + n.String() + ", expected UInt32"
		}
		return verifyValue(node, ua.MustVariant(uint32(i)))
	case node == "Real":
		return verifyValue(node, ua.MustVariant(float32(f)))
	default:
		return verifyValue(node, ua.MustVariant(f))
	}
}
