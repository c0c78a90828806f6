// The standard address space of SPEC §4: pure value functions shared by the server (to serve
// the values) and the client (to verify them).
package main

import (
	"strconv"
	"strings"
)

const (
	namespaceURI       = "urn:uabench:model"
	rootObject         = "uabench"
	tickModulus        = 16384
	signalIndexModulus = 1024
	realValue          = float32(1234.5)
	pageLength         = 512
	sddLength          = 20000
	imageLength        = 65535
	sessionStride      = 1e9 // SPEC §3 Write: session s writes s·1e9 + k·nodes_per_request + j
)

// arrays are the Double arrays with element k = k + 0.5, by name.
var arrays = map[string]int{"Array_10": 10, "Array_10000": 10000}

// signal is signal(i, t) of SPEC §4, exact in a Float.
func signal(index int, tick uint64) float32 {
	return float32((index%signalIndexModulus)*tickModulus + int(tick%tickModulus))
}

func page() []int16 {
	values := make([]int16, pageLength)
	for k := range values {
		values[k] = int16((k*37)%65536 - 32768)
	}
	return values
}

func bytePattern(length, factor, offset int) []byte {
	b := make([]byte, length)
	for k := range b {
		b[k] = byte((k*factor + offset) % 256)
	}
	return b
}

func sdd() []byte   { return bytePattern(sddLength, 31, 7) }
func image() []byte { return bytePattern(imageLength, 13, 1) }

func doubleArray(length int) []float64 {
	values := make([]float64, length)
	for k := range values {
		values[k] = float64(k) + 0.5
	}
	return values
}

func writeValue(session, request, nodesPerRequest, position int) float64 {
	return float64(session)*sessionStride + float64(request*nodesPerRequest+position)
}

func writeVerificationValue(pattern, position int) float64 {
	return -float64(100000*pattern+position) - 0.25
}

// requestNodes is the node list of request k: nodes[(k·n + j) mod len(nodes)], j < n.
func requestNodes(nodes []string, k, perRequest int) []int {
	positions := make([]int, perRequest)
	start := (k * perRequest) % len(nodes)
	for j := range positions {
		positions[j] = (start + j) % len(nodes)
	}
	return positions
}

// signalIndex is i of "Signal_i", or -1 for any other name.
func signalIndex(node string) int {
	rest, ok := strings.CutPrefix(node, "Signal_")
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || strconv.Itoa(i) != rest {
		return -1
	}
	return i
}

func carriesTick(node string) bool { return node == "Tick" || signalIndex(node) >= 0 }

// tickStep is SPEC §3 subscribe's rule: the tick gaps and duplicates an item's update with tick
// next adds after one with tick last (both mod 16384).
func tickStep(last, next int) (gaps, duplicates int) {
	step := ((next-last)%tickModulus + tickModulus) % tickModulus
	switch {
	case step == 0:
		return 0, 1
	case step < tickModulus/2:
		return step - 1, 0
	default:
		return 0, 0
	}
}
