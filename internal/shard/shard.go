// Package shard splits a campaign's work between machines: `--shard K/N`
// (K from 0) takes item i of the work's stable order when i mod N is K, so
// the N shards make exactly the unsharded work, with the same seeds; each
// leaves a manifest in its store that `lockstorm merge` reads back.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one share of the work: shard K of N. The zero Shard is the
// whole work (not sharded).
type Shard struct {
	K, N int
}

// MaxN bounds N: more machines than this is surely a typo.
const MaxN = 10000

// Parse reads "K/N" with 0 ≤ K < N (K counts from 0, like Kubernetes'
// JOB_COMPLETION_INDEX); "" is the whole work. The error is one line
// naming the flag.
func Parse(s string) (Shard, error) {
	if strings.TrimSpace(s) == "" {
		return Shard{}, nil
	}
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || kerr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("--shard must be K/N, like 0/4 (K counts from 0), got %q", s)
	case n < 1 || n > MaxN:
		return Shard{}, fmt.Errorf("--shard %s: N must be between 1 and %d", s, MaxN)
	case k < 0 || k >= n:
		return Shard{}, fmt.Errorf("--shard %s: K counts from 0 and must be below N (0 ≤ K < %d, like Kubernetes' JOB_COMPLETION_INDEX), got %d", s, n, k)
	}
	return Shard{K: k, N: n}, nil
}

// Set reports whether s is a share rather than the whole work.
func (s Shard) Set() bool { return s.N > 0 }

// String is "K/N", or "" for the whole work.
func (s Shard) String() string {
	if !s.Set() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Owns reports whether item i (0-based, in the work's stable order)
// belongs to the shard: i mod N == K. The whole work owns every item.
func (s Shard) Owns(i int) bool { return !s.Set() || i%s.N == s.K }

// Count is how many of total items the shard owns.
func (s Shard) Count(total int) int {
	if !s.Set() {
		return total
	}
	return (total + s.N - 1 - s.K) / s.N
}
