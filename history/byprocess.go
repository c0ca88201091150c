package history

import "iter"

// maxDenseProcess bounds the process numbers ByProcess keeps in a slice.
const maxDenseProcess = 1 << 20

// ByProcess maps process numbers to values of T: a slice for the
// non-negative numbers that grow from 0 as a history's processes do (a
// fresh one after each crash), a map for the others (a number far past
// the slice's end, as a part of a long history begins with, stays in the
// map). An absent process reads as T's zero value. The zero ByProcess is
// empty and ready to use.
type ByProcess[T any] struct {
	dense  []T
	sparse map[int]*T
}

// At is process p's slot, made when absent, valid until the next At.
func (m *ByProcess[T]) At(p int) *T {
	if p >= 0 && p < min(2*len(m.dense)+64, maxDenseProcess) {
		if p >= len(m.dense) {
			m.grow(p)
		}
		return &m.dense[p]
	}
	if m.sparse == nil {
		m.sparse = map[int]*T{}
	}
	v := m.sparse[p]
	if v == nil {
		v = new(T)
		m.sparse[p] = v
	}
	return v
}

// grow makes the slice hold p, moving there the map's values it covers.
func (m *ByProcess[T]) grow(p int) {
	m.dense = append(m.dense, make([]T, max(p+1-len(m.dense), len(m.dense)))...)
	for q, v := range m.sparse {
		if q >= 0 && q < len(m.dense) {
			m.dense[q] = *v
			delete(m.sparse, q)
		}
	}
}

// Get is process p's value, the zero value when absent.
func (m *ByProcess[T]) Get(p int) T {
	if p >= 0 && p < len(m.dense) {
		return m.dense[p]
	}
	if v := m.sparse[p]; v != nil {
		return *v
	}
	var zero T
	return zero
}

// All yields every slot made (values may be zero), the slice's in process
// order, then the map's in no order.
func (m *ByProcess[T]) All() iter.Seq2[int, *T] {
	return func(yield func(int, *T) bool) {
		for p := range m.dense {
			if !yield(p, &m.dense[p]) {
				return
			}
		}
		for p, v := range m.sparse {
			if !yield(p, v) {
				return
			}
		}
	}
}
