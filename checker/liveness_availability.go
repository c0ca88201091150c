package checker

import (
	"github.com/lockstorm/lockstorm/history"
)

// windowStream measures availability per fault window, fed records in
// time order: a window's counts are differences of the running counts of
// acquire invokes and oks, a count "up to t" taken when the time moves
// past t.
type windowStream struct {
	pair    WindowPairer            // the windows
	ws      []*windowCounts         // pair's windows' counts, by index
	due     []*windowCounts         // counts to take when the time moves on
	await   map[*windowCounts]bool  // windows with an end and no next window yet
	recov   map[*windowCounts]bool  // windows with an end and no acquire ok after it yet
	byStart map[int64]*windowCounts // start record index -> window
	now     int64                   // the current time
	calls   int64                   // acquire invokes so far
	oks     int64                   // acquire oks so far
	before  [2]int64                // calls and oks before now
}

// windowCounts is one window's bounds and counts.
type windowCounts struct {
	start, end  int64
	hasEnd      bool
	beforeStart [2]int64 // calls, oks before start
	upToEnd     [2]int64 // calls, oks up to end
	endDue      bool
	next        int64 // start of the first window started after end
	hasNext     bool
	upToNext    int64 // oks up to next
	nextDue     bool
	recovery    int64 // first acquire ok after end, -1 if none yet
}

// advance moves the time to t, taking the counts due at now.
func (s *windowStream) advance(t int64) {
	if t <= s.now {
		return
	}
	for _, w := range s.due {
		if w.endDue {
			w.upToEnd, w.endDue = [2]int64{s.calls, s.oks}, false
		}
		if w.nextDue {
			w.upToNext, w.nextDue = s.oks, false
		}
	}
	s.due = s.due[:0]
	s.now, s.before = t, [2]int64{s.calls, s.oks}
}

// ok counts an acquire ok returned at t (now).
func (s *windowStream) ok(t int64) {
	s.oks++
	for w := range s.recov {
		if t > w.end {
			w.recovery = t
			delete(s.recov, w)
		}
	}
}

// nemesis takes a nemesis record; it returns the end of the window it
// ended, if any.
func (s *windowStream) nemesis(o *history.Op) (end int64, changed bool) {
	switch wi, ev := s.pair.Add(o); ev {
	case WindowOpened:
		w := &windowCounts{start: o.Time, beforeStart: s.before, recovery: -1}
		s.ws = append(s.ws, w)
		s.byStart[o.Index] = w
		for a := range s.await {
			if w.start > a.end {
				a.next, a.hasNext, a.nextDue = w.start, true, true
				s.due = append(s.due, a)
				delete(s.await, a)
			}
		}
	case WindowEnded, WindowStopped:
		s.setEnd(s.ws[wi], o.Time)
		return o.Time, true
	}
	return 0, false
}

// setEnd sets (or moves) window w's end to t, now.
func (s *windowStream) setEnd(w *windowCounts, t int64) {
	w.end, w.hasEnd, w.endDue = t, true, true
	w.hasNext, w.nextDue, w.recovery = false, false, -1
	s.due = append(s.due, w)
	s.await[w] = true
	s.recov[w] = true
}

// availability is the windows' WindowAvailability at the end of the
// history (end: its last record's time).
func (s *windowStream) availability(windows []Window, end int64) []WindowAvailability {
	s.advance(Inf) // take the counts due at the last time
	var out []WindowAvailability
	for _, win := range windows {
		w := s.byStart[win.StartOp]
		wa := WindowAvailability{Window: win, RecoveryNS: -1}
		if w == nil { // cannot happen: the same records
			out = append(out, wa)
			continue
		}
		upToEnd := w.upToEnd
		if !w.hasEnd || win.Unhealed { // open until the end
			upToEnd = [2]int64{s.calls, s.oks}
		}
		wa.Invoked = int(upToEnd[0] - w.beforeStart[0])
		wa.OK = int(upToEnd[1] - w.beforeStart[1])
		next, upToNext := end, s.oks
		if w.hasNext && w.next < end {
			next, upToNext = w.next, w.upToNext
		}
		if next > win.End {
			wa.AfterOK = int(upToNext - upToEnd[1])
		}
		if w.hasEnd && !win.Unhealed && w.recovery >= 0 {
			wa.RecoveryNS = w.recovery - win.End
		}
		out = append(out, wa)
	}
	return out
}
