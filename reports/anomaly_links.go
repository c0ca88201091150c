package reports

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
)

// checkedAnomaly is an anomaly with the name of the checker that found it.
type checkedAnomaly struct {
	Checker string
	checker.Anomaly
}

// orderedAnomalies are v's anomalies (checkerParts) in the one order every
// report lists them: the fatal ones first, each in the checkers' order.
func orderedAnomalies(v checker.Result) []checkedAnomaly {
	var out []checkedAnomaly
	for _, r := range checkerParts(v) {
		for _, a := range r.Anomalies {
			out = append(out, checkedAnomaly{Checker: r.Name, Anomaly: a})
		}
	}
	slices.SortStableFunc(out, func(a, b checkedAnomaly) int { return oneIf(b.Fatal) - oneIf(a.Fatal) })
	return out
}

// oneIf is 1 when cond holds, else 0 (to sort by a condition).
func oneIf(cond bool) int {
	if cond {
		return 1
	}
	return 0
}

// firstFatalAnomaly is the first fatal anomaly of v in that order; ok is
// false when there is none.
func firstFatalAnomaly(v checker.Result) (a checkedAnomaly, ok bool) {
	if as := orderedAnomalies(v); len(as) > 0 && as[0].Fatal {
		return as[0], true
	}
	return a, false
}

// opPages records which ops the anomalies name each page draws, as the
// pages are written concurrently, for index.html's links to them.
type opPages struct {
	mu    sync.Mutex
	want  map[int64]bool            // every op an anomaly names
	drawn map[string]map[int64]bool // page file -> the wanted ops it draws
	files []string                  // the pages with a wanted op
}

// newOpPages is an empty record for the anomalies of v.
func newOpPages(v checker.Result) *opPages {
	p := &opPages{want: map[int64]bool{}, drawn: map[string]map[int64]bool{}}
	for _, a := range allAnomalies(v) {
		for _, o := range a.Ops {
			p.want[o] = true
		}
	}
	return p
}

// add records that file draws op (kept only when an anomaly names it).
func (p *opPages) add(file string, op int64) {
	if p == nil || !p.want[op] {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.drawn[file]
	if m == nil {
		m = map[int64]bool{}
		p.drawn[file] = m
		p.files = append(p.files, file)
	}
	m[op] = true
}

// porcupineOps matches an operation's record indices in a porcupine
// page's data: "Metadata":"ops 12,15 · token …" or "op 7 (…)".
var porcupineOps = regexp.MustCompile(`"Metadata":"ops? ([0-9][0-9,]*)`)

// addPorcupine records the ops the porcupine page file draws, read from
// its data (each operation's metadata names its records).
func (p *opPages) addPorcupine(file string, page []byte) {
	if p == nil {
		return
	}
	for _, m := range porcupineOps.FindAllSubmatch(page, -1) {
		for _, s := range strings.Split(string(m[1]), ",") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				p.add(file, i)
			}
		}
	}
}

// The kinds of page an anomaly link may open: porcupine's lock pages
// (and their segments), its counter pages, the timeline.
const (
	groupLock = iota
	groupCounter
	groupTimeline
)

// pageKind is the kind of page file is.
func pageKind(file string) int {
	switch {
	case file == store.TimelineFile:
		return groupTimeline
	case strings.HasPrefix(file, strings.TrimSuffix(store.PorcupineCounterFile, ".html")):
		return groupCounter
	}
	return groupLock
}

// link is the first page, by kind in checker name's order, drawing one of
// ops, at the last it draws ("timeline.html#op=18"); "" for none.
func (p *opPages) link(name string, ops []int64) string {
	if p == nil {
		return ""
	}
	order := []int{groupTimeline, groupLock, groupCounter}
	switch name {
	case "lock":
		order = []int{groupLock, groupTimeline}
	case "resource":
		order = []int{groupCounter, groupTimeline, groupLock}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	files := slices.Sorted(slices.Values(p.files))
	for _, g := range order {
		for _, f := range files {
			if pageKind(f) != g {
				continue
			}
			last := int64(-1)
			for _, o := range ops {
				if p.drawn[f][o] {
					last = max(last, o)
				}
			}
			if last >= 0 {
				return fmt.Sprintf("%s#op=%d", f, last)
			}
		}
	}
	return ""
}
