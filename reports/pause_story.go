package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/nemesis"
)

// maxPauseStories bounds the sentences index.html lists (a long run
// may pause a hundred times).
const maxPauseStories = 20

// runPauseStories are d's first maxPauseStories pauseStories and a line
// counting the rest.
func runPauseStories(d *detail) []string {
	out := pauseStories(d)
	if n := len(out) - maxPauseStories; n > 0 {
		out = append(out[:maxPauseStories], fmt.Sprintf("… and %s, not told here (see the holders chart)", page.Count(n, "more client pause", "more client pauses")))
	}
	return out
}

// pauseStories tells, in one sentence per paused client of each
// client-pause window, what the pause did, from the history and the
// resource's log (d's arrivals), saying unknown where they do not show it:
//
//	c2 paused at 1.00 s (until 2.01 s) → its lease ended 1.45 s → c1 acquired 1.52 s (fence 56) → c2's write arrived 2.01 s: rejected (fence 55 < 56)
func pauseStories(d *detail) []string {
	inLost := map[int64]bool{}
	for _, l := range d.lost {
		inLost[l.A], inLost[l.B] = true, true
	}
	var out []string
	for i, rows := range clientRows(d.h, d.ws, d.sm) {
		for _, r := range rows {
			if d.ws[i].Fault == nemesis.KindClientPause {
				out = append(out, pauseStory(d, d.ws[i], fmt.Sprintf("c%d", r+1), r, inLost))
			}
		}
	}
	return out
}

// step is one event of a pause story at time At (ns); unknown events
// (At < 0) come last.
type step struct {
	At   int64
	Text string
}

// pauseStory is client c's (slot row) sentence of window w: the pause,
// then in time order its lease's end, the next acquire, its write.
func pauseStory(d *detail, w checker.Window, c string, row int, inLost map[int64]bool) string {
	until := "until " + storySecs(w.End)
	if w.Unhealed {
		until = "never resumed before the history ended"
	}
	head := fmt.Sprintf("%s paused at %s (%s)", c, storySecs(w.Start), until)
	i := slices.IndexFunc(d.hs, func(ho hold) bool { return d.sm.Row[ho.Process] == row && ho.Start <= w.Start && w.Start < ho.End })
	if i < 0 {
		return head + " while holding no lock: no lease to outlive"
	}
	held := &d.hs[i]
	end := step{held.Validity, "its lease ended " + storySecs(held.Validity)}
	switch {
	case held.Ended == "release" && (held.Validity <= 0 || held.End < held.Validity):
		end = step{held.End, fmt.Sprintf("%s released the lock %s, within its lease", c, storySecs(held.End))}
	case held.Validity <= 0:
		end = step{-1, "its lease end unknown (no validity or TTL recorded)"}
	}
	var next *history.Op // the next acquire of the lock by another client
	acquired := step{-1, "no other client acquired the lock afterwards"}
	for i := range d.h {
		if r := &d.h[i]; r.F == history.FAcquire && r.Type == history.OK && r.Key == held.Key && r.Time > w.Start && !r.IsNemesis() && d.sm.Row[r.Process] != row {
			next, acquired = r, step{r.Time, fmt.Sprintf("%s acquired %s", rowClient(d.sm, r.Process), storySecs(r.Time))}
			if r.Fence != 0 {
				acquired.Text += fmt.Sprintf(" (fence %d)", r.Fence)
			}
			break
		}
	}
	steps := []step{end, acquired, writeStep(d, c, w, row, held, next, inLost)}
	at := func(s step) uint64 { return uint64(s.At) } // unknown (< 0) last
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(at(a), at(b)) })
	parts := []string{head}
	for _, st := range steps {
		parts = append(parts, st.Text)
	}
	return strings.Join(parts, " → ")
}

// storySecs is a time of a story, ns, in seconds: "1.00 s".
func storySecs(ns int64) string { return fmt.Sprintf("%.2f s", seconds(ns)) }

// writeStep is the paused client's first resource operation of lease
// held to arrive after the pause began, and what became of it.
func writeStep(d *detail, c string, w checker.Window, row int, held *hold, next *history.Op, inLost map[int64]bool) step {
	i := slices.IndexFunc(d.marks, func(a arrival) bool {
		return d.sm.Row[a.Proc] == row && a.Call >= held.Start && a.Call <= held.End && a.At() >= w.Start
	})
	if i < 0 {
		return step{-1, fmt.Sprintf("no write of %s's lease reached the resource after the pause began", c)}
	}
	wr := &d.marks[i]
	if !wr.Known {
		said := "outcome unknown" // what the history alone says
		if s, ok := map[history.Type]string{history.OK: "acknowledged", history.Fail: "rejected"}[wr.Type]; ok && wr.Completed {
			said = s
		}
		return step{-1, fmt.Sprintf("%s's %s was sent %s, its arrival unknown (not in the resource's log): %s", c, wr.F, storySecs(wr.Call), said)}
	}
	outcome := "accepted"
	switch {
	case !wr.Accepted:
		outcome = fmt.Sprintf("rejected (fence %d < %d)", wr.Fence, wr.Highest)
	case inLost[wr.Inv]:
		outcome = "accepted (lost update)"
	case wr.Stale:
		outcome = fmt.Sprintf("accepted although stale (fence %d < %d)", wr.Fence, wr.Highest)
	case held.Validity > 0 && wr.Arrive <= held.Validity && (next == nil || wr.Arrive < next.Time):
		outcome = "accepted, its lease still valid"
	}
	return step{wr.Arrive, fmt.Sprintf("%s's %s arrived %s (sent %s): %s", c, wr.F, storySecs(wr.Arrive), storySecs(wr.Call), outcome)}
}

// rowClient is the client a process's row stands for ("c1"), or "p7" for
// a process no slot holds.
func rowClient(sm slotMap, proc int) string {
	if r, ok := sm.Row[proc]; ok && r < len(sm.Rows) {
		l, _, _ := strings.Cut(sm.Rows[r], " ")
		return l
	}
	return fmt.Sprintf("p%d", proc)
}
