package checker

import (
	"hash/maphash"

	"github.com/lockstorm/lockstorm/history"
)

// tokTable is what the streamed checks keep per lock key and token, in
// one table: each token is looked up once per record that names it, and
// costs about 80 bytes (a 16-byte hash in the index, a 48-byte row, no
// pointers for the garbage collector to scan), whatever its length.
//
// Tokens are named by a 128-bit hash of key and token (two seeds): two
// different pairs with the same hash are beyond any history's size to
// happen (for 10^9 tokens, about 10^-21).
type tokTable struct {
	index map[tokHash]uint32 // -> row
	rows  [][]tokRow         // chunks of tokChunk rows (no doubling to copy)
	n     uint32
}

const tokChunk = 1 << 12

// tokRow is one key and token.
type tokRow struct {
	// first is the position + 1 of the first acquire record naming it (0:
	// none), for refTracker.
	first int64
	// ok and info are its first acquire ok and with unknown outcome, for
	// tokenCheck.
	ok, info tokenRef
	// leased is set once a non-failed acquire took it, for liveStream.
	leased bool
}

// tokHash names a key and token.
type tokHash [2]uint64

var tokSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashTok(key, token string) tokHash {
	var out tokHash
	for i, seed := range tokSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(key)
		h.WriteByte(0)
		h.WriteString(token)
		out[i] = h.Sum64()
	}
	return out
}

func newTokTable() *tokTable { return &tokTable{index: map[tokHash]uint32{}} }

// row is the row of key and token, added if new.
func (t *tokTable) row(key, token string) (uint32, *tokRow) {
	h := hashTok(key, token)
	i, ok := t.index[h]
	if !ok {
		i = t.n
		t.n++
		t.index[h] = i
		if int(i/tokChunk) == len(t.rows) {
			t.rows = append(t.rows, make([]tokRow, tokChunk))
		}
	}
	return i, t.at(i)
}

func (t *tokTable) at(i uint32) *tokRow { return &t.rows[i/tokChunk][i%tokChunk] }

// find is the row of key and token, if any.
func (t *tokTable) find(key, token string) (uint32, *tokRow, bool) {
	i, ok := t.index[hashTok(key, token)]
	if !ok {
		return 0, nil, false
	}
	return i, t.at(i), true
}

// tokenRef is an acquire tokenCheck keeps: ok, or with unknown outcome.
type tokenRef struct {
	inv1    int64 // invoke index + 1; 0: none
	ret     int64
	process int32
}

func newTokenRef(o *op) tokenRef { return tokenRef{o.Inv + 1, o.Ret, int32(o.Process)} }

func (r tokenRef) set() bool { return r.inv1 != 0 }

// ref is the acquire as an opRef of type t.
func (r tokenRef) ref(t history.Type) *opRef {
	return &opRef{t, int(r.process), r.inv1 - 1, r.ret}
}
