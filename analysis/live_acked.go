package analysis

// ackedKeep is how many acknowledged values per key the live counter
// remembers, keeping memory flat (it may then miss an old duplicate).
const ackedKeep = 1 << 16

// ackedValues are the most recent acknowledged values of one key.
type ackedValues struct {
	set   map[int64]bool
	order []int64
}

// add remembers v and reports whether it was new.
func (a *ackedValues) add(v int64) bool {
	if a.set[v] {
		return false
	}
	a.set[v] = true
	a.order = append(a.order, v)
	if len(a.order) >= 2*ackedKeep {
		drop := len(a.order) - ackedKeep
		for _, old := range a.order[:drop] {
			delete(a.set, old)
		}
		a.order = append(a.order[:0:0], a.order[drop:]...)
	}
	return true
}
