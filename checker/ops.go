package checker

import (
	"slices"
	"strconv"

	"github.com/lockstorm/lockstorm/history"
)

// op is one client operation: an invoke and its completion, merged. Fields
// that either record may carry (Key, Token, Fence, Value, TTL, Validity) are
// taken from the completion when it has them, else from the invoke.
type op struct {
	F       string
	Process int
	Inv     int64 // record index of the invoke
	Ret     int64 // record index of the completion, -1 if none
	Call    int64 // invoke time, ns
	// Return is the completion time, or Inf for info and for invokes the
	// history never completed.
	Return int64
	// Done is the completion time even for info (the instant the client
	// gave up waiting), or the last record time if never completed.
	Done     int64
	Type     history.Type // ok, fail or info (info also when never completed)
	Key      string
	Token    string
	Fence    int64
	Value    int64
	TTL      int64
	Validity int64
	Error    string
}

// ops returns h's client operations in invoke order. Nemesis records and
// FLost notifications are skipped; h must have passed Validate.
func ops(h history.History) []op {
	var end int64
	for i := range h {
		end = max(end, h[i].Time)
	}
	pairs := history.Pairs(h)
	out := make([]op, len(pairs))
	for i, p := range pairs {
		r := &h[p.Invoke]
		out[i] = op{
			F: r.F, Process: r.Process, Inv: r.Index, Ret: -1, Call: r.Time, Return: Inf, Done: end,
			Type: history.Info, Key: r.Key, Token: r.Token, Fence: r.Fence, Value: r.Value,
			TTL: r.TTL, Validity: r.Validity,
		}
		if p.Completion >= 0 {
			out[i].complete(&h[p.Completion])
		}
	}
	return out
}

// complete merges the completion record r into o.
func (o *op) complete(r *history.Op) {
	o.Ret, o.Type, o.Done, o.Error = r.Index, r.Type, r.Time, r.Error
	if r.Type != history.Info {
		o.Return = r.Time
	}
	if r.Key != "" {
		o.Key = r.Key
	}
	if r.Token != "" {
		o.Token = r.Token
	}
	if r.Fence != 0 {
		o.Fence = r.Fence
	}
	if r.Value != 0 || r.Type == history.OK && r.F == history.FRead {
		o.Value = r.Value
	}
	if r.TTL != 0 {
		o.TTL = r.TTL
	}
	if r.Validity != 0 {
		o.Validity = r.Validity
	}
}

// indices returns the op's record indices (invoke, and completion if any).
func (o *op) indices() []int64 {
	if o.Ret < 0 {
		return []int64{o.Inv}
	}
	return []int64{o.Inv, o.Ret}
}

// opIndices concatenates and sorts the indices of several ops.
func opIndices(os ...*op) []int64 {
	var out []int64
	for _, o := range os {
		out = append(out, o.indices()...)
	}
	sortInt64(out)
	return out
}

func sortInt64(s []int64) { slices.Sort(s) }

// fillTokens gives lock ops without a Token the token of their process's
// current lease on the same key, and acquires without one a unique
// synthetic token, so that checkers can match releases and extends to
// acquires by token (extends may be recorded by a watchdog under another
// process, so the token, not the process, names a lease).
func fillTokens(os []op) {
	cur := map[procKey]string{}
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FAcquire:
			if o.Token == "" {
				o.Token = syntheticToken(o)
			}
			if o.Type == history.OK {
				cur[procKey{o.Process, o.Key}] = o.Token
			}
		case history.FRelease, history.FExtend:
			if o.Token == "" {
				o.Token = cur[procKey{o.Process, o.Key}]
			}
		}
	}
}

type procKey struct {
	p   int
	key string
}

func syntheticToken(o *op) string {
	return "op#" + strconv.FormatInt(o.Inv, 10)
}
