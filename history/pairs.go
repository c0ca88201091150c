package history

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// Operation is one client operation as a Pairer yields it: its invoke
// record and its completion record (nil for an invoke the history never
// completed). Both pointers are valid until the Pairer's next Add: the
// invoke is the Pairer's copy, the completion the record given to Add.
type Operation struct {
	Invoke, Completion *Op
	// Seq is the invoke's rank among the invokes the Pairer took (0 for
	// the first): sorting by it puts operations in invoke order.
	Seq int
	// InvokeAt is the invoke's position among the records added (0 for
	// the first record given to Add).
	InvokeAt int64
}

// Pairer pairs client invokes with their completions as records arrive: a
// process is single-threaded, so its next completion completes its open
// invoke (nemesis records and FLost notices aside; an invoke while the
// previous one is open leaves that one never completed). The zero Pairer
// is ready to use.
type Pairer struct {
	few    []*openInvoke       // the open invokes while at most fewOpen (a scan beats a map)
	many   map[int]*openInvoke // process -> its open invoke, once more were open
	free   []*openInvoke       // copies to reuse
	given  *openInvoke         // the invoke the last Add returned, freed at the next
	n      int64               // records added
	invSeq int                 // invokes taken
}

const fewOpen = 16

type openInvoke struct {
	op  Op
	seq int
	at  int64
}

// Add takes the next record r. When r completes its process's open
// invoke, it returns that operation; when r is an invoke while its
// process's previous invoke is still open, it returns that previous
// operation, never completed (Completion nil). ok is false otherwise.
func (p *Pairer) Add(r *Op) (o Operation, ok bool) {
	if p.given != nil {
		p.free = append(p.free, p.given)
		p.given = nil
	}
	at := p.n
	p.n++
	if r.IsNemesis() || r.F == FLost {
		return Operation{}, false
	}
	prev, completion := p.take(r.Process), r
	if r.Type == Invoke { // a copy of r, reusing a freed one
		var c *openInvoke
		if n := len(p.free); n > 0 {
			c, p.free = p.free[n-1], p.free[:n-1]
		} else {
			c = &openInvoke{}
		}
		*c, completion = openInvoke{op: *r, seq: p.invSeq, at: at}, nil
		p.invSeq++
		p.put(c)
	}
	if prev == nil {
		return Operation{}, false
	}
	p.given = prev
	return Operation{Invoke: &prev.op, Completion: completion, Seq: prev.seq, InvokeAt: prev.at}, true
}

// take removes process pr's open invoke and returns it, nil if none.
func (p *Pairer) take(pr int) (c *openInvoke) {
	if p.many != nil {
		c = p.many[pr]
		delete(p.many, pr)
	} else if i := slices.IndexFunc(p.few, func(c *openInvoke) bool { return c.op.Process == pr }); i >= 0 {
		c, p.few[i] = p.few[i], p.few[len(p.few)-1]
		p.few = p.few[:len(p.few)-1]
	}
	return c
}

// put makes c its process's open invoke.
func (p *Pairer) put(c *openInvoke) {
	if p.many == nil && len(p.few) == fewOpen {
		p.many = maps.Collect(p.opened())
		p.few = nil
	}
	if p.many != nil {
		p.many[c.op.Process] = c
	} else {
		p.few = append(p.few, c)
	}
}

// opened are the open invokes by process, in no order.
func (p *Pairer) opened() iter.Seq2[int, *openInvoke] {
	return func(yield func(int, *openInvoke) bool) {
		for _, c := range p.few {
			if !yield(c.op.Process, c) {
				return
			}
		}
		for pr, c := range p.many {
			if !yield(pr, c) {
				return
			}
		}
	}
}

// Open is the number of operations in flight.
func (p *Pairer) Open() int { return len(p.few) + len(p.many) }

// Invokes are the invokes of the operations in flight, in no order.
func (p *Pairer) Invokes() iter.Seq[*Op] {
	return func(yield func(*Op) bool) {
		for _, c := range p.opened() {
			if !yield(&c.op) {
				return
			}
		}
	}
}

// Flush returns the operations still in flight, never completed, in
// invoke order, and forgets them.
func (p *Pairer) Flush() []Operation {
	out := make([]Operation, 0, p.Open())
	for _, c := range p.opened() {
		out = append(out, Operation{Invoke: &c.op, Seq: c.seq, InvokeAt: c.at})
	}
	p.few, p.many = nil, nil
	slices.SortFunc(out, func(a, b Operation) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// Pair is one client operation: the record index of its invoke and of its
// completion (-1 when the history never completed it).
type Pair struct {
	Invoke, Completion int
}

// Pairs matches each client invoke with its completion (see Pairer), in
// invoke order. Indices are positions in h.
func Pairs(h History) []Pair {
	out := make([]Pair, 0, len(h)/2)
	put := func(o Operation, completion int) {
		for len(out) <= o.Seq {
			out = append(out, Pair{})
		}
		out[o.Seq] = Pair{Invoke: int(o.InvokeAt), Completion: completion}
	}
	var p Pairer
	for i := range h {
		if o, ok := p.Add(&h[i]); ok {
			c := -1
			if o.Completion != nil {
				c = i
			}
			put(o, c)
		}
	}
	for _, o := range p.Flush() {
		put(o, -1)
	}
	return out
}
