package checker

import (
	"hash/maphash"
	"math"

	"github.com/lockstorm/lockstorm/history"
)

// tokTable is what the streamed checks keep per lock key and token, in
// one table: about 60 bytes a token whatever its length (a 48-byte row
// holding its hash, an 8-byte slot of an open-addressed index at least a
// quarter empty; no pointers to scan). A slot holds 32 bits of the hash
// besides its row, so probing past other slots reads no row. Tokens are
// named by a 128-bit hash of key and token (two seeds): a collision is
// beyond any history's size (about 10^-21 for 10^9 tokens).
type tokTable struct {
	slots []uint64   // fingerprint<<32 | row + 1 (0: empty), at hash[0] mod len or after it (linear probing); len a power of 2
	rows  [][]tokRow // chunks of tokChunk rows (no doubling to copy)
	n     uint32
	// scratch holds key, 0, token while they are hashed
	scratch []byte
	// rare holds what a row has no room for: by 2·row its first acquire ok
	// when okDRet cannot hold it, by 2·row+1 its first unknown acquire
	rare map[uint32]tokenRef
}

const tokChunk = 1 << 12

// tokRow is one key and token (48 bytes).
type tokRow struct {
	hash tokHash // its name, for the index
	// first is the position + 1 of the first acquire record naming it (0:
	// none), for refTracker.
	first int64
	// its first acquire ok, for tokenCheck: invoke index + 1 (0: none),
	// completion − invoke index, process; its first unknown acquire is in
	// tokTable.rare (hasInfo).
	okInv1  int64
	okDRet  int32
	okProc  int32
	hasInfo bool
	// leased is set once a non-failed acquire took it, for liveStream.
	leased bool
}

// tokHash names a key and token.
type tokHash [2]uint64

var tokSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// hash is the name of key and token, hashed from scratch bytes (one
// call of the runtime's hash per seed: a maphash.Hash fed piece by piece
// cost twice as much).
func (t *tokTable) hash(key, token string) tokHash {
	b := append(append(append(t.scratch[:0], key...), 0), token...)
	t.scratch = b
	return tokHash{maphash.Bytes(tokSeeds[0], b), maphash.Bytes(tokSeeds[1], b)}
}

func newTokTable() *tokTable {
	return &tokTable{slots: make([]uint64, 1<<10), rare: map[uint32]tokenRef{}}
}

// firstOK is the first acquire ok of row i, if any.
func (t *tokTable) firstOK(i uint32) (tokenRef, bool) {
	r := t.at(i)
	switch {
	case r.okInv1 == 0:
		return tokenRef{}, false
	case r.okDRet == far:
		return t.rare[2*i], true
	}
	ret := int64(-1)
	if r.okDRet >= 0 {
		ret = r.okInv1 - 1 + int64(r.okDRet)
	}
	return tokenRef{r.okInv1, ret, r.okProc}, true
}

// far marks an okDRet that did not fit.
const far = math.MinInt32

func (t *tokTable) setFirstOK(i uint32, o *op) {
	r := t.at(i)
	r.okInv1, r.okProc, r.okDRet = o.Inv+1, int32(o.Process), -1
	if o.Ret >= 0 {
		if d := o.Ret - o.Inv; d <= math.MaxInt32 {
			r.okDRet = int32(d)
		} else {
			r.okDRet = far
			t.rare[2*i] = newTokenRef(o)
		}
	}
}

// firstInfo is the first acquire with unknown outcome of row i, if any.
func (t *tokTable) firstInfo(i uint32) (tokenRef, bool) {
	if !t.at(i).hasInfo {
		return tokenRef{}, false
	}
	return t.rare[2*i+1], true
}

func (t *tokTable) setFirstInfo(i uint32, o *op) {
	t.at(i).hasInfo = true
	t.rare[2*i+1] = newTokenRef(o)
}

// row is the row of key and token, added if new.
func (t *tokTable) row(key, token string) (uint32, *tokRow) {
	h := t.hash(key, token)
	s, found := t.slot(h)
	if found {
		i := uint32(t.slots[s]) - 1
		return i, t.at(i)
	}
	if uint64(t.n+1)*4 > uint64(len(t.slots))*3 { // at most three quarters full
		t.grow()
		s, _ = t.slot(h)
	}
	i := t.n
	t.n++
	if int(i/tokChunk) == len(t.rows) {
		t.rows = append(t.rows, make([]tokRow, tokChunk))
	}
	t.slots[s] = slotOf(h, i)
	r := t.at(i)
	r.hash = h
	return i, r
}

// slot is the index slot of hash h: the one holding its row (found), or
// the empty one where it goes.
func (t *tokTable) slot(h tokHash) (s uint64, found bool) {
	mask := uint64(len(t.slots) - 1)
	fp := slotOf(h, 0) &^ (1<<32 - 1)
	for s = h[0] & mask; ; s = (s + 1) & mask {
		switch x := t.slots[s]; {
		case x == 0:
			return s, false
		case x&^(1<<32-1) == fp && t.at(uint32(x)-1).hash == h:
			return s, true
		}
	}
}

// slotOf is the index slot of row i, of hash h.
func slotOf(h tokHash, i uint32) uint64 { return h[1]>>32<<32 | uint64(i+1) }

// grow doubles the index and places every row again.
func (t *tokTable) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for i := uint32(0); i < t.n; i++ {
		h := t.at(i).hash
		s := h[0] & mask
		for t.slots[s] != 0 {
			s = (s + 1) & mask
		}
		t.slots[s] = slotOf(h, i)
	}
}

func (t *tokTable) at(i uint32) *tokRow { return &t.rows[i/tokChunk][i%tokChunk] }

// find is the row of key and token, if any.
func (t *tokTable) find(key, token string) (uint32, *tokRow, bool) {
	s, found := t.slot(t.hash(key, token))
	if !found {
		return 0, nil, false
	}
	i := uint32(t.slots[s]) - 1
	return i, t.at(i), true
}

// tokenRef is an acquire tokenCheck keeps: ok, or with unknown outcome.
type tokenRef struct {
	inv1    int64 // invoke index + 1; 0: none
	ret     int64
	process int32
}

func newTokenRef(o *op) tokenRef { return tokenRef{o.Inv + 1, o.Ret, int32(o.Process)} }

// ref is the acquire as an opRef of type t.
func (r tokenRef) ref(t history.Type) *opRef {
	return &opRef{t, int(r.process), r.inv1 - 1, r.ret}
}
