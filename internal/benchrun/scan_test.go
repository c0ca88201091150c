package benchrun

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// healMargin is how long the history must go on after the final heal: the
// liveness checker judges recovery only when the history lasts its grace
// (the longest TTL plus the retry interval, well under a second here)
// after the last heal, else the verdict is at best unknown.
const healMargin = int64(2 * time.Second)

// scan is what the first pass over a generated history learns.
type scan struct {
	// records is the number of records; end the latest record time (ns).
	records int
	end     int64
	// lives are the client processes' first and last record times.
	lives map[int]*life
	// windows are the fault windows up to the last one that stops at
	// least healMargin before end; lastStop is the record index of that
	// stop, after which the folder's final heal comes.
	windows  []window
	lastStop int
}

// life is when a client process made its first and last records (ns).
type life struct{ first, last int64 }

// window is one fault window of the generated history.
type window struct {
	fault       nemesis.Fault
	start, stop int64 // times (ns); stop is -1 while the window is open
	stopIndex   int
}

// eachRecord calls fn with every record of the JSONL history at path and
// its index.
func eachRecord(path string, fn func(i int, o *history.Op) error) error {
	var ferr error
	err := history.Each(history.File(path), func(o *history.Op) bool {
		ferr = fn(int(o.Index), o)
		return ferr == nil
	})
	return cmp.Or(ferr, err)
}

// scanHistory is the first pass over the generated history at path.
func scanHistory(path string) (*scan, error) {
	s := &scan{lives: map[int]*life{}, lastStop: -1}
	err := eachRecord(path, func(i int, o *history.Op) error {
		s.records++
		s.end = max(s.end, o.Time)
		if o.IsNemesis() {
			return s.fault(i, o)
		}
		if l := s.lives[o.Process]; l != nil {
			l.last = max(l.last, o.Time)
		} else {
			s.lives[o.Process] = &life{o.Time, o.Time}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, s.keepHealed()
}

// fault adds a nemesis record of the generator (an info start or stop of
// one fault at a time) to the windows.
func (s *scan) fault(i int, o *history.Op) error {
	open := len(s.windows) > 0 && s.windows[len(s.windows)-1].stop < 0
	switch {
	case o.F == history.FStart && !open:
		s.windows = append(s.windows, window{fault: faultOf(o), start: o.Time, stop: -1})
	case o.F == history.FStop && open:
		w := &s.windows[len(s.windows)-1]
		w.stop, w.stopIndex = o.Time, i
	default:
		return fmt.Errorf("nemesis record %s %s: the generator writes one fault at a time, a start then its stop", o.F, o.Fault)
	}
	return nil
}

// faultOf is the fault a generated nemesis record names: its kind, and its
// Detail as the node ("n1").
func faultOf(o *history.Op) nemesis.Fault {
	f := nemesis.Fault{Kind: o.Fault, Nodes: slices.Clone(o.Nodes)}
	if len(f.Nodes) == 0 && o.Detail != "" {
		f.Nodes = []string{o.Detail}
	}
	return f
}

// keepHealed keeps the windows that stop at least healMargin before the
// history's end and sets lastStop.
func (s *scan) keepHealed() error {
	k := len(s.windows) - 1
	for k >= 0 && (s.windows[k].stop < 0 || s.windows[k].stop > s.end-healMargin) {
		k--
	}
	if k < 0 {
		return fmt.Errorf("no fault window stops %v before the history's end", time.Duration(healMargin))
	}
	s.windows, s.lastStop = s.windows[:k+1], s.windows[k].stopIndex
	return nil
}

// plan is the fault plan the folder's run executed: the kept windows, the
// final heal at the last stop, the end of the history.
func (s *scan) plan() *nemesis.Plan {
	p := &nemesis.Plan{End: time.Duration(s.end)}
	for _, w := range s.windows {
		p.Steps = append(p.Steps, nemesis.Step{At: time.Duration(w.start), Fault: w.fault, Duration: time.Duration(w.stop - w.start)})
		p.HealAt = time.Duration(w.stop)
	}
	return p
}

// assignSlots places every client process in one of clients slots ("c1",
// ...), as the harness runs them: a slot runs one process at a time and
// takes a fresh process after its last one retired. Processes are placed
// in order of their first record, each in the slot free the longest; a
// history with more than clients processes alive at once is an error.
func assignSlots(lives map[int]*life, clients int) (map[int]string, error) {
	procs := make([]int, 0, len(lives))
	for p := range lives {
		procs = append(procs, p)
	}
	slices.SortFunc(procs, func(a, b int) int {
		return cmp.Or(cmp.Compare(lives[a].first, lives[b].first), cmp.Compare(a, b))
	})
	busyUntil := make([]int64, clients)
	for j := range busyUntil {
		busyUntil[j] = -1
	}
	slot := make(map[int]string, len(procs))
	for _, p := range procs {
		best := -1
		for j, t := range busyUntil {
			if t < lives[p].first && (best < 0 || t < busyUntil[best]) {
				best = j
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("process %d starts at %d ns while %d other processes run", p, lives[p].first, clients)
		}
		busyUntil[best] = lives[p].last
		slot[p] = fmt.Sprintf("c%d", best+1)
	}
	return slot, nil
}
