package checker

import "sort"

// denseMap maps int64 keys to values, made for keys that mostly arrive in
// increasing runs of consecutive integers (counter values, fencing tokens
// of one key): such a run costs one 24-byte entry and its values one slot
// each, not a hash map entry. A key that arrives below the last run goes
// to an ordinary map.
type denseMap[V any] struct {
	runs []denseRun
	vals []V
	rest map[int64]V
}

// denseRun holds keys [lo, lo+n) at vals[base:base+n].
type denseRun struct {
	lo   int64
	n    int32
	base int32
}

// get is the value of key k.
func (m *denseMap[V]) get(k int64) (V, bool) {
	i := sort.Search(len(m.runs), func(i int) bool { return m.runs[i].lo+int64(m.runs[i].n) > k })
	if i < len(m.runs) && m.runs[i].lo <= k {
		r := m.runs[i]
		return m.vals[int(r.base)+int(k-r.lo)], true
	}
	v, ok := m.rest[k]
	return v, ok
}

// set sets key k to v; had says whether k has a value already.
func (m *denseMap[V]) set(k int64, v V, had bool) {
	if !had {
		m.add(k, v)
		return
	}
	i := sort.Search(len(m.runs), func(i int) bool { return m.runs[i].lo+int64(m.runs[i].n) > k })
	if i < len(m.runs) && m.runs[i].lo <= k {
		m.vals[int(m.runs[i].base)+int(k-m.runs[i].lo)] = v
		return
	}
	m.rest[k] = v
}

// add sets key k, which has no value yet, to v.
func (m *denseMap[V]) add(k int64, v V) {
	n := len(m.runs)
	if n > 0 && len(m.vals) < 1<<31-1 {
		last := &m.runs[n-1]
		if end := last.lo + int64(last.n); k == end && last.n < 1<<31-1 {
			last.n++
			m.vals = append(m.vals, v)
			return
		}
	}
	if (n == 0 || k > m.runs[n-1].lo+int64(m.runs[n-1].n)) && len(m.vals) < 1<<31-1 {
		m.runs = append(m.runs, denseRun{lo: k, n: 1, base: int32(len(m.vals))})
		m.vals = append(m.vals, v)
		return
	}
	if m.rest == nil {
		m.rest = map[int64]V{}
	}
	m.rest[k] = v
}
