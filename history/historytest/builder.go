// Package historytest builds histories for tests: by hand with a
// Builder (times in milliseconds) and seeded with a Gen (valid lock runs,
// with anomalies injected on demand). It imports only history and the
// standard library, so the tests of every package can use it.
package historytest

import (
	"cmp"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// MS and US are a millisecond and a microsecond in a record's time unit
// (nanoseconds).
const (
	MS = int64(time.Millisecond)
	US = int64(time.Microsecond)
)

// Mod sets a field of a record a Builder appends.
type Mod func(*history.Op)

// TTL sets a record's TTL, in ms.
func TTL(ms int64) Mod { return func(o *history.Op) { o.TTL = ms * MS } }

// Validity sets a record's validity deadline, a time in ms.
func Validity(ms int64) Mod { return func(o *history.Op) { o.Validity = ms * MS } }

// Fence sets a record's fencing token.
func Fence(f int64) Mod { return func(o *history.Op) { o.Fence = f } }

// Value sets a record's value.
func Value(v int64) Mod { return func(o *history.Op) { o.Value = v } }

// Err sets a record's error text.
func Err(s string) Mod { return func(o *history.Op) { o.Error = s } }

// Client sets a record's client slot.
func Client(slot string) Mod { return func(o *history.Op) { o.Client = slot } }

// Nodes sets a record's nodes.
func Nodes(ns ...string) Mod { return func(o *history.Op) { o.Nodes = ns } }

// Clients sets a nemesis record's client slots.
func Clients(cs ...string) Mod { return func(o *history.Op) { o.Clients = cs } }

// Fault sets a record's fault kind.
func Fault(kind string) Mod { return func(o *history.Op) { o.Fault = kind } }

// Detail sets a record's detail text.
func Detail(s string) Mod { return func(o *history.Op) { o.Detail = s } }

// Builder appends records numbered in the order appended.
type Builder struct{ h history.History }

// New returns an empty Builder.
func New() *Builder { return new(Builder) }

// Add appends one record at t ms: type typ by process p of f on key
// with token tok, then mods.
func (b *Builder) Add(t int64, typ history.Type, p int, f, key, tok string, mods ...Mod) *Builder {
	o := history.Op{Time: t * MS, Type: typ, Process: p, F: f, Key: key, Token: tok}
	for _, m := range mods {
		m(&o)
	}
	return b.Append(o)
}

// Op appends an invoke at t0 ms and its completion of type typ at t1 ms,
// both with tok and mods.
func (b *Builder) Op(t0, t1 int64, typ history.Type, p int, f, key, tok string, mods ...Mod) *Builder {
	b.Add(t0, history.Invoke, p, f, key, tok, mods...)
	return b.Add(t1, typ, p, f, key, tok, mods...)
}

// Nemesis appends one nemesis record at t ms: f (start or stop) of the
// fault kind, of type typ, then mods.
func (b *Builder) Nemesis(t int64, typ history.Type, f, kind string, mods ...Mod) *Builder {
	return b.Add(t, typ, history.NemesisProcess, f, "", "", append([]Mod{Fault(kind)}, mods...)...)
}

// Start appends the start of a fault kind: its invoke at t ms and its
// completion of type typ 1 ms later, both with mods.
func (b *Builder) Start(t int64, typ history.Type, kind string, mods ...Mod) *Builder {
	b.Nemesis(t, history.Invoke, history.FStart, kind, mods...)
	return b.Nemesis(t+1, typ, history.FStart, kind, mods...)
}

// Stop appends the stop of a fault kind: its invoke at t ms and its ok
// 1 ms later, both with mods.
func (b *Builder) Stop(t int64, kind string, mods ...Mod) *Builder {
	b.Nemesis(t, history.Invoke, history.FStop, kind, mods...)
	return b.Nemesis(t+1, history.OK, history.FStop, kind, mods...)
}

// Append appends records as they are (times in ns), numbering them.
func (b *Builder) Append(ops ...history.Op) *Builder {
	for _, o := range ops {
		o.Index = int64(len(b.h))
		b.h = append(b.h, o)
	}
	return b
}

// Last is the index of the last record appended.
func (b *Builder) Last() int64 { return int64(len(b.h)) - 1 }

// Len is the number of records appended.
func (b *Builder) Len() int { return len(b.h) }

// History is the records in the order appended.
func (b *Builder) History() history.History { return b.h }

// Sorted is a copy of the records ordered by time and renumbered.
func (b *Builder) Sorted() history.History { return Sorted(b.h) }

// At is a history of one record per time in ms, record i at times[i]:
// an ok write of process 0, for tests that read records' times by index.
func At(times ...int64) history.History {
	b := New()
	for _, t := range times {
		b.Add(t, history.OK, 0, history.FWrite, "", "")
	}
	return b.History()
}

// Sorted is a copy of h ordered by time (records at the same time keep
// their order) and renumbered.
func Sorted(h history.History) history.History {
	h = slices.Clone(h)
	slices.SortStableFunc(h, func(a, b history.Op) int { return cmp.Compare(a.Time, b.Time) })
	for i := range h {
		h[i].Index = int64(i)
	}
	return h
}
