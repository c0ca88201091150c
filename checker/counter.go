package checker

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/lockstorm/lockstorm/history"
)

// The counter model: a critical section is a read ok followed by a write
// by the same process, checked as an atomic read-modify-write over [read
// invoke, write return]: it takes effect only if the counter holds the
// value read. A write ok sets the value, a failed one leaves the read, an
// info one leaves the read or the written one (Return Inf). A read alone
// is a read-only section, a write alone a blind write. The state is the
// set of values the counter may hold, "any value" at first.
type sectionInput struct {
	key     string
	hasRead bool
	read    int64
	hasW    bool
	write   int64
	out     outcome
	process int
	call    int64
	ret     int64
	ops     []int64 // record indices
	// carried marks the synthetic write starting a segment (see
	// counterCut.carry), which leaves carry
	carried bool
	carry   counterSet
	first   int // the position of its first record (see counterCut)
}

// counterSet is the set of values the counter may hold; beyond len(v)
// it widens to any.
type counterSet struct {
	any bool
	n   uint8
	v   [4]int64
}

func (s counterSet) has(x int64) bool { return s.any || slices.Contains(s.v[:s.n], x) }

func single(x int64) counterSet { return counterSet{n: 1, v: [4]int64{x}} }

func (s counterSet) with(x int64) counterSet {
	if s.any || s.has(x) {
		return s
	}
	if int(s.n) == len(s.v) {
		return counterSet{any: true}
	}
	s.v[s.n] = x
	s.n++
	slices.Sort(s.v[:s.n])
	return s
}

func (s counterSet) String() string {
	if s.any {
		return "any"
	}
	return "{" + joinInts(s.v[:s.n]) + "}"
}

func counterStep(state, input, _ any) (bool, any) {
	s := state.(counterSet)
	in := input.(*sectionInput)
	if in.carried {
		return true, in.carry
	}
	if in.hasRead {
		if !s.has(in.read) {
			return false, s
		}
		s = single(in.read)
	}
	if in.hasW {
		switch in.out {
		case outOK:
			s = single(in.write)
		case outInfo:
			s = s.with(in.write)
		}
	}
	return true, s
}

func counterHash(state any) uint64 {
	s := state.(counterSet)
	if s.any {
		return 1
	}
	h := uint64(s.n)
	for i := 0; i < int(s.n); i++ {
		h = h*0x9E3779B97F4A7C15 ^ uint64(s.v[i])
	}
	return h
}

// counterModel is the counter's porcupine model, partitioned by key.
func counterModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return counterSet{any: true} },
		Step:      counterStep,
		Hash:      counterHash,
		DescribeOperation: func(input, _ any) string {
			in := input.(*sectionInput)
			var b strings.Builder
			fmt.Fprintf(&b, "p%d", in.process)
			if in.hasRead {
				fmt.Fprintf(&b, " read %d", in.read)
			}
			if in.hasW {
				fmt.Fprintf(&b, " write %d -> %s", in.write, in.out)
			}
			return b.String()
		},
		DescribeState:             func(state any) string { return state.(counterSet).String() },
		DescribeOperationMetadata: describeMetadata,
	}
}

// counterSections builds the sections from the read and write ops.
func counterSections(os []op) []*sectionInput {
	var out []*sectionInput
	pending := map[int]*op{} // process -> read ok awaiting its write
	flush := func(p int) {
		if r := pending[p]; r != nil {
			out = append(out, &sectionInput{
				key: r.Key, hasRead: true, read: r.Value, process: p,
				call: r.Call, ret: r.Return, ops: r.indices(),
			})
			delete(pending, p)
		}
	}
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FRead:
			flush(o.Process)
			if o.Type == history.OK {
				pending[o.Process] = o
			}
		case history.FWrite:
			s := &sectionInput{key: o.Key, hasW: true, write: o.Value, out: outOf(o.Type), process: o.Process, call: o.Call, ret: o.Return}
			if r := pending[o.Process]; r != nil {
				delete(pending, o.Process)
				s.hasRead, s.read, s.call = true, r.Value, r.Call
				s.key = cmp.Or(s.key, r.Key)
				s.ops = opIndices(r, o)
			} else {
				s.ops = o.indices()
			}
			out = append(out, s)
		default:
			flush(o.Process)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(pending)) { // in process order: a run repeats its search
		flush(p)
	}
	return out
}

func sectionOps(secs []*sectionInput) []porcupine.Operation {
	out := make([]porcupine.Operation, len(secs))
	for i, s := range secs {
		md := "ops " + joinInts(s.ops)
		out[i] = porcupine.Operation{ClientId: max(s.process, 0), Input: s, Output: s.out, Call: s.call, Return: s.ret, Metadata: md}
	}
	return out
}

// counterPiece runs the counter search on one segment's sections.
func (r *Resource) counterPiece(ctx context.Context, secs []*sectionInput, keep keepMode) piece {
	p := piece{keyedSearch: keyedSearch{valid: Valid}, ops: map[string]int{}}
	for _, s := range secs {
		if !s.carried {
			p.ops[s.key]++
		}
	}
	if len(secs) > 0 {
		p.keyedSearch = searchKeys(ctx, counterModel(), sectionOps(secs), r.Timeout, keep, nil, " on the counter", explainCounter)
	}
	return p
}

// explainCounter names the section porcupine could not place.
func explainCounter(part []porcupine.Operation, timeout time.Duration) (Anomaly, bool) {
	var last *sectionInput // the last acknowledged write placed
	state, c, illegal := unplaced(counterModel(), part, timeout, func(in any) {
		if si := in.(*sectionInput); si.hasW && si.out == outOK {
			last = si
		}
	})
	if !illegal {
		return Anomaly{}, false
	}
	key := part[0].Input.(*sectionInput).key
	var culprit *sectionInput
	if c != nil {
		culprit = c.Input.(*sectionInput)
	}
	a := Anomaly{Kind: "nonlinearizable", Fatal: true}
	if culprit == nil {
		a.Text = fmt.Sprintf("counter %q: critical sections are not linearizable", key)
		return a, true
	}
	a.Ops = slices.Clone(culprit.ops)
	by := ""
	if last != nil {
		a.Ops = append(a.Ops, last.ops...)
		by = fmt.Sprintf(" (last written %d by process %d)", last.write, last.process)
	}
	slices.Sort(a.Ops)
	a.Ops = slices.Compact(a.Ops)
	a.Text = fmt.Sprintf("counter %q: critical section of process %d read %d, but the counter held %s%s: another holder's section interleaved with it",
		key, culprit.process, culprit.read, state.(counterSet), by)
	if !culprit.hasRead {
		a.Text = fmt.Sprintf("counter %q: write of %d by process %d cannot be placed; the counter held %s%s", key, culprit.write, culprit.process, state.(counterSet), by)
	}
	return a, true
}

// joinInts renders record indices as "1,2,3".
func joinInts(xs []int64) string {
	b := make([]byte, 0, 8*len(xs))
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(b)
}
