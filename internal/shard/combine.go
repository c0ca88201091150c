package shard

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// ErrMerge marks inputs that cannot be merged: mixed works, different
// settings, shards given twice or missing.
var ErrMerge = errors.New("merge")

// Work is the union of every shard of one work.
type Work struct {
	Kind, Name string
	// N is the number of shards; Total the number of items of the work.
	N, Total int
	// Key is the shards' common key.
	Key []byte
	// Items are the finished items of all shards, by Index; Roots[i] is
	// the store root Items[i] came from.
	Items []Item
	Roots []string
	// Interrupted is set when some shard stopped before its items ran.
	Interrupted bool
	// Started is the earliest shard's start; Elapsed the longest shard's
	// run (the machines ran side by side).
	Started time.Time
	Elapsed time.Duration
	// Manifests are the shards, by K.
	Manifests []*Manifest
}

// Combine checks that ms are every shard of one work, each once, with
// the same key, and unites their items. The error wraps ErrMerge and is
// one line saying what is wrong (which shards are missing).
func Combine(ms []*Manifest) (*Work, error) {
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: no shard manifest (shards/*.json) in the folders given: were they written by catalog, sweep or run --runs with --shard K/N?", ErrMerge)
	}
	first := ms[0]
	w := &Work{Kind: first.Kind, Name: first.Name, N: first.N, Total: first.Total, Key: first.Key, Started: first.Started}
	byK := map[int]*Manifest{}
	for _, m := range ms {
		switch {
		case m.Kind != first.Kind || m.Name != first.Name:
			return nil, fmt.Errorf("%w: the folders hold different works (%s in %s, %s in %s): merge the shards of one work at a time", ErrMerge, first.Label(), first.Root, m.Label(), m.Root)
		case m.N != first.N:
			return nil, fmt.Errorf("%w: %s: shard %s in %s and shard %s in %s split the work differently (N %d and %d)", ErrMerge, m.Label(), first.Shard(), first.Root, m.Shard(), m.Root, first.N, m.N)
		case m.Total != first.Total || !m.SameKey(first):
			return nil, fmt.Errorf("%w: %s: shard %s in %s and shard %s in %s ran with different settings (%s)", ErrMerge, m.Label(), first.Shard(), first.Root, m.Shard(), m.Root, keyDiff(first, m))
		}
		if o, dup := byK[m.K]; dup {
			return nil, fmt.Errorf("%w: %s: shard %s is given twice (%s and %s)", ErrMerge, m.Label(), m.Shard(), o.Root, m.Root)
		}
		byK[m.K] = m
	}
	var missing []string
	for k := 0; k < w.N; k++ {
		if byK[k] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", k, w.N))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s: shard %s missing (%d of %d given): without them the merged verdict cannot be valid", ErrMerge, first.Label(), strings.Join(missing, ", "), len(byK), w.N)
	}
	type located struct {
		Item
		root string
	}
	var all []located
	seen := map[int]string{}
	for k := 0; k < w.N; k++ {
		m := byK[k]
		w.Manifests = append(w.Manifests, m)
		w.Interrupted = w.Interrupted || m.Interrupted
		if m.Started.Before(w.Started) {
			w.Started = m.Started
		}
		w.Elapsed = max(w.Elapsed, m.Elapsed)
		for _, it := range m.Items {
			if it.Index < 0 || it.Index >= w.Total || !m.Shard().Owns(it.Index) {
				return nil, fmt.Errorf("%w: %s: shard %s in %s lists item %d, which is not its share", ErrMerge, m.Label(), m.Shard(), m.Root, it.Index)
			}
			if r, dup := seen[it.Index]; dup {
				return nil, fmt.Errorf("%w: %s: item %d is in %s and in %s", ErrMerge, m.Label(), it.Index, r, m.Root)
			}
			seen[it.Index] = m.Root
			all = append(all, located{it, m.Root})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Index < all[j].Index })
	for _, l := range all {
		w.Items = append(w.Items, l.Item)
		w.Roots = append(w.Roots, l.root)
	}
	return w, nil
}

// Complete reports whether every item of the work finished.
func (w *Work) Complete() bool { return len(w.Items) == w.Total }
