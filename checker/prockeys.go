package checker

// procKeyPos maps a process and a key to a record position, packing a
// process in [0, 2^40) and one of the first 2^24 keys into a uint64;
// others go to an ordinary map. The zero value is ready.
type procKeyPos struct {
	ids    map[string]uint64 // key -> its id
	packed map[uint64]int    // process<<24 | key id -> position
	rest   map[procKey]int
}

const (
	pkKeyBits  = 24
	pkProcBits = 40
)

// pack is the packed name of process p and key k, if they fit (and k has
// an id, or add).
func (m *procKeyPos) pack(p int, k string, add bool) (uint64, bool) {
	if p < 0 || p >= 1<<pkProcBits {
		return 0, false
	}
	id, ok := m.ids[k]
	if !ok {
		if !add || len(m.ids) >= 1<<pkKeyBits {
			return 0, false
		}
		if m.ids == nil {
			m.ids, m.packed = map[string]uint64{}, map[uint64]int{}
		}
		id = uint64(len(m.ids))
		m.ids[k] = id
	}
	return uint64(p)<<pkKeyBits | id, true
}

// set maps process p and key k to pos.
func (m *procKeyPos) set(p int, k string, pos int) {
	if x, ok := m.pack(p, k, true); ok {
		m.packed[x] = pos
		return
	}
	if m.rest == nil {
		m.rest = map[procKey]int{}
	}
	m.rest[procKey{p, k}] = pos
}

// get is the position of process p and key k, if set.
func (m *procKeyPos) get(p int, k string) (int, bool) {
	if x, ok := m.pack(p, k, false); ok {
		pos, found := m.packed[x]
		return pos, found
	}
	pos, found := m.rest[procKey{p, k}]
	return pos, found
}
