package checker

import (
	"hash/maphash"
	"math"

	"github.com/lockstorm/lockstorm/history"
)

// tokTable is what the streamed checks keep per lock key and token: a
// 48-byte row and an 8-byte slot of an open-addressed index, no pointers.
// A key and token are named by a 128-bit hash (two seeds).
type tokTable struct {
	slots   []uint64   // fingerprint<<32 | row + 1 (0: empty), linear probing from hash[0]; len a power of 2
	rows    [][]tokRow // chunks of tokChunk rows
	n       uint32
	scratch []byte // key, 0, token while they are hashed
	// rare holds, by 2·row, a first acquire ok okDRet cannot hold, by
	// 2·row+1 the first unknown acquire
	rare map[uint32]tokenRef
}

const tokChunk = 1 << 12

// tokRow is one key and token (48 bytes).
type tokRow struct {
	hash  tokHash
	first int64 // the position + 1 of the first acquire record naming it (0: none), for refTracker
	// its first acquire ok, for tokenCheck: invoke index + 1 (0: none),
	// completion − invoke index, process
	okInv1  int64
	okDRet  int32
	okProc  int32
	hasInfo bool // its first unknown acquire is in rare
	leased  bool // a non-failed acquire took it, for liveStream
}

// tokHash names a key and token.
type tokHash [2]uint64

var tokSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// hash is the name of key and token.
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

// slot is the index slot holding hash h's row (found), or where it goes.
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
