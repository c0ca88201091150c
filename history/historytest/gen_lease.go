package historytest

import (
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// lease generates a granted lease on k for slot s, whose acquire was
// invoked as acqInv: maybe an extend, a counter section, then a release.
func (g *Gen) lease(k *genKey, s *genSlot, acqInv history.Op) {
	c, p := acqInv.Time, s.proc
	grant := max(k.t, c+g.d(US, MS))
	ret := grant + g.d(US, MS)
	tok := g.token()
	k.fence++
	g.Rec(acqInv)
	g.Rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: k.name, Token: tok, Fence: k.fence, TTL: g.TTL, Validity: g.Validity(c), Time: ret})
	t := ret
	expiry := grant + g.TTL
	// extend, sometimes
	if g.r.IntN(5) == 0 {
		ei := t + g.d(US, g.TTL/4)
		at := ei + g.d(US, MS)
		eo := at + g.d(US, MS)
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FExtend, Key: k.name, Token: tok, TTL: g.TTL, Time: ei})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FExtend, Key: k.name, Token: tok, TTL: g.TTL, Validity: g.Validity(ei), Time: eo})
		expiry, t = at+g.TTL, eo
	}
	// a counter section, before the validity deadline
	ri := t + g.d(US, MS)
	ro := ri + g.d(US, MS)
	wi := ro + g.d(US, MS)
	wo := wi + g.d(US, MS)
	secStart := len(g.Recs)
	g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRead, Key: k.counter, Time: ri})
	g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRead, Key: k.counter, Value: k.value, Time: ro})
	g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: k.counter, Value: k.value + 1, Fence: k.fence, Time: wi})
	if g.r.IntN(100) < 4 { // the write times out; it landed or not; the client dies holding the lock
		g.Rec(history.Op{Type: history.Info, Process: p, F: history.FWrite, Key: k.counter, Value: k.value + 1, Fence: k.fence, Time: wo, Error: "timeout"})
		if g.r.IntN(2) == 0 {
			k.value++
		}
		s.freeAt = wo
		g.die(s)
		k.t = expiry
		return
	}
	k.value++
	g.Rec(history.Op{Type: history.OK, Process: p, F: history.FWrite, Key: k.counter, Value: k.value, Fence: k.fence, Time: wo})
	l := Lease{Key: k.name, Section: slices.Clone(g.Recs[secStart:]), OK: ret, Grant: grant}
	g.release(k, s, tok, wo, expiry, l)
}

// release ends lease l of k held by slot s with token tok, whose last
// record completed at t and whose key expires at expiry: a release that
// finds the key gone, one of unknown outcome, or a normal one (then l
// joins Leases).
func (g *Gen) release(k *genKey, s *genSlot, tok string, t, expiry int64, l Lease) {
	p := s.proc
	switch x := g.r.IntN(100); {
	case x < 10: // paused past the TTL: the release finds the key gone
		ri := expiry + g.d(US, 30*MS)
		ro := ri + g.d(US, MS)
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.Rec(history.Op{Type: history.Fail, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ro, Error: "lockimpl: lock not held"})
		s.freeAt = ro
		k.t = expiry + g.d(0, 5*MS)
	case x < 15: // release with unknown outcome
		ri := t + g.d(US, 20*MS)
		io := ri + g.d(MS, 10*MS)
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.Rec(history.Op{Type: history.Info, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: io, Error: "i/o timeout"})
		s.freeAt = io
		g.die(s)
		if g.r.IntN(2) == 0 {
			k.t = ri + g.d(US, 20*MS) // the release took effect, maybe late
		} else {
			k.t = expiry
		}
	default: // a normal release
		ri := t + g.d(US, 30*MS)
		at := ri + g.d(US, MS)
		ro := at + g.d(US, MS)
		g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.Rec(history.Op{Type: history.OK, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ro})
		s.freeAt = ro
		k.t = at + g.d(0, 2*MS)
		l.RelInv, l.RelAt = ri, at
		g.Leases = append(g.Leases, l)
	}
}
