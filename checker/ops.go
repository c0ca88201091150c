package checker

import (
	"cmp"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/lease"
)

// op is one client operation: an invoke and its completion, merged (the
// completion's fields when it has them, else the invoke's).
type op struct {
	F       string
	Process int
	Inv     int64 // record index of the invoke
	Ret     int64 // record index of the completion, -1 if none
	Call    int64 // invoke time, ns
	Return  int64 // completion time; Inf for info and never completed
	// Done is the completion time even for info, or the last record's
	// time if never completed.
	Done     int64
	Type     history.Type // ok, fail or info (also when never completed)
	Key      string
	Token    string
	Fence    int64
	Value    int64
	TTL      int64
	Validity int64
	Error    string
	Nodes    int // how many nodes answered (0: none named)
	// Lease is the index (into the ops slice) of the acquire whose lease
	// this op acts on (see fillTokens), -1 if none.
	Lease int
}

// ops returns h's client operations in invoke order (h valid).
func ops(h history.History) []op {
	var end int64
	for i := range h {
		end = max(end, h[i].Time)
	}
	pairs := history.Pairs(h)
	out := make([]op, len(pairs))
	for i, p := range pairs {
		out[i] = opOf(&h[p.Invoke], end)
		if p.Completion >= 0 {
			out[i].complete(&h[p.Completion])
		}
	}
	return out
}

// opOf is the op of invoke record r, not completed; end is the last
// record's time.
func opOf(r *history.Op, end int64) op {
	return op{
		F: r.F, Process: r.Process, Inv: r.Index, Ret: -1, Call: r.Time, Return: Inf, Done: end,
		Type: history.Info, Key: r.Key, Token: r.Token, Fence: r.Fence, Value: r.Value,
		TTL: r.TTL, Validity: r.Validity, Nodes: len(r.Nodes), Lease: -1,
	}
}

// complete merges the completion record r into o.
func (o *op) complete(r *history.Op) {
	o.Ret, o.Type, o.Done, o.Error = r.Index, r.Type, r.Time, r.Error
	if r.Type != history.Info {
		o.Return = r.Time
	}
	o.Key, o.Token, o.Fence = cmp.Or(r.Key, o.Key), cmp.Or(r.Token, o.Token), cmp.Or(r.Fence, o.Fence)
	if r.Value != 0 || r.Type == history.OK && r.F == history.FRead {
		o.Value = r.Value
	}
	o.TTL, o.Validity = cmp.Or(r.TTL, o.TTL), cmp.Or(r.Validity, o.Validity)
	if len(r.Nodes) > 0 {
		o.Nodes = len(r.Nodes)
	}
}

// indices returns the op's record indices (invoke, and completion if any).
func (o *op) indices() []int64 { return refOf(o).indices() }

// opIndices concatenates and sorts the indices of several ops.
func opIndices(os ...*op) []int64 {
	var out []int64
	for _, o := range os {
		out = append(out, o.indices()...)
	}
	return sortedIndices(out)
}

// fillTokens gives acquires without a Token a unique synthetic token and
// names each lock op's lease (op.Lease): an acquire's own, or for a
// release or extend the one lease.Matcher names among the acquires ok or
// unknown before it (whose token it takes when it has none).
func fillTokens(os []op) {
	byTok := map[tokKey]int{} // (key, token) -> latest acquire ok/info invoked so far
	m := lease.NewMatcher(func(key, token string) (int, bool) {
		l, ok := byTok[tokKey{key, token}]
		return l, ok
	})
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			o.Token = lease.TokenOr(o.Token, o.Inv)
			o.Lease = i
			if o.Type == history.OK {
				m.Acquired(o.Process, o.Key, o.Token, i)
			}
			if o.Type != history.Fail {
				byTok[tokKey{o.Key, o.Token}] = i
			}
		case history.FRelease, history.FExtend:
			l, tok, ok := m.Match(o.Process, o.Key, o.Token)
			if o.Token = tok; ok {
				o.Lease = l
			}
		}
	}
}

type procKey struct {
	p   int
	key string
}

type tokKey struct{ key, token string }
