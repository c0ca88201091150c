package historytest

import (
	"fmt"
	"math/rand/v2"

	"github.com/lockstorm/lockstorm/history"
)

// Gen generates valid lock histories: it simulates a correct lease
// server per key (grants only when the key is free or expired, honours
// TTLs exactly) and correct clients (client slots shared across keys,
// each single-threaded, a fresh process after every info), with waiting,
// network delays, holders paused past their TTL, extends, failed and
// unknown-outcome acquires and releases, counter sections, and fault
// windows. Every history it produces checks valid; the Inject methods add
// anomalies. The same seed gives the same history.
type Gen struct {
	TTL    int64        // every lease's TTL, in ns
	Recs   []history.Op // the records in the order generated
	Leases []Lease      // the normal leases generated, for injecting anomalies

	r        *rand.Rand
	slots    []genSlot
	nextProc int
	keys     []*genKey
	tokens   int
}

// Lease is a generated normal lease (acquired, a counter section,
// released ok).
type Lease struct {
	Key          string
	Section      []history.Op // the holder's read and write records
	OK, RelInv   int64        // acquire Return, release Call
	Grant, RelAt int64        // server instants
}

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

// NewGen returns a generator seeded with seed, of clients client slots
// and keys lock keys (lock0, lock1, ...) each guarding a counter
// (counter0, counter1, ...); the TTL is 100 ms.
func NewGen(seed uint64, clients, keys int) *Gen {
	g := &Gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), TTL: 100 * MS}
	for i := 0; i < clients; i++ {
		g.slots = append(g.slots, genSlot{proc: i})
	}
	g.nextProc = clients
	for i := 0; i < keys; i++ {
		g.keys = append(g.keys, &genKey{name: fmt.Sprintf("lock%d", i), counter: fmt.Sprintf("counter%d", i)})
	}
	return g
}

func (g *Gen) d(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

// Rec appends a record as it is.
func (g *Gen) Rec(o history.Op) { g.Recs = append(g.Recs, o) }

// NewProcess is a process number not used before.
func (g *Gen) NewProcess() int {
	g.nextProc++
	return g.nextProc - 1
}

// Validity is the validity deadline of a lease acquired at c.
func (g *Gen) Validity(c int64) int64 { return c + g.TTL - g.TTL/100 - 2*MS }

func (g *Gen) token() string {
	g.tokens++
	return fmt.Sprintf("t%d", g.tokens)
}

// die gives the slot a fresh process (after an info).
func (g *Gen) die(s *genSlot) { s.proc = g.NewProcess() }

// Run generates until about n records exist, with fault windows every
// so often if faults, and returns the History.
func (g *Gen) Run(n int, faults bool) history.History {
	var nextFault int64 = 50 * MS
	for len(g.Recs) < n {
		k := g.keys[0]
		for _, x := range g.keys[1:] {
			if x.t < k.t {
				k = x
			}
		}
		if faults && k.t > nextFault {
			d := g.d(10*MS, 200*MS)
			g.Rec(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStart, Fault: "partition", Detail: "n1", Time: nextFault})
			g.Rec(history.Op{Type: history.Info, Process: history.NemesisProcess, F: history.FStop, Fault: "partition", Time: nextFault + d})
			nextFault += d + g.d(100*MS, 500*MS)
		}
		g.step(k)
	}
	return g.History()
}

// History is the records sorted by time and numbered.
func (g *Gen) History() history.History { return Sorted(g.Recs) }

// InjectOverlap adds, inside normal lease i, an acquire ok by a fresh
// process that cannot be linearized: the holder's lease was promised far
// beyond it. It returns the History.
func (g *Gen) InjectOverlap(i int) history.History {
	l := g.Leases[i]
	c := l.OK + (l.RelInv-l.OK)/3
	r := c + US
	p := g.NewProcess()
	g.Rec(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: l.Key, TTL: g.TTL, Time: c})
	g.Rec(history.Op{Type: history.OK, Process: p, F: history.FAcquire, Key: l.Key, Token: "intruder", TTL: g.TTL, Validity: g.Validity(c), Time: r})
	return g.History()
}

// InjectLostUpdate repeats lease i's counter section, same times and
// values, under a fresh process: two increments from one read. It
// returns the History.
func (g *Gen) InjectLostUpdate(i int) history.History {
	p := g.NewProcess()
	for _, o := range g.Leases[i].Section {
		o.Process = p
		g.Rec(o)
	}
	return g.History()
}

// InjectOp adds records of a fresh process: f of key with token, fence
// and value, invoked at t and completed with type typ 1 µs later (an
// acquire ok with the TTL and its validity).
func (g *Gen) InjectOp(t int64, f string, typ history.Type, key, token string, fence, value int64) {
	p := g.NewProcess()
	g.Rec(history.Op{Type: history.Invoke, Process: p, F: f, Key: key, Token: token, Fence: fence, Value: value, TTL: g.TTL, Time: t})
	o := history.Op{Type: typ, Process: p, F: f, Key: key, Token: token, Fence: fence, Value: value, Time: t + US}
	if f == history.FAcquire && typ == history.OK {
		o.TTL, o.Validity = g.TTL, g.Validity(t)
	}
	g.Rec(o)
}

// step generates one lease (or a failed attempt) on key k.
func (g *Gen) step(k *genKey) {
	s := &g.slots[g.r.IntN(len(g.slots))]
	c := max(s.freeAt+g.d(US, MS), k.t-g.d(0, 30*MS))
	p := s.proc
	acqInv := history.Op{Type: history.Invoke, Process: p, F: history.FAcquire, Key: k.name, TTL: g.TTL, Time: c}
	switch x := g.r.IntN(100); {
	case x < 8: // an acquire that gives up
		g.Rec(acqInv)
		end := c + g.d(US, 20*MS)
		g.Rec(history.Op{Type: history.Fail, Process: p, F: history.FAcquire, Key: k.name, Time: end, Error: "lockimpl: lock not obtained"})
		s.freeAt = end
		return
	case x < 12: // an acquire with unknown outcome, granted or not
		tok := g.token()
		acqInv.Token = tok
		g.Rec(acqInv)
		end := c + g.d(5*MS, 30*MS)
		g.Rec(history.Op{Type: history.Info, Process: p, F: history.FAcquire, Key: k.name, Token: tok, Time: end, Error: "timeout"})
		s.freeAt = end
		g.die(s)
		if g.r.IntN(2) == 0 {
			grant := max(k.t, c+g.d(US, 40*MS))
			k.fence++
			k.t = grant + g.TTL + g.d(US, MS)
		}
		return
	}
	g.lease(k, s, acqInv)
}
