package sweep

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/internal/page"
)

// The recommendation is the sweep's answer to "what TTL and renewal
// should I use?", computed from the measured grid points only
// (Recommend), never written by hand.
//
// A grid point is clean when all the runs the sweep asked for finished
// and none was invalid or unknown; broken when at least one run was
// invalid; undetermined otherwise (an unknown run, or runs missing
// because the sweep was interrupted). Unknown runs are never counted as
// valid or as invalid.
//
// A setting (TTL × lock setting) bears a pause when its points are clean
// at that pause and at every shorter pause of the grid: its reach is the
// longest such pause. Pauses are taken in increasing order whatever
// order the grid lists them in.

// pointState is a grid point's standing for the recommendation.
type pointState int

const (
	clean pointState = iota
	broken
	undetermined
)

// state is p's standing given the runs per point the sweep asked for.
func state(agg map[Point]Agg, p Point, runs int) pointState {
	a, ok := agg[p]
	switch {
	case ok && a.Invalid > 0:
		return broken
	case !ok || a.Unknown > 0 || a.Runs < runs:
		return undetermined
	}
	return clean
}

// reach is how far one setting at one TTL stays clean along the pauses.
type reach struct {
	TTL     time.Duration
	Setting Setting
	// Index is the position, in the ascending pauses, of the longest
	// pause the setting bears; -1 when it bears none.
	Index int
	// Stop is the standing of the first point that is not clean (clean
	// when every pause was borne), and StopAt that point.
	Stop   pointState
	StopAt Point
}

// Recommendation is the outcome of Recommend. Text is the one line the
// page and the terminal show; the other fields are what it says.
type Recommendation struct {
	Text string
	// Runs is the number of runs per point the sweep asked for (the N of
	// "0 of N invalid").
	Runs int
	// Best is the unfenced setting with the longest reach (ties: the
	// smallest TTL, then the renewal listed first); nil when no unfenced
	// setting bears even the shortest pause, or none was measured.
	Best *reach
	// Fenced is the same among fenced settings; nil likewise.
	Fenced *reach
	// Insufficient lists the undetermined points that stopped a setting
	// which, measured, could have changed the answer.
	Insufficient []Point
}

// Recommend computes the sweep's recommendation from the aggregated
// grid points: the smallest TTL (and its renewal) that stayed at 0 of N
// invalid up to the longest pause any unfenced setting bore, then how
// the fenced lock did beyond that pause, then whether unknown or
// missing runs leave the answer open. runs is the N the sweep asked for.
func Recommend(g Grid, runs int, agg map[Point]Agg) Recommendation {
	rec := Recommendation{Runs: runs}
	pauses := slices.Clone(g.Pauses)
	slices.Sort(pauses)
	ttls := slices.Clone(g.TTLs)
	slices.Sort(ttls)
	if len(agg) == 0 || len(pauses) == 0 || len(ttls) == 0 {
		rec.Text = "no cell finished yet: nothing measured, nothing to recommend"
		return rec
	}
	var unfenced, fenced []reach
	for _, ttl := range ttls {
		for _, st := range g.LockSettings() {
			r := reachOf(agg, ttl, st, g.nemeses(), pauses, runs)
			if st.Fenced {
				fenced = append(fenced, r)
			} else {
				unfenced = append(unfenced, r)
			}
		}
	}
	rec.Best, rec.Fenced = best(unfenced), best(fenced)
	for _, rs := range [][]reach{unfenced, fenced} {
		top := -1
		if b := best(rs); b != nil {
			top = b.Index
		}
		for _, r := range rs {
			// Measured, this setting could reach beyond Index: it may
			// tie or beat the best one.
			if r.Stop == undetermined && r.Index+1 >= top {
				rec.Insufficient = append(rec.Insufficient, r.StopAt)
			}
		}
	}
	rec.Text = rec.text(g, pauses, len(unfenced) > 0, len(fenced) > 0, agg)
	return rec
}

// reachOf walks one lock setting at one TTL up the ascending pauses: at
// each it must be clean under every fault of the nemesis axis.
func reachOf(agg map[Point]Agg, ttl time.Duration, st Setting, nemeses []string, pauses []time.Duration, runs int) reach {
	r := reach{TTL: ttl, Setting: st, Index: -1, Stop: clean}
	for i, p := range pauses {
		for _, n := range nemeses {
			pt := pointOf(ttl, Setting{Renew: st.Renew, Fenced: st.Fenced, Nemesis: n}, p)
			if s := state(agg, pt, runs); s != clean {
				r.Stop, r.StopAt = s, pt
				return r
			}
		}
		r.Index = i
	}
	return r
}

// best is the reach with the largest Index, the first of equals (rs is
// in ascending TTL, then setting order); nil when none bears a pause.
func best(rs []reach) *reach {
	var b *reach
	for i := range rs {
		if rs[i].Index >= 0 && (b == nil || rs[i].Index > b.Index) {
			b = &rs[i]
		}
	}
	return b
}

// faults is what the grid's fault lengths are lengths of: "pauses",
// "partitions" or "pauses and partitions".
func (g Grid) faults() string {
	var words []string
	for _, n := range g.nemeses() {
		words = append(words, map[string]string{NemesisClientPause: "pauses", NemesisPartition: "partitions"}[n])
	}
	return strings.Join(words, " and ")
}

// upTo says how far a reach goes: "up to pauses of 300ms", "without
// pauses" (only the 0 pause), with "(the longest measured)" at the top.
func upTo(g Grid, pauses []time.Duration, i int) string {
	if pauses[i] == 0 {
		return "without " + g.faults()
	}
	s := "up to " + g.faults() + " of " + page.Dur(pauses[i])
	if i == len(pauses)-1 {
		s += ", the longest measured"
	}
	return s
}

// renewal is a setting's renewal as the line says it, in the library's
// words when the subject maps them ("ExtendInterval ttl/3").
func (s Subject) renewal(st Setting) string {
	switch {
	case st.Fenced:
		if s.Label != "" {
			return "with fencing (no renewal)"
		}
		return "the fenced lock (no renewal)"
	case st.Renew == "none" && s.Renew != "":
		return s.Renew + " unset"
	case st.Renew == "none":
		return "without renewal"
	case s.Renew != "":
		return s.Renew + " " + st.Renew
	}
	return "with renewal every " + st.Renew
}

// noFencing is why the line has no fencing part.
func (s Subject) noFencing() string {
	if s.NoTokens {
		return s.Label + " issues no fencing tokens"
	}
	return "fencing was not measured (--fencing-axis on)"
}

func (rec Recommendation) text(g Grid, pauses []time.Duration, haveUnfenced, haveFenced bool, agg map[Point]Agg) string {
	n := rec.Runs
	var parts []string
	b, f := rec.Best, rec.Fenced
	upTo := func(pauses []time.Duration, i int) string { return upTo(g, pauses, i) }
	lowest := "at " + g.faults() + " of " + page.Dur(pauses[0])
	if pauses[0] == 0 {
		lowest = "without " + g.faults()
	}
	ttl := g.Lock.ttlName()
	switch {
	case haveUnfenced && b != nil:
		parts = append(parts, fmt.Sprintf("smallest %s with 0 of %d invalid %s: %s, %s", ttl, n, upTo(pauses, b.Index), page.Dur(b.TTL), g.Lock.renewal(b.Setting)))
	case haveUnfenced:
		parts = append(parts, fmt.Sprintf("no %s or renewal measured stayed at 0 of %d invalid, not even %s", ttl, n, lowest))
	}
	switch {
	case !haveFenced && b != nil && b.Index < len(pauses)-1:
		parts = append(parts, fmt.Sprintf("nothing measured held above %s; %s", page.Dur(pauses[b.Index]), g.Lock.noFencing()))
	case !haveFenced:
		parts = append(parts, g.Lock.noFencing())
	case f == nil && !haveUnfenced:
		parts = append(parts, fmt.Sprintf("the fenced lock did not stay at 0 of %d invalid at any TTL, not even %s", n, lowest))
	case f == nil:
		parts = append(parts, fmt.Sprintf("the fenced lock did not stay at 0 of %d invalid either, not even %s", n, lowest))
	case !haveUnfenced:
		parts = append(parts, fmt.Sprintf("fenced lock: smallest TTL with 0 of %d invalid %s: %s", n, upTo(pauses, f.Index), page.Dur(f.TTL)))
	case b == nil:
		parts = append(parts, fmt.Sprintf("only fencing stayed valid: the fenced lock with TTL %s, 0 of %d invalid %s", page.Dur(f.TTL), n, upTo(pauses, f.Index)))
	case f.Index > b.Index:
		parts = append(parts, fmt.Sprintf("above %s only fencing stays valid (the fenced lock with TTL %s: 0 of %d invalid %s)",
			page.Dur(pauses[b.Index]), page.Dur(f.TTL), n, upTo(pauses, f.Index)))
	default:
		parts = append(parts, fmt.Sprintf("fencing did no better (the fenced lock with TTL %s: 0 of %d invalid %s)", page.Dur(f.TTL), n, upTo(pauses, f.Index)))
	}
	line := strings.Join(parts, "; ")
	if len(rec.Insufficient) > 0 {
		line += "; " + insufficient(rec.Insufficient, n, agg)
	}
	return line
}

// insufficient names the undetermined points that may change the line,
// at most three.
func insufficient(pts []Point, n int, agg map[Point]Agg) string {
	var each []string
	for i, p := range pts {
		if i == 3 {
			each = append(each, fmt.Sprintf("%d more", len(pts)-3))
			break
		}
		a, ok := agg[p]
		what := "not run"
		switch {
		case ok && a.Unknown > 0:
			what = fmt.Sprintf("%d of %s unknown", a.Unknown, page.Count(n, "run", "runs"))
		case ok:
			what = fmt.Sprintf("%d of %s finished", a.Runs, page.Count(n, "run", "runs"))
		}
		each = append(each, fmt.Sprintf("ttl %s, %s, %s %s: %s", page.Dur(p.TTL), p.Setting().Lock().Name(), Cell{Nemesis: p.Nemesis}.faultWord(), pauseName(p.Pause), what))
	}
	return fmt.Sprintf("data insufficient: %s with unknown or missing runs may change this (%s)", page.Count(len(pts), "cell", "cells"), strings.Join(each, "; "))
}

func pauseName(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return page.Dur(d)
}
