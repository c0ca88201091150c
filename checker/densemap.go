package checker

import "sort"

// denseMap maps int64 keys to values, for keys that mostly arrive in
// increasing runs of consecutive integers: a run costs one entry, its
// values one slot each in chunks; a key below the last run goes to a map.
type denseMap[V any] struct {
	runs  []denseRun
	vals  [][]V // chunks of denseChunk values; the last may be shorter
	nvals int
	rest  map[int64]V
}

const denseChunk = 1 << 12

// val is the slot of value i.
func (m *denseMap[V]) val(i int) *V { return &m.vals[i/denseChunk][i%denseChunk] }

// push appends value v.
func (m *denseMap[V]) push(v V) {
	if m.nvals == len(m.vals)*denseChunk {
		var c []V // the first chunk grows by doubling, later ones are made whole
		if len(m.vals) > 0 {
			c = make([]V, 0, denseChunk)
		}
		m.vals = append(m.vals, c)
	}
	last := &m.vals[len(m.vals)-1]
	*last = append(*last, v)
	m.nvals++
}

// denseRun holds keys [lo, lo+n) at values base to base+n-1.
type denseRun struct {
	lo   int64
	n    int32
	base int32
}

// slot is the slot of key k's value in a run, nil if k is in none.
func (m *denseMap[V]) slot(k int64) *V {
	i := sort.Search(len(m.runs), func(i int) bool { return m.runs[i].lo+int64(m.runs[i].n) > k })
	if i < len(m.runs) && m.runs[i].lo <= k {
		return m.val(int(m.runs[i].base) + int(k-m.runs[i].lo))
	}
	return nil
}

// get is the value of key k.
func (m *denseMap[V]) get(k int64) (V, bool) {
	if p := m.slot(k); p != nil {
		return *p, true
	}
	v, ok := m.rest[k]
	return v, ok
}

// set sets key k to v; had says whether k has a value already.
func (m *denseMap[V]) set(k int64, v V, had bool) {
	if !had {
		m.add(k, v)
	} else if p := m.slot(k); p != nil {
		*p = v
	} else {
		m.rest[k] = v
	}
}

// add sets key k, which has no value yet, to v.
func (m *denseMap[V]) add(k int64, v V) {
	n := len(m.runs)
	if n > 0 && m.nvals < 1<<31-1 {
		last := &m.runs[n-1]
		if end := last.lo + int64(last.n); k == end && last.n < 1<<31-1 {
			last.n++
			m.push(v)
			return
		}
	}
	if (n == 0 || k > m.runs[n-1].lo+int64(m.runs[n-1].n)) && m.nvals < 1<<31-1 {
		m.runs = append(m.runs, denseRun{lo: k, n: 1, base: int32(m.nvals)})
		m.push(v)
		return
	}
	if m.rest == nil {
		m.rest = map[int64]V{}
	}
	m.rest[k] = v
}
