package reports

import (
	"math"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// clientOp is one client operation, its invoke paired with its
// completion; times in ns since the run started.
type clientOp struct {
	F    string
	Proc int
	Inv  int64 // record index of the invoke
	Comp int64 // record index of the completion; meaningless when !Completed
	Call int64 // invoke time
	// Done is the completion time; meaningless when !Completed.
	Done int64
	// Type is the completion's type; Info also when never completed.
	Type      history.Type
	Completed bool
}

// Latency is Done-Call in ns (only meaningful when Completed).
func (s clientOp) Latency() int64 { return s.Done - s.Call }

// clientOps pairs h's client records into operations, in invoke order,
// skipping nemesis records, lost notifications and unpaired completions.
func clientOps(h history.History) []clientOp {
	pairs := history.Pairs(h)
	out := make([]clientOp, len(pairs))
	for i, p := range pairs {
		r := &h[p.Invoke]
		out[i] = clientOp{F: r.F, Proc: r.Process, Inv: r.Index, Call: r.Time, Type: history.Info}
		if p.Completion >= 0 {
			c := &h[p.Completion]
			out[i].Done, out[i].Type, out[i].Completed, out[i].Comp = c.Time, c.Type, true, c.Index
		}
	}
	return out
}

// seconds converts ns to s for plot axes.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// millis converts ns to ms for plot axes.
func millis(ns int64) float64 { return float64(ns) / 1e6 }

// opLog is every client operation's type, outcome and times in invoke
// order, exactly, in 10 bytes each: the step from the previous invoke and
// the latency (far ones in farCall and farDone).
type opLog struct {
	types   []string       // operation types (F) by index, in order of appearance
	typeOf  map[string]int // F -> index into types
	step    chunks[int32]  // invoke time - the previous invoke's, ns; farStep: in farCall
	lat     chunks[uint32] // completion - invoke, ns; farLat: in farDone
	kind    chunks[uint16] // type index << 3 | outcome
	farCall chunks[int64]  // the invoke times of the far steps, in order
	farDone map[int]int64  // operation -> completion time, for the far latencies
	last    int64          // the latest invoke time
	ops     history.Pairer // the open invokes; an operation's Seq is its index
}

// Escapes of opLog.step and opLog.lat.
const (
	farStep = math.MinInt32
	farLat  = math.MaxUint32
)

// Outcomes of an opLog entry.
const (
	outOK    = iota
	outFail  // completed fail
	outInfo  // completed info (unknown outcome)
	outOpen  // never completed (an info, drawn at a cap)
	outOther // completed with a type that is none of those (a malformed record)
)

// maxOpTypes bounds the operation types an opLog tells apart (its kind
// field's 13 bits); any further type is counted as the first one.
const maxOpTypes = 1 << 13

func newOpLog() *opLog {
	return &opLog{typeOf: map[string]int{}, farDone: map[int]int64{}}
}

// add follows one record; it returns the index of the operation an invoke
// opened, else -1.
func (l *opLog) add(o *history.Op) int {
	op, paired := l.ops.Add(o)
	if o.IsNemesis() || o.F == history.FLost {
		return -1
	}
	if o.Type == history.Invoke {
		t, ok := l.typeOf[o.F]
		if !ok && len(l.types) < maxOpTypes {
			t = len(l.types)
			l.typeOf[o.F] = t
			l.types = append(l.types, o.F)
		}
		if d := o.Time - l.last; d > farStep && d <= math.MaxInt32 && l.kind.len() > 0 {
			l.step.add(int32(d))
		} else {
			l.step.add(farStep)
			l.farCall.add(o.Time)
		}
		l.last = o.Time
		l.lat.add(0)
		return l.kind.add(uint16(t)<<3 | outOpen)
	}
	if paired {
		i := op.Seq
		if d := o.Time - op.Invoke.Time; d >= 0 && d < farLat {
			*l.lat.at(i) = uint32(d)
		} else {
			*l.lat.at(i) = farLat
			l.farDone[i] = o.Time
		}
		out := outOther
		if j := slices.Index(outTypes[:outOpen], o.Type); j >= 0 {
			out = j
		}
		k := l.kind.at(i)
		*k = *k&^7 | uint16(out)
	}
	return -1
}

// outTypes are the clientOp types of the outcomes.
var outTypes = [...]history.Type{outOK: history.OK, outFail: history.Fail, outInfo: history.Info, outOpen: history.Info, outOther: "other"}

// len is the number of operations.
func (l *opLog) len() int { return l.kind.len() }

// each calls fn on every operation of type f ("": all), the completed
// ones when done, in invoke order.
func (l *opLog) each(f string, done bool, fn func(i int, s clientOp)) {
	t, ok := l.typeOf[f]
	if f != "" && !ok {
		return
	}
	call, far := int64(0), 0
	for c, ks := range l.kind.cs {
		for j, k := range ks {
			i := c<<chunkBits | j
			if st := *l.step.at(i); st == farStep {
				call, far = *l.farCall.at(far), far+1
			} else {
				call += int64(st)
			}
			if f != "" && int(k>>3) != t || done && k&7 == outOpen {
				continue
			}
			fn(i, l.clientOp(i, call))
		}
	}
}

// clientOp is operation i, invoked at call (ns) (its record
// indices and process aside).
func (l *opLog) clientOp(i int, call int64) clientOp {
	k := *l.kind.at(i)
	s := clientOp{F: l.types[k>>3], Call: call, Type: outTypes[k&7]}
	if k&7 == outOpen {
		return s
	}
	s.Done, s.Completed = call+int64(*l.lat.at(i)), true
	if *l.lat.at(i) == farLat {
		s.Done = l.farDone[i]
	}
	return s
}

// present are the operation types with an operation (a completed one when
// done is set), in opOrder.
func (l *opLog) present(done bool) []string {
	seen := make([]bool, len(l.types))
	for _, ks := range l.kind.cs {
		for _, k := range ks {
			if !done || k&7 != outOpen {
				seen[k>>3] = true
			}
		}
	}
	var out []string
	for t, ok := range seen {
		if ok {
			out = append(out, l.types[t])
		}
	}
	return orderTypes(out)
}

// chunks is an append-only sequence of T kept in chunks of chunkLen: it
// grows without copying and with at most one chunk of room to spare.
type chunks[T any] struct {
	cs [][]T
	n  int
}

// chunkBits sets chunkLen, the entries of a chunk.
const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
)

// add appends v and returns its index.
func (c *chunks[T]) add(v T) int {
	if k := len(c.cs); k == 0 || len(c.cs[k-1]) == chunkLen {
		size := chunkLen
		if k == 0 {
			size = 0 // the first chunk grows as a slice does: a short run takes little
		}
		c.cs = append(c.cs, make([]T, 0, size))
	}
	last := &c.cs[len(c.cs)-1]
	*last = append(*last, v)
	c.n++
	return c.n - 1
}

// at is entry i.
func (c *chunks[T]) at(i int) *T { return &c.cs[i>>chunkBits][i&(chunkLen-1)] }

// len is the number of entries.
func (c *chunks[T]) len() int { return c.n }
