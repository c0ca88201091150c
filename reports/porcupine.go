package reports

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/internal/store"
)

// writePorcupine writes porcupine.html and, for the counter workload,
// porcupine-counter.html from the searches the check kept (a page per
// failing segment), else a page saying why; note is index.html's.
func (s *runScan) writePorcupine(res *analysis.Result, pages *opPages) (note string, err error) {
	lock, counter := keptSearches(res.Verdict)
	invalid := slices.IndexFunc(res.Verdict.Results, func(r checker.Result) bool { return r.Name == "validate" }) // no search ran
	switch {
	case len(lock) > 0:
		note, err = s.writeSearches(res, lock, store.PorcupineFile, "Lock check (porcupine)", pages)
	case invalid >= 0:
		note = "The history is not well-formed, so porcupine could not be run on it: " + res.Verdict.Results[invalid].Error
	default:
		note = fmt.Sprintf("porcupine.html shows no search: the check of this history of %d client operations kept none to draw (it keeps the search of a history it reads as one segment, else those of its first failing segments, each of at most %d operations; a verdict read back from results.json keeps none); the lock check itself ran on all of them (see results.json).",
			s.ops.len(), checker.VisualizeMaxOps)
	}
	if len(lock) == 0 {
		err = writeNotePage(res.Dir, store.PorcupineFile, porcupineTitle(res, "Lock check (porcupine): not built", nil), note)
	}
	if err != nil || invalid >= 0 || res.Config.Workload != "counter" {
		return note, err
	}
	if len(counter) == 0 {
		failed := slices.ContainsFunc(res.Verdict.Results, func(r checker.Result) bool {
			return r.Name == "resource" && slices.ContainsFunc(r.Anomalies, func(a checker.Anomaly) bool { return a.Kind == "nonlinearizable" })
		})
		if !failed {
			return note, nil
		}
		reason := fmt.Sprintf("porcupine-counter.html shows no search: the counter's critical sections are not linearizable, in a segment of more than the %d operations porcupine's visualisation is built for (or in a verdict read back from results.json); the anomaly's records are listed on this page.", checker.VisualizeMaxOps)
		return strings.TrimSpace(note + " " + reason), writeNotePage(res.Dir, store.PorcupineCounterFile, porcupineTitle(res, "Counter's critical sections (porcupine): not built", nil), reason)
	}
	more, err := s.writeSearches(res, counter, store.PorcupineCounterFile, "Counter's critical sections (porcupine)", pages)
	return strings.TrimSpace(note + " " + more), err
}

// writeSearches writes a page per search of zs (segmentFile), a
// segment's marked (markSegment); note is index.html's on segment pages.
func (s *runScan) writeSearches(res *analysis.Result, zs []*checker.Linearization, base, what string, pages *opPages) (note string, err error) {
	if zs[0].Processes == nil { // the whole history's
		return "", writePorcupinePage(res, base, what, func(w io.Writer) (checker.Validity, error) {
			return zs[0].Valid(), zs[0].WriteHTML(w, s.faults)
		}, nil, pages)
	}
	refs, parts := make([]segmentRef, len(zs)), make([]string, len(zs))
	for i, z := range zs {
		refs[i] = segmentRef{File: segmentFile(base, i), First: z.First, Last: z.Last}
		parts[i] = fmt.Sprintf("%s shows the failing segment of records %d..%d", refs[i].File, z.First, z.Last)
	}
	for i, z := range zs {
		seg := s.segmentNote(z)
		title := fmt.Sprintf("%s, failing segment %d of %d", what, i+1, len(zs))
		if err := writePorcupinePage(res, refs[i].File, title, func(w io.Writer) (checker.Validity, error) { return z.Valid(), z.WriteHTML(w, s.faults) },
			func(page []byte) []byte { return markSegment(page, seg, refs[i].File, refs) }, pages); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("The history has %d client operations, checked in segments: %s.", s.ops.len(), strings.Join(parts, "; ")), nil
}

// maxRowNames bounds the rows a segment's note names.
const maxRowNames = 24

// segmentNote is a segment page's sentence saying what part of the
// history it shows and which process each row is.
func (s *runScan) segmentNote(z *checker.Linearization) string {
	var rows []string
	for i, p := range z.Processes {
		if i == maxRowNames {
			rows = append(rows, "…")
			break
		}
		row := fmt.Sprintf("%d = p%d", i, p)
		if c, ok := s.slots.slot(p); ok {
			row += fmt.Sprintf(" (c%d)", c+1)
		}
		rows = append(rows, row)
	}
	return fmt.Sprintf("This page shows one failing segment of a history of %d client operations: records %d..%d (%.3f–%.3f s), as the check cut it at quiescent points (no operation in flight, no lease alive) and searched it. Rows and p numbers here renumber the processes: %s.",
		s.ops.len(), z.First, z.Last, seconds(z.From), seconds(z.To), strings.Join(rows, ", "))
}

// segmentFile is the file of the i-th (0-based) segment page of base
// ("porcupine.html" -> "porcupine.html", "porcupine-2.html", ...).
func segmentFile(base string, i int) string {
	if i == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d.html", base[:len(base)-len(".html")], i+1)
}

// writePorcupinePage writes file: porcupine's page drawn by draw,
// decorated with its title and verdict, then marked when mark is set.
func writePorcupinePage(res *analysis.Result, file, what string, draw func(w io.Writer) (checker.Validity, error), mark func(page []byte) []byte, pages *opPages) error {
	var buf bytes.Buffer
	v, err := draw(&buf)
	if err != nil {
		return fmt.Errorf("reports: %s: %w", file, err)
	}
	pages.addPorcupine(file, buf.Bytes())
	page := decoratePorcupine(buf.Bytes(), porcupineTitle(res, what, &v))
	if mark != nil {
		page = mark(page)
	}
	return writeFile(res.Dir, file, page)
}

// keptSearches are the porcupine searches the lock and resource checkers
// kept: the whole history's, else the failing segments'.
func keptSearches(v checker.Result) (lock, counter []*checker.Linearization) {
	searches := func(whole *checker.Linearization, failing []*checker.Linearization) []*checker.Linearization {
		if whole != nil {
			return []*checker.Linearization{whole}
		}
		return failing
	}
	for _, r := range v.Results {
		switch d := r.Details.(type) {
		case checker.LockDetails:
			lock = searches(d.Linearization, d.Failing)
		case checker.ResourceDetails:
			counter = searches(d.Linearization, d.Failing)
		}
	}
	return lock, counter
}

// porcupineTitle is a porcupine page's title: what, the run, the lock and
// the verdict v of its search (nil: a note page).
func porcupineTitle(res *analysis.Result, what string, v *checker.Validity) string {
	cfg := res.Config
	t := fmt.Sprintf("%s — %s %s, lock %s", what, cfg.Name, filepath.Base(res.Dir), cfg.Lock)
	switch {
	case v == nil:
		return t
	case *v == checker.Valid:
		return t + ": this check VALID (linearizable)"
	case *v == checker.Invalid:
		return t + ": this check INVALID (not linearizable)"
	}
	return t + ": this check UNKNOWN (the search did not finish)"
}

// decoratePorcupine gives a porcupine (v1.3.1) page a title, a heading and
// a script selecting the operation of "#op=N" (or the nearest) as a click would.
func decoratePorcupine(page []byte, title string) []byte {
	esc := html.EscapeString(title)
	page = bytes.Replace(page, []byte("<title>Porcupine</title>"), []byte("<title>"+esc+"</title>"), 1)
	// The fixed heading pushes the legend and the canvas down.
	head := `<body>
    <style>
      #lockstorm-head { position: fixed; left: 0; top: 0; right: 0; z-index: 2; background: #fff;
        padding: 6px 10px 4px; font-family: sans-serif; border-bottom: 1px solid #ddd; }
      #lockstorm-head h1 { font-size: 16px; margin: 0 0 2px; }
      #lockstorm-head p { font-size: 13px; margin: 0; color: #555; min-height: 1em; }
      #legend { top: 56px; }
      #canvas { margin-top: 95px; }
    </style>
    <div id="lockstorm-head"><h1 id="lockstorm-title">` + esc + `</h1><p id="lockstorm-target-note"></p></div>`
	page = bytes.Replace(page, []byte("<body>"), []byte(head), 1)
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return page
	}
	out := append([]byte{}, page[:i]...)
	out = append(out, porcupineTargetScript...)
	return append(out, page[i:]...)
}

// porcupineTargetScript selects the operation named in the page's
// "#op=N" fragment (see decoratePorcupine).
const porcupineTargetScript = `<style>
      rect.history-rect.lockstorm-target { stroke: #d62728; stroke-width: 4px; }
    </style>
    <script>
      (function () {
        function show() {
          var m = /(?:^#|&)op=(\d+)/.exec(location.hash)
          if (!m || typeof data === 'undefined' || !data.Partitions) return
          var want = Number(m[1]), best = null, outside = ''
          if (typeof lockstormSegments !== 'undefined') {
            var here = null, there = null
            lockstormSegments.forEach(function (s) {
              if (want < s.first || want > s.last) return
              if (s.file === lockstormHere) here = s
              else if (!there) there = s
            })
            if (!here && there) {
              location.replace(there.file + '#op=' + want)
              return
            }
            if (!here) outside = 'Op ' + want + ' is outside every segment drawn; '
          }
          data.Partitions.forEach(function (part, p) {
            part.History.forEach(function (el, i) {
              // the record indices: the metadata up to its separator
              var md = String(el.Metadata || '').split('` + checker.MetadataSep + `')[0]
              ;(md.match(/\d+/g) || []).forEach(function (s) {
                var d = Math.abs(Number(s) - want)
                if (best === null || d < best.d) best = {d: d, p: p, i: i, md: md}
              })
            })
          })
          var note = document.getElementById('lockstorm-target-note')
          if (best === null) {
            note.textContent = 'op ' + want + ' is not on this page.'
            return
          }
          var sel = 'rect.target-rect[data-partition="' + best.p + '"][data-index="' + best.i + '"]'
          var target = document.querySelector(sel)
          if (!target) return
          document.querySelectorAll('rect.lockstorm-target').forEach(function (r) { r.classList.remove('lockstorm-target') })
          var box = target.getBoundingClientRect()
          target.dispatchEvent(new MouseEvent('click', {bubbles: true,
            clientX: box.left + box.width / 2, clientY: box.top + box.height / 2}))
          var shown = document.querySelector('rect.history-rect.selected')
          if (shown) shown.classList.add('lockstorm-target')
          target.scrollIntoView({block: 'center', inline: 'center'})
          document.body.setAttribute('data-lockstorm-op', String(want))
          note.textContent = outside ? outside + 'the nearest op on this page (' + best.md + ') is selected and outlined in red.'
            : best.d === 0
            ? 'Op ' + want + ' (' + best.md + ') is selected and outlined in red.'
            : 'Op ' + want + ' is not one of this page\'s operations; the nearest one (' + best.md + ') is selected and outlined in red.'
        }
        show()
        window.addEventListener('hashchange', show)
      })()
    </script>
  `

// segmentRef is one segment page as the pages' script sees it: its file
// and the record indices it spans.
type segmentRef struct {
	File        string `json:"file"`
	First, Last int64
}

// markSegment adds to a segment's page its note and every segment page
// of its kind, so that "#op=N" of another segment's op goes there.
func markSegment(page []byte, note, here string, all []segmentRef) []byte {
	segs := make([]string, len(all))
	for i, r := range all {
		segs[i] = fmt.Sprintf("{file: %q, first: %d, last: %d}", r.File, r.First, r.Last)
	}
	js := fmt.Sprintf("var lockstormSegments = [%s]\n      var lockstormHere = %q", strings.Join(segs, ", "), here)
	add := `<p id="lockstorm-segment">` + html.EscapeString(note) + `</p><p id="lockstorm-target-note"></p></div>
    <style>
      #lockstorm-head p#lockstorm-segment { color: #333; max-width: 1100px; }
      #legend { top: 100px; }
      #canvas { margin-top: 140px; }
    </style>
    <script>
      ` + js + `
      // the note may wrap onto several lines: move the legend and the
      // canvas below the heading, whatever its height
      document.addEventListener('DOMContentLoaded', function () {
        var hd = document.getElementById('lockstorm-head')
        var lg = document.getElementById('legend'), cv = document.getElementById('canvas')
        if (!hd) return
        if (lg) lg.style.top = (hd.offsetHeight + 8) + 'px'
        if (cv) cv.style.marginTop = (hd.offsetHeight + 48) + 'px'
      })
    </script>`
	return bytes.Replace(page, []byte(`<p id="lockstorm-target-note"></p></div>`), []byte(add), 1)
}
