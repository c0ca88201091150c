package checker

import (
	"cmp"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// counterCut follows the counter's critical sections record by record, so
// that the cutter cuts only where the value carried into the next segment
// is exact, and finds the later sections that must share a segment with
// an earlier section of unknown outcome.
//
// A segment after a cut starts from one value per key, the one left by
// the section surely last before the cut. A cut is exact for a key when
// exactly one section may be linearized last and it determines the value
// (its acknowledged write, else its read), no section with unknown
// outcome read that value, and no blind write with unknown outcome wrote
// a value that such a section read. A key without sections carries "any
// value", as in the whole check.
//
// A section with unknown outcome may still be linearized later, once the
// counter is back at the value it read, and a blind write with unknown
// outcome may supply its value to any later read: a later section that
// reads or writes the read of the one, or reads the value of the other,
// must share its segment (see refers).
type counterCut struct {
	reads   map[int]*sectionInput // process -> its read in flight or read ok awaiting its write (hasRead)
	writes  map[int]*sectionInput // process -> its write in flight
	keys    map[string]*keyTail
	inexact int // keys whose carry is not exact
	// the carry of version, rebuilt when a tail changes
	version, builtAt int
	built            []*sectionInput
	changed          int64 // time of the record that last changed a tail
}

// keyTail is what one counter key's sections so far leave for a cut.
type keyTail struct {
	maxCall int64
	last    []*sectionInput // sections that may be linearized last (certain outcomes)
	lastOK  *sectionInput   // the latest-returning acknowledged write
	// the read of each section, the value of each blind write, with
	// unknown outcome -> the position of the earliest
	infoReads, blindWrites map[int64]int
	chain                  bool // a blind unknown write wrote a value an unknown section read
	exact                  bool
}

func newCounterCut() *counterCut {
	return &counterCut{reads: map[int]*sectionInput{}, writes: map[int]*sectionInput{}, keys: map[string]*keyTail{}, builtAt: -1}
}

// add takes client record r at position i and returns the earliest
// position of an earlier section it must share a segment with, or -1.
func (c *counterCut) add(i int, r *history.Op) int {
	p := r.Process
	if r.Type == history.Invoke {
		if r.F != history.FWrite {
			c.flush(p, r.Time)
			if r.F != history.FRead {
				return -1 // sections are reads and writes
			}
		}
		s := &sectionInput{key: r.Key, process: p, call: r.Time, first: i, ops: append(make([]int64, 0, 4), r.Index)} // a read section grows to 4
		if r.F == history.FRead {
			c.reads[p] = s
			return -1
		}
		s.hasW, s.write = true, r.Value
		if rd := c.reads[p]; rd != nil { // its read ok: one section
			delete(c.reads, p)
			s.hasRead, s.read, s.call, s.first, s.ops = true, rd.read, rd.call, rd.first, append(rd.ops, r.Index)
			s.key = cmp.Or(s.key, rd.key)
		}
		c.writes[p] = s
		return -1
	}
	switch r.F {
	case history.FRead:
		rd := c.reads[p]
		if rd == nil || r.Type != history.OK {
			delete(c.reads, p)
			return -1
		}
		rd.key = cmp.Or(r.Key, rd.key)
		rd.hasRead, rd.read, rd.ret, rd.ops = true, r.Value, r.Time, append(rd.ops, r.Index)
		return c.refers(rd.key, rd.read, true)
	case history.FWrite:
		s := c.writes[p]
		if s == nil {
			return -1
		}
		delete(c.writes, p)
		s.key = cmp.Or(r.Key, s.key)
		s.write = cmp.Or(r.Value, s.write)
		s.ops = append(s.ops, r.Index)
		s.ret, s.out = r.Time, outOf(r.Type)
		if s.out == outInfo {
			s.ret = Inf
		}
		to := -1
		if s.out != outFail {
			to = c.refers(s.key, s.write, false)
		}
		if s.hasRead { // the read counts under the section's key
			if j := c.refers(s.key, s.read, true); j >= 0 && (to < 0 || j < to) {
				to = j
			}
		}
		c.addSection(s, r.Time)
		return to
	}
	return -1
}

// flush ends process p's read-only section, if any, at time t.
func (c *counterCut) flush(p int, t int64) {
	if rd := c.reads[p]; rd != nil && rd.hasRead {
		delete(c.reads, p)
		rd.out = outOK
		c.addSection(rd, t)
	}
}

// refers is the earliest position of an earlier section with unknown
// outcome that a read (or write) of v on key must share a segment with.
func (c *counterCut) refers(key string, v int64, read bool) int {
	t := c.keys[key]
	if t == nil {
		return -1
	}
	to := -1
	if j, ok := t.infoReads[v]; ok {
		to = j
	}
	if j, ok := t.blindWrites[v]; ok && read && (to < 0 || j < to) {
		to = j
	}
	return to
}

// addSection adds a section finished at t to its key's tail.
func (c *counterCut) addSection(s *sectionInput, t int64) {
	k := c.keys[s.key]
	if k == nil {
		k = &keyTail{infoReads: map[int64]int{}, blindWrites: map[int64]int{}}
		c.keys[s.key] = k
		c.inexact++ // not exact until a certain section
	}
	was := k.exact
	k.add(s)
	k.exact = k.isExact()
	switch {
	case was && !k.exact:
		c.inexact++
	case !was && k.exact:
		c.inexact--
	}
	c.version++
	c.changed = t
}

func (k *keyTail) add(s *sectionInput) {
	if s.out == outInfo {
		if s.hasRead {
			if _, ok := k.infoReads[s.read]; !ok {
				k.infoReads[s.read] = s.first
			}
			_, blind := k.blindWrites[s.read]
			k.chain = k.chain || blind
		} else {
			if _, ok := k.blindWrites[s.write]; !ok {
				k.blindWrites[s.write] = s.first
			}
			_, read := k.infoReads[s.write]
			k.chain = k.chain || read
		}
		return
	}
	if s.call > k.maxCall {
		k.maxCall = s.call
		k.last = slices.DeleteFunc(k.last, func(o *sectionInput) bool { return o.ret < k.maxCall })
	}
	if s.ret >= k.maxCall {
		k.last = append(k.last, s)
	}
	if s.hasW && s.out == outOK && (k.lastOK == nil || s.ret >= k.lastOK.ret) {
		k.lastOK = s
	}
}

// value is the value the section leaves, if it determines one.
func (s *sectionInput) value() (int64, bool) {
	switch {
	case s.hasW && s.out == outOK:
		return s.write, true
	case s.hasRead:
		return s.read, true
	}
	return 0, false
}

// isExact reports whether the key's value at a cut now is exact.
func (k *keyTail) isExact() bool {
	if k.chain || len(k.last) != 1 {
		return false
	}
	v, ok := k.last[0].value()
	if !ok {
		return false
	}
	_, unknownRead := k.infoReads[v]
	return !unknownRead
}

// exact reports whether every key's carry is exact and no section is
// under way.
func (c *counterCut) exact() bool {
	return c.inexact == 0 && len(c.writes) == 0 && len(c.reads) == 0
}

// carry is the synthetic sections that start a segment after a cut now,
// one per key in key order, setting its exact value (with the ops and
// process of its last acknowledged write). Valid only when exact.
func (c *counterCut) carry() []*sectionInput {
	if c.builtAt == c.version {
		return c.built
	}
	keys := sortedKeys(c.keys)
	t0 := c.changed - 1 // before every record after the cut
	out := make([]*sectionInput, 0, len(keys))
	for _, key := range keys {
		k := c.keys[key]
		v, _ := k.last[0].value()
		s := &sectionInput{key: key, hasW: true, out: outOK, call: t0, ret: t0, carried: true, carry: single(v)}
		if w := k.lastOK; w != nil {
			s.process, s.ops, s.write = w.process, w.ops, w.write
		}
		out = append(out, s)
	}
	c.built, c.builtAt = out, c.version
	return out
}
