// Latency histograms of SPEC §5: a value's bucket keeps its 8 most significant bits.
package main

import (
	"math/bits"
	"sort"
)

func bucket(v int64) int64 {
	if v < 1 {
		v = 1
	}
	b := bits.Len64(uint64(v))
	if b <= 8 {
		return v
	}
	shift := b - 8
	return (v >> shift) << shift
}

// histogram counts values by bucket; a map of at most a few thousand buckets.
type histogram map[int64]int64

func (h histogram) record(valueNs int64) { h[bucket(valueNs)]++ }

func (h histogram) merge(o histogram) {
	for k, c := range o {
		h[k] += c
	}
}

// sparse is the serialised form [[bucket_ns, count], ...], sorted by value, never null.
func (h histogram) sparse() [][2]int64 {
	out := make([][2]int64, 0, len(h))
	for k, c := range h {
		if c > 0 {
			out = append(out, [2]int64{k, c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
