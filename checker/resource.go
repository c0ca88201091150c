package checker

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/history"
)

// Resource checks the application's view of mutual exclusion: counter
// critical sections (porcupine, see counter.go) and lost updates, cron
// exactly-once per tick, api concurrency, leader overlap, each when its
// ops are in the history.
type Resource struct {
	Timeout      time.Duration // bounds the porcupine search (0 = DefaultTimeout)
	InitialValue int64         // the counters' value before the run, for lost updates
	// FinalValues are the counters' values read after the run, by key;
	// else the last read of the history, if after every acknowledged write.
	FinalValues map[string]int64
	APILimit    int // how many callers the api allows at once; 0 means 1
	// RequireEveryTick makes a cron tick no run completed invalid.
	RequireEveryTick bool
}

// Name is "resource".
func (r *Resource) Name() string { return "resource" }

// ResourceDetails summarises a resource check.
type ResourceDetails struct {
	Counter   map[string]CounterSummary `json:"counter,omitempty"`
	Sections  int                       `json:"sections"` // critical sections checked
	Cron      *CronSummary              `json:"cron,omitempty"`
	API       *APISummary               `json:"api,omitempty"`
	Leader    *LeaderSummary            `json:"leader,omitempty"`
	Counts    map[string]int            `json:"counts,omitempty"` // anomalies of each kind
	ElapsedMS int64                     `json:"elapsed_ms"`
	// the counter's searches, kept for drawing as LockDetails' are
	Linearization *Linearization   `json:"-"`
	Failing       []*Linearization `json:"-"`
}

// CounterSummary is one counter's lost-update arithmetic: writes acked
// (ok), failed and info; the final value and where it came from ("given",
// "read op N", "" if none); Lost = Acked − (Final − InitialValue), at
// least 0 (a lower bound), -1 if unknown.
type CounterSummary struct {
	Acked     int    `json:"acked"`
	Rejected  int    `json:"rejected"`
	Unknown   int    `json:"unknown"`
	Final     int64  `json:"final"`
	FinalFrom string `json:"final_from,omitempty"`
	Lost      int64  `json:"lost"`
}

// finish sets res's verdict, anomalies and details from al and d.
func (r *Resource) finish(res *Result, al *anomalyList, d ResourceDetails, start time.Time) {
	res.Valid = al.verdict(res.Valid)
	res.Anomalies = al.list
	d.Counts = al.counts
	d.ElapsedMS = time.Since(start).Milliseconds()
	res.Details = d
	if d.Sections == 0 && d.Cron == nil && d.API == nil && d.Leader == nil && len(al.list) == 0 {
		res.NotApplicable = "no resource ops: no counter section, cron run, api call or leader term in the history"
	}
}

// lostUpdateCheck finds lost updates one op at a time (invoke order).
type lostUpdateCheck struct {
	keys map[string]*lostKey
}

type lostKey struct {
	sum       CounterSummary
	lastAckOp *op              // the latest-returning ok write
	lastRead  *op              // the latest-invoked ok read
	byValue   denseMap[ackRef] // acknowledged write by value (about 24 bytes a write)
}

// ackRef is an acknowledged write: its invoke index, its completion's
// distance from it, its process.
type ackRef struct {
	Inv     int64
	DRet    int32
	Process int32
}

func newLostUpdateCheck() *lostUpdateCheck { return &lostUpdateCheck{keys: map[string]*lostKey{}} }

func (c *lostUpdateCheck) get(k string) *lostKey {
	return entry(c.keys, k, func() *lostKey { return &lostKey{} })
}

func (c *lostUpdateCheck) add(o *op, al *anomalyList) {
	switch o.F {
	case history.FWrite:
		s := c.get(o.Key)
		switch o.Type {
		case history.OK:
			s.sum.Acked++
			if s.lastAckOp == nil || o.Return > s.lastAckOp.Return {
				keepOp(&s.lastAckOp, o)
			}
			if prev, ok := s.byValue.get(o.Value); ok {
				al.add(Anomaly{Kind: "lost-update", Fatal: true, Ops: sortedIndices([]int64{prev.Inv, prev.Inv + int64(prev.DRet)}, o.indices()),
					Text: fmt.Sprintf("counter %q: processes %d and %d both wrote %d and the resource acknowledged both: one increment is lost", o.Key, prev.Process, o.Process, o.Value)})
			} else {
				s.byValue.add(o.Value, ackRef{o.Inv, int32(min(o.Ret-o.Inv, math.MaxInt32)), int32(o.Process)})
			}
		case history.Fail:
			s.sum.Rejected++
		default:
			s.sum.Unknown++
		}
	case history.FRead:
		if o.Type == history.OK {
			s := c.get(o.Key)
			if s.lastRead == nil || o.Call > s.lastRead.Call {
				keepOp(&s.lastRead, o)
			}
		}
	}
}

func (c *lostUpdateCheck) finish(r *Resource, al *anomalyList) map[string]CounterSummary {
	out := map[string]CounterSummary{}
	for k, s := range c.keys {
		sum := s.sum
		sum.Lost = -1
		if v, ok := r.FinalValues[k]; ok {
			sum.Final, sum.FinalFrom = v, "given"
		} else if s.lastRead != nil && (s.lastAckOp == nil || s.lastRead.Call > s.lastAckOp.Return) {
			sum.Final, sum.FinalFrom = s.lastRead.Value, fmt.Sprintf("read op %d", s.lastRead.Inv)
		}
		if sum.FinalFrom != "" {
			sum.Lost = max(int64(sum.Acked)-(sum.Final-r.InitialValue), 0)
			if sum.Lost > 0 {
				a := Anomaly{Kind: "lost-update", Fatal: true,
					Text: fmt.Sprintf("counter %q: %d increments acknowledged but the value went from %d to %d (%s): %d lost",
						k, sum.Acked, r.InitialValue, sum.Final, sum.FinalFrom, sum.Lost)}
				if s.lastRead != nil && sum.FinalFrom != "given" {
					a.Ops = s.lastRead.indices()
				} else if s.lastAckOp != nil {
					a.Ops = s.lastAckOp.indices()
					a.Text += fmt.Sprintf("; the last acknowledged write wrote %d", s.lastAckOp.Value)
				}
				al.add(a)
			}
		}
		out[k] = sum
	}
	return out
}

// CronSummary counts cron ticks with an ok run, ok runs, ticks run more
// than once, and ticks between the first and last never run.
type CronSummary struct {
	Ticks      int `json:"ticks"`
	Runs       int `json:"runs"`
	Duplicates int `json:"duplicates"`
	Missed     int `json:"missed"`
}

// cronTick is one tick of one cron key.
type cronTick struct {
	key  string
	tick int64
}

// cronCheck keeps the ok runs of each tick and the range of ticks invoked
// per key.
type cronCheck struct {
	runs      map[cronTick][]*opRef
	attempted map[string][2]int64 // key -> min, max tick invoked
}

func newCronCheck() *cronCheck {
	return &cronCheck{runs: map[cronTick][]*opRef{}, attempted: map[string][2]int64{}}
}

func (c *cronCheck) add(o *op) {
	if o.F != history.FRun {
		return
	}
	mm, ok := c.attempted[o.Key]
	if !ok {
		mm = [2]int64{o.Value, o.Value}
	}
	c.attempted[o.Key] = [2]int64{min(mm[0], o.Value), max(mm[1], o.Value)}
	if o.Type == history.OK {
		c.runs[cronTick{o.Key, o.Value}] = append(c.runs[cronTick{o.Key, o.Value}], refOf(o))
	}
}

func (c *cronCheck) finish(r *Resource, al *anomalyList) *CronSummary {
	if len(c.attempted) == 0 {
		return nil
	}
	runs, attempted := c.runs, c.attempted
	var s CronSummary
	keys := slices.SortedFunc(maps.Keys(runs), func(a, b cronTick) int { return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.tick, b.tick)) })
	for _, k := range keys {
		rs := runs[k]
		s.Ticks++
		s.Runs += len(rs)
		if len(rs) > 1 {
			s.Duplicates++
			procs := make([]int, len(rs))
			ops := make([][]int64, len(rs))
			for i, o := range rs {
				procs[i], ops[i] = o.Process, o.indices()
			}
			al.add(Anomaly{Kind: "cron-duplicate", Fatal: true, Ops: sortedIndices(ops...),
				Text: fmt.Sprintf("cron %q: tick %d ran %d times (processes %v)", k.key, k.tick, len(rs), procs)})
		}
	}
	for key, mm := range attempted {
		for t := mm[0]; t <= mm[1]; t++ {
			if len(runs[cronTick{key, t}]) == 0 {
				s.Missed++
				al.add(Anomaly{Kind: "cron-missed", Fatal: r.RequireEveryTick,
					Text: fmt.Sprintf("cron %q: tick %d never ran", key, t)})
			}
		}
	}
	return &s
}

// APISummary is the api's concurrency.
type APISummary struct {
	Calls         int `json:"calls"`
	MaxConcurrent int `json:"max_concurrent"`
	Limit         int `json:"limit"`
}

// checkAPI: a caller is certainly inside the api from its enter's Return
// to its next leave's Call; each entrant past APILimit is an anomaly
// naming the enters of those inside.
func (r *Resource) checkAPI(os []op, al *anomalyList) *APISummary {
	limit := max(r.APILimit, 1)
	type call struct {
		enter      *op
		start, end int64
		key        string
	}
	var calls []call
	inside := map[int]*op{} // process -> enter ok awaiting leave
	for i := range os {
		o := &os[i]
		switch o.F {
		case history.FEnter:
			delete(inside, o.Process)
			if o.Type == history.OK {
				inside[o.Process] = o
			}
		case history.FLeave:
			if e := inside[o.Process]; e != nil {
				delete(inside, o.Process)
				if o.Call > e.Return {
					calls = append(calls, call{e, e.Return, o.Call, e.Key})
				}
			}
		}
	}
	if len(calls) == 0 {
		return nil
	}
	s := &APISummary{Calls: len(calls), Limit: limit}
	sort.Slice(calls, func(i, j int) bool { return calls[i].start < calls[j].start })
	active := map[string][]call{}
	for _, c := range calls {
		// drop calls of this key that certainly ended before c started
		cur := append(slices.DeleteFunc(active[c.key], func(a call) bool { return a.end <= c.start }), c)
		active[c.key] = cur
		s.MaxConcurrent = max(s.MaxConcurrent, len(cur))
		if len(cur) > limit {
			es := make([]*op, len(cur))
			for i, a := range cur {
				es[i] = a.enter
			}
			al.add(Anomaly{Kind: "api-overlap", Fatal: true, Ops: opIndices(es...),
				Text: fmt.Sprintf("api %q: %d callers inside at %s (limit %d)", c.key, len(cur), fmtTime(c.start), limit)})
		}
	}
	return s
}

// LeaderSummary counts leader terms.
type LeaderSummary struct {
	Heartbeats int `json:"heartbeats"`
	Terms      int `json:"terms"`
	Overlaps   int `json:"overlaps"`
}

// checkLeader: a term is a run of consecutive ok heartbeats of one
// process on one key with one Fence; it certainly led from its first
// heartbeat's Return to its last's Call. Another process's heartbeat on
// the key wholly inside that is a simultaneous leader.
func checkLeader(os []op, al *anomalyList) *LeaderSummary {
	type term struct {
		first, last *op
	}
	var (
		beats []*op
		terms []term
		cur   = map[int]*term{}
	)
	end := func(p int) {
		if t := cur[p]; t != nil {
			terms = append(terms, *t)
			delete(cur, p)
		}
	}
	for i := range os {
		o := &os[i]
		if o.F != history.FLead || o.Type != history.OK {
			end(o.Process)
			continue
		}
		beats = append(beats, o)
		if t := cur[o.Process]; t != nil && t.first.Key == o.Key && t.first.Fence == o.Fence {
			t.last = o
			continue
		}
		end(o.Process)
		cur[o.Process] = &term{o, o}
	}
	for p := range cur {
		end(p)
	}
	if len(beats) == 0 {
		return nil
	}
	s := &LeaderSummary{Heartbeats: len(beats), Terms: len(terms)}
	sort.Slice(beats, func(i, j int) bool { return beats[i].Call < beats[j].Call })
	for _, t := range terms {
		from, to := t.first.Return, t.last.Call
		if to <= from {
			continue
		}
		i := sort.Search(len(beats), func(i int) bool { return beats[i].Call >= from })
		for ; i < len(beats) && beats[i].Call <= to; i++ {
			b := beats[i]
			if b.Process == t.first.Process || b.Key != t.first.Key || b.Return > to {
				continue
			}
			s.Overlaps++
			al.add(Anomaly{Kind: "leader-overlap", Fatal: true, Ops: opIndices(t.first, t.last, b),
				Text: fmt.Sprintf("leader %q: process %d heartbeated at [%s, %s] while process %d led (fence %d) from %s to %s",
					t.first.Key, b.Process, fmtTime(b.Call), fmtTime(b.Return), t.first.Process, t.first.Fence, fmtTime(from), fmtTime(to))})
			break
		}
	}
	return s
}

// Check runs every resource check that applies (see checkPart).
func (r *Resource) Check(ctx context.Context, h history.History) Result { return checkPart(ctx, r, h) }
