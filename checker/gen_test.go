package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lockstorm/lockstorm/history"
)

// A generator of valid lock histories: it simulates a correct lease
// server per key (grants only when the key is free or expired, honours
// TTLs exactly) and correct clients (8 client slots shared across keys,
// each single-threaded, a fresh process after every info), with waiting,
// network delays, holders paused past their TTL, extends, failed and
// unknown-outcome acquires and releases, counter sections, and fault
// windows. Every history it produces must check valid.

const (
	ms = int64(1_000_000)
	us = int64(1_000)
)

type genSlot struct {
	proc   int
	freeAt int64
}

type genKey struct {
	name    string
	counter string
	t       int64 // earliest next grant (server time)
	fence   int64
	value   int64
}

// lease is a generated normal lease, for injecting anomalies.
type genLease struct {
	key          string
	section      []history.Op // the holder's read and write records
	ok, relInv   int64        // acquire Return, release Call
	grant, relAt int64        // server instants
}

type gen struct {
	r        *rand.Rand
	ttl      int64
	slots    []genSlot
	nextProc int
	recs     []history.Op
	keys     []*genKey
	tokens   int
	leases   []genLease
}

func newGen(seed uint64, clients, keys int) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), ttl: 100 * ms}
	for i := 0; i < clients; i++ {
		g.slots = append(g.slots, genSlot{proc: i})
	}
	g.nextProc = clients
	for i := 0; i < keys; i++ {
		g.keys = append(g.keys, &genKey{name: fmt.Sprintf("lock%d", i), counter: fmt.Sprintf("counter%d", i)})
	}
	return g
}

func (g *gen) d(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

func (g *gen) rec(o history.Op) { g.recs = append(g.recs, o) }

func (g *gen) token() string {
	g.tokens++
	return fmt.Sprintf("t%d", g.tokens)
}

// die gives the slot a fresh process (after an info).
func (g *gen) die(s *genSlot) {
	s.proc = g.nextProc
	g.nextProc++
}

func (g *gen) validity(c int64) int64 { return c + g.ttl - g.ttl/100 - 2*ms }

// step generates one lease (or a failed attempt) on key k.
func (g *gen) step(k *genKey) {
	s := &g.slots[g.r.IntN(len(g.slots))]
	c := max(s.freeAt+g.d(us, ms), k.t-g.d(0, 30*ms))
	p := s.proc
	acqInv := history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: k.name, TTL: g.ttl, Time: c}
	switch x := g.r.IntN(100); {
	case x < 8: // an acquire that gives up
		g.rec(acqInv)
		end := c + g.d(us, 20*ms)
		g.rec(history.Op{Type: history.Fail, Process: p, F: history.FAcquire, Key: k.name, Time: end, Error: "lockimpl: lock not obtained"})
		s.freeAt = end
		return
	case x < 12: // an acquire with unknown outcome, granted or not
		tok := g.token()
		acqInv.Token = tok
		g.rec(acqInv)
		end := c + g.d(5*ms, 30*ms)
		g.rec(history.Op{Type: history.Info, Process: p, F: history.FAcquire, Key: k.name, Token: tok, Time: end, Error: "timeout"})
		s.freeAt = end
		g.die(s)
		if g.r.IntN(2) == 0 {
			grant := max(k.t, c+g.d(us, 40*ms))
			k.fence++
			k.t = grant + g.ttl + g.d(us, ms)
		}
		return
	}
	grant := max(k.t, c+g.d(us, ms))
	ret := grant + g.d(us, ms)
	tok := g.token()
	k.fence++
	g.rec(acqInv)
	g.rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: k.name, Token: tok, Fence: k.fence, TTL: g.ttl, Validity: g.validity(c), Time: ret})
	t := ret
	expiry := grant + g.ttl
	// extend, sometimes
	if g.r.IntN(5) == 0 {
		ei := t + g.d(us, g.ttl/4)
		at := ei + g.d(us, ms)
		eo := at + g.d(us, ms)
		g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FExtend, Key: k.name, Token: tok, TTL: g.ttl, Time: ei})
		g.rec(history.Op{Type: history.OK, Process: p, F: history.FExtend, Key: k.name, Token: tok, TTL: g.ttl, Validity: g.validity(ei), Time: eo})
		expiry, t = at+g.ttl, eo
	}
	// a counter section, before the validity deadline
	ri := t + g.d(us, ms)
	ro := ri + g.d(us, ms)
	wi := ro + g.d(us, ms)
	wo := wi + g.d(us, ms)
	secStart := len(g.recs)
	g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FRead, Key: k.counter, Time: ri})
	g.rec(history.Op{Type: history.OK, Process: p, F: history.FRead, Key: k.counter, Value: k.value, Time: ro})
	g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: k.counter, Value: k.value + 1, Fence: k.fence, Time: wi})
	if g.r.IntN(100) < 4 { // the write times out; it landed or not; the client dies holding the lock
		g.rec(history.Op{Type: history.Info, Process: p, F: history.FWrite, Key: k.counter, Value: k.value + 1, Fence: k.fence, Time: wo, Error: "timeout"})
		if g.r.IntN(2) == 0 {
			k.value++
		}
		s.freeAt = wo
		g.die(s)
		k.t = expiry
		return
	}
	k.value++
	g.rec(history.Op{Type: history.OK, Process: p, F: history.FWrite, Key: k.counter, Value: k.value, Fence: k.fence, Time: wo})
	section := slices.Clone(g.recs[secStart:])
	t = wo
	switch x := g.r.IntN(100); {
	case x < 10: // paused past the TTL: the release finds the key gone
		ri := expiry + g.d(us, 30*ms)
		ro := ri + g.d(us, ms)
		g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.rec(history.Op{Type: history.Fail, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ro, Error: "lockimpl: lock not held"})
		s.freeAt = ro
		k.t = expiry + g.d(0, 5*ms)
	case x < 15: // release with unknown outcome
		ri := t + g.d(us, 20*ms)
		io := ri + g.d(ms, 10*ms)
		g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.rec(history.Op{Type: history.Info, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: io, Error: "i/o timeout"})
		s.freeAt = io
		g.die(s)
		if g.r.IntN(2) == 0 {
			k.t = ri + g.d(us, 20*ms) // the release took effect, maybe late
		} else {
			k.t = expiry
		}
	default: // a normal release
		ri := t + g.d(us, 30*ms)
		at := ri + g.d(us, ms)
		ro := at + g.d(us, ms)
		g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ri})
		g.rec(history.Op{Type: history.OK, Process: p, F: history.FRelease, Key: k.name, Token: tok, Time: ro})
		s.freeAt = ro
		k.t = at + g.d(0, 2*ms)
		g.leases = append(g.leases, genLease{key: k.name, section: section, ok: ret, relInv: ri, grant: grant, relAt: at})
	}
}

// run generates until about n records exist, with fault windows every
// so often, and returns the indexed history.
func (g *gen) run(n int, faults bool) history.History {
	var nextFault int64 = 50 * ms
	for len(g.recs) < n {
		k := g.keys[0]
		for _, x := range g.keys[1:] {
			if x.t < k.t {
				k = x
			}
		}
		if faults && k.t > nextFault {
			d := g.d(10*ms, 200*ms)
			g.rec(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "n1", Time: nextFault})
			g.rec(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "partition", Time: nextFault + d})
			nextFault += d + g.d(100*ms, 500*ms)
		}
		g.step(k)
	}
	return g.history()
}

// history sorts the records by time and numbers them.
func (g *gen) history() history.History {
	h := slices.Clone(g.recs)
	slices.SortStableFunc(h, func(a, b history.Op) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	for i := range h {
		h[i].Index = int64(i)
	}
	return h
}

// injectOverlap adds, inside a normal lease i, an acquire ok by a fresh
// process that cannot be linearized: the holder's lease was promised far
// beyond it.
func (g *gen) injectOverlap(i int) history.History {
	l := g.leases[i]
	c := l.ok + (l.relInv-l.ok)/3
	r := c + us
	p := g.nextProc
	g.nextProc++
	g.rec(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: l.key, TTL: g.ttl, Time: c})
	g.rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: l.key, Token: "intruder", TTL: g.ttl, Validity: g.validity(c), Time: r})
	return g.history()
}

// historyWrite is one record of a fenced counter write.
func historyWrite(p int, fence, t int64, done bool) history.Op {
	o := history.Op{Type: history.Invoke, Process: p, F: history.FWrite, Key: "c", Fence: fence + 1, Value: fence + 1, Time: t}
	if done {
		o.Type = history.OK
	}
	return o
}

// injectLostUpdate repeats lease i's counter section, same times and
// values, under a fresh process: two increments from one read.
func (g *gen) injectLostUpdate(i int) history.History {
	p := g.nextProc
	g.nextProc++
	for _, o := range g.leases[i].section {
		o.Process = p
		g.rec(o)
	}
	return g.history()
}
