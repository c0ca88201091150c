package reports

import "github.com/lockstorm/lockstorm/history"

// opLog is every client operation of a run, in invoke order, as the
// latency and rate plots and fencing.png's history fallback read them:
// its type, outcome, invoke and completion times. It is what the report
// keeps per operation, 18 bytes (90 MB for the 5M operations of a
// 10M-record run), so that those plots are drawn exactly, whatever the
// run's length, from the one pass over the history.
type opLog struct {
	types  []string       // operation types (F) by index, in order of appearance
	typeOf map[string]int // F -> index into types
	call   []int64        // invoke time, ns
	done   []int64        // completion time, ns; 0 while open
	kind   []uint16       // type index << 3 | outcome
	open   map[int]int    // process -> index of its open invoke
}

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

func newOpLog() *opLog { return &opLog{typeOf: map[string]int{}, open: map[int]int{}} }

// add follows one record, pairing invokes and completions by process as
// history.Pairs does: a process's next completion completes its open
// invoke; an invoke while one is open leaves that one never completed.
// Nemesis records and lost notices are not operations. It returns the
// index of the operation an invoke opened, else -1.
func (l *opLog) add(o *history.Op) int {
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
		i := len(l.call)
		l.open[o.Process] = i
		l.call = append(l.call, o.Time)
		l.done = append(l.done, 0)
		l.kind = append(l.kind, uint16(t)<<3|outOpen)
		return i
	}
	if i, ok := l.open[o.Process]; ok {
		delete(l.open, o.Process)
		l.done[i] = o.Time
		l.kind[i] = l.kind[i]&^7 | outcomeOf(o.Type)
	}
	return -1
}

// outcomeOf is the outcome of a completion of type t.
func outcomeOf(t history.Type) uint16 {
	switch t {
	case history.OK:
		return outOK
	case history.Fail:
		return outFail
	case history.Info:
		return outInfo
	}
	return outOther
}

// len is the number of operations.
func (l *opLog) len() int { return len(l.call) }

// span is operation i as a span (its record indices and process aside).
func (l *opLog) span(i int) span {
	k := l.kind[i]
	s := span{F: l.types[k>>3], Call: l.call[i], Type: history.Info}
	switch k & 7 {
	case outOpen:
		return s
	case outOK:
		s.Type = history.OK
	case outFail:
		s.Type = history.Fail
	case outOther:
		s.Type = "other"
	}
	s.Done, s.Completed = l.done[i], true
	return s
}

// each calls fn on every operation of type f (every type when f is ""),
// only the completed ones when done is set, in invoke order.
func (l *opLog) each(f string, done bool, fn func(s span)) {
	t, ok := l.typeOf[f]
	if f != "" && !ok {
		return
	}
	for i, k := range l.kind {
		if f != "" && int(k>>3) != t || done && k&7 == outOpen {
			continue
		}
		fn(l.span(i))
	}
}

// present are the operation types with an operation (a completed one when
// done is set), in opOrder.
func (l *opLog) present(done bool) []string {
	seen := make([]bool, len(l.types))
	for _, k := range l.kind {
		if !done || k&7 != outOpen {
			seen[k>>3] = true
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
