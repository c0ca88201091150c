package checker

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// Lease is what a history says about one lease, as its holder saw it.
type Lease = lease.Lease

// leaseSet is every lease of a history that was ever held.
type leaseSet struct {
	held []*Lease       // in the order their acquires were invoked
	t    *lease.Tracker // each process's leases (Of)
}

// Leases extracts the leases of h that were ever held, in the order their
// acquires were invoked; drift and factor are subtracted from invoke + TTL
// for a lease without a recorded validity (see lease.Allowance).
func Leases(h history.History, drift time.Duration, factor float64) []*Lease {
	return leasesOf(h, drift, factor).held
}

// leasesOf follows the leases of h with a lease.Tracker.
func leasesOf(h history.History, drift time.Duration, factor float64) *leaseSet {
	t := lease.NewTracker(lease.Options{Drift: drift, DriftFactor: factor})
	s := &leaseSet{t: t}
	take := func(evs []lease.Event) {
		for _, e := range evs {
			if e.Kind == lease.Started {
				s.held = append(s.held, e.Lease)
			}
		}
	}
	for i := range h {
		take(t.Add(&h[i]))
	}
	take(t.Finish())
	slices.SortStableFunc(s.held, func(a, b *Lease) int { return cmp.Compare(a.Invoke, b.Invoke) })
	return s
}

// Interval is a stretch [Start, End] (ns) of one lease.
type Interval struct {
	Lease      *Lease
	Start, End int64
}

// Overlap is two intervals of leases of different processes on one key
// that intersect; A started no later than B.
type Overlap struct {
	Key  string
	A, B Interval
}

// Start is when the overlap began.
func (o Overlap) Start() int64 { return o.B.Start }

// End is when the overlap ended.
func (o Overlap) End() int64 { return min(o.A.End, o.B.End) }

// ValidOverlaps finds every pair of leases of different processes on one
// key whose Valid stretches intersect for a positive time (the exclusion
// checker's "overlap"), by key, then by the later stretch's start.
func ValidOverlaps(ls []*Lease) []Overlap {
	return overlapsOf(ls, func(l *Lease) [][2]int64 { return l.Valid() })
}

// HeldOverlaps is ValidOverlaps over the stretches [Start, HeldUntil]:
// two clients acting as holder at once, whatever their validity said.
func HeldOverlaps(ls []*Lease) []Overlap {
	return overlapsOf(ls, func(l *Lease) [][2]int64 {
		end, _ := l.HeldUntil()
		return [][2]int64{{l.Start(), end}}
	})
}

// overlapsOf sweeps the stretches that span gives each lease, key by key.
func overlapsOf(ls []*Lease, span func(*Lease) [][2]int64) []Overlap {
	byKey := map[string][]Interval{}
	for _, l := range ls {
		for _, s := range span(l) {
			byKey[l.Key] = append(byKey[l.Key], Interval{l, s[0], s[1]})
		}
	}
	var out []Overlap
	for _, k := range sortedKeys(byKey) {
		ivs := byKey[k]
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].Start < ivs[j].Start })
		var active []Interval
		for _, c := range ivs {
			active = slices.DeleteFunc(active, func(a Interval) bool { return a.End <= c.Start })
			for _, a := range active {
				if a.Lease.Process != c.Lease.Process && min(a.End, c.End) > c.Start {
					out = append(out, Overlap{Key: k, A: a, B: c})
				}
			}
			active = append(active, c)
		}
	}
	return out
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// entry is m[k], set to mk() first if absent.
func entry[K comparable, V any](m map[K]*V, k K, mk func() *V) *V {
	v := m[k]
	if v == nil {
		v = mk()
		m[k] = v
	}
	return v
}
