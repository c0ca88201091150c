package reports

// chunks is an append-only sequence of T kept in chunks of chunkLen: it
// grows without copying and with at most one chunk of room to spare.
type chunks[T any] struct {
	cs [][]T
	n  int
}

// chunkBits sets chunkLen, the entries of a chunk.
const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
)

// add appends v and returns its index.
func (c *chunks[T]) add(v T) int {
	if k := len(c.cs); k == 0 || len(c.cs[k-1]) == chunkLen {
		size := chunkLen
		if k == 0 {
			size = 0 // the first chunk grows as a slice does: a short run takes little
		}
		c.cs = append(c.cs, make([]T, 0, size))
	}
	last := &c.cs[len(c.cs)-1]
	*last = append(*last, v)
	c.n++
	return c.n - 1
}

// at is entry i.
func (c *chunks[T]) at(i int) *T { return &c.cs[i>>chunkBits][i&(chunkLen-1)] }

// len is the number of entries.
func (c *chunks[T]) len() int { return c.n }
